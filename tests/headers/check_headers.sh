#!/usr/bin/env bash
#
# Compile checks for the public DART headers (include/dash/dart/if/*.h).
#
# Usage: check_headers.sh <include-root> <workdir>
#
#   <include-root>  directory that contains dash/dart/if/
#   <workdir>       scratch directory for generated sources, binaries and logs
#                   (created if missing)
#
# Checks performed (one output line per check):
#   1. every header only includes standard C headers or other DART headers;
#   2. every header compiles on its own, and when included twice, with
#      gcc/clang in -std=c99/-std=c11 and with g++/clang++ in
#      -std=c++11/-std=c++14/-std=c++17, using -Wall -Wextra -Werror;
#      also all headers together, in forward and reverse order;
#   3. layout_check.c and layout_check.cpp (next to this script) are built
#      with every available compiler and mode and run; they verify the global
#      pointer layout, the macros, the inline helpers and all constants;
#   4. the sizes of the locality structs printed by every layout_check build
#      agree with the reference build (gcc -std=c11).
#
# Compilers other than gcc and g++ are skipped with a note when they are not
# on PATH; gcc and g++ are mandatory. Neither MPI nor the DART library is
# needed. Exit status: 0 if all checks passed, 1 otherwise, 2 on usage errors.

set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 <include-root> <workdir>" >&2
  exit 2
fi

if [ ! -d "$1/dash/dart/if" ]; then
  echo "error: '$1' does not contain dash/dart/if" >&2
  exit 2
fi
INCLUDE_ROOT=$(cd "$1" && pwd)
mkdir -p "$2" || exit 2
WORKDIR=$(cd "$2" && pwd)
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HEADER_DIR="$INCLUDE_ROOT/dash/dart/if"

HEADERS=(
  dart.h
  dart_util.h
  dart_types.h
  dart_config.h
  dart_initialization.h
  dart_team_group.h
  dart_globmem.h
  dart_communication.h
  dart_synchronization.h
  dart_locality.h
  dart_io.h
)
C_MODES=(c99 c11)
CXX_MODES=(c++11 c++14 c++17)
WARN_FLAGS=(-Wall -Wextra -Werror)
# Standard headers the interface is allowed to include.
ALLOWED_SYSTEM_INCLUDES="stdlib.h stdint.h stdbool.h limits.h"

n_pass=0
n_fail=0
n_skip=0

pass() { n_pass=$((n_pass + 1)); printf 'PASS  %s\n' "$1"; }
skip() { n_skip=$((n_skip + 1)); printf 'SKIP  %s\n' "$1"; }
fail() {
  n_fail=$((n_fail + 1))
  printf 'FAIL  %s\n' "$1"
  if [ $# -gt 1 ] && [ -s "$2" ]; then
    sed -e 's/^/      | /' "$2" | head -n 40
  fi
}

# ---------------------------------------------------------------------------
# Compilers
# ---------------------------------------------------------------------------
C_COMPILERS=()
CXX_COMPILERS=()
for cc in gcc clang; do
  if command -v "$cc" > /dev/null 2>&1; then
    C_COMPILERS+=("$cc")
  elif [ "$cc" = gcc ]; then
    fail "compiler gcc: not found on PATH (required)"
  else
    skip "compiler $cc: not found on PATH"
  fi
done
for cxx in g++ clang++; do
  if command -v "$cxx" > /dev/null 2>&1; then
    CXX_COMPILERS+=("$cxx")
  elif [ "$cxx" = g++ ]; then
    fail "compiler g++: not found on PATH (required)"
  else
    skip "compiler $cxx: not found on PATH"
  fi
done
for c in ${C_COMPILERS[@]+"${C_COMPILERS[@]}"} ${CXX_COMPILERS[@]+"${CXX_COMPILERS[@]}"}; do
  printf 'INFO  using %s: %s\n' "$c" "$("$c" --version 2>/dev/null | head -n 1)"
done

# ---------------------------------------------------------------------------
# 1. Include lists
# ---------------------------------------------------------------------------
for hdr in "${HEADERS[@]}"; do
  path="$HEADER_DIR/$hdr"
  if [ ! -f "$path" ]; then
    fail "exists: $hdr"
    continue
  fi
  bad=""
  while IFS= read -r inc; do
    name=$(printf '%s\n' "$inc" |
           sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]*)[>"].*/\1/')
    case "$name" in
      dash/dart/if/dart*.h) ;;
      dart*.h) [ "$hdr" = dart.h ] || bad="$bad $name" ;;
      *)
        case " $ALLOWED_SYSTEM_INCLUDES " in
          *" $name "*) ;;
          *) bad="$bad $name" ;;
        esac
        ;;
    esac
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$path")
  if [ -z "$bad" ]; then
    pass "includes: $hdr uses only standard C and DART headers"
  else
    fail "includes: $hdr includes non-permitted header(s):$bad"
  fi
done

# ---------------------------------------------------------------------------
# 1b. Include guards: expected names, and a second inclusion must not add
#     anything to the preprocessed translation unit
# ---------------------------------------------------------------------------
guard_name() {
  case "$1" in
    dart.h)                 echo DART__DART_H_ ;;
    dart_util.h)            echo DART_UTIL_H_ ;;
    dart_types.h)           echo DART_TYPES_H_INCLUDED ;;
    dart_config.h)          echo DART__IF__CONFIG_H__ ;;
    dart_initialization.h)  echo DART_INITIALIZATION_H_INCLUDED ;;
    dart_team_group.h)      echo DART_TEAM_GROUP_H_INCLUDED ;;
    dart_globmem.h)         echo DART_GLOBMEM_H_INCLUDED ;;
    dart_communication.h)   echo DART__COMMUNICATION_H_ ;;
    dart_synchronization.h) echo DART_SYNCHRONIZATION_H_INCLUDED ;;
    dart_locality.h)        echo DART__LOCALITY_H_ ;;
    dart_io.h)              echo DART__IO_H_ ;;
  esac
}

# ---------------------------------------------------------------------------
# 2. Stand-alone compilation of every header
# ---------------------------------------------------------------------------
TU_DIR="$WORKDIR/tu"
LOG_DIR="$WORKDIR/logs"
BIN_DIR="$WORKDIR/bin"
mkdir -p "$TU_DIR" "$LOG_DIR" "$BIN_DIR"

# Prints the lines that must precede '#include <dash/dart/if/$1>'.
prologue() {
  if [ "$1" = dart_io.h ]; then
    printf '#include <stdint.h>\ntypedef int64_t hid_t;\n'
  fi
}

# write_tu <file> <header>...: a TU that includes the given headers in order.
write_tu() {
  local file=$1
  shift
  {
    printf '/* generated by check_headers.sh */\n'
    if printf '%s\n' "$@" | grep -qx dart_io.h; then
      prologue dart_io.h
    fi
    local h
    for h in "$@"; do
      printf '#include <dash/dart/if/%s>\n' "$h"
    done
    printf 'int dart_header_check_dummy;\n'
  } > "$file"
}

# compile_check <label> <compiler> <std> <source>
compile_check() {
  local label=$1 compiler=$2 std=$3 src=$4
  local log
  log="$LOG_DIR/$(basename "$src").$compiler.$std.log"
  if "$compiler" "-std=$std" "${WARN_FLAGS[@]}" -fsyntax-only -I"$INCLUDE_ROOT" \
       "$src" > "$log" 2>&1; then
    pass "$label [$compiler -std=$std]"
  else
    fail "$label [$compiler -std=$std]" "$log"
  fi
}

reversed=()
for ((i = ${#HEADERS[@]} - 1; i >= 0; i--)); do
  reversed+=("${HEADERS[$i]}")
done

for hdr in "${HEADERS[@]}"; do
  base=${hdr%.h}
  write_tu "$TU_DIR/$base.once.c" "$hdr"
  write_tu "$TU_DIR/$base.twice.c" "$hdr" "$hdr"
done
write_tu "$TU_DIR/all.forward.c" "${HEADERS[@]}"
write_tu "$TU_DIR/all.reverse.c" "${reversed[@]}"
for src in "$TU_DIR"/*.c; do
  cp "$src" "${src%.c}.cpp"
done

for hdr in "${HEADERS[@]}"; do
  base=${hdr%.h}
  guard=$(guard_name "$hdr")
  first=$(grep -E '^[[:space:]]*#' "$HEADER_DIR/$hdr" | head -n 2 | tr -s ' \t' ' ' |
          paste -s -d '|' -)
  if [ "$first" = "#ifndef $guard|#define $guard" ]; then
    pass "guard: $hdr is protected by $guard"
  else
    fail "guard: $hdr does not start with '#ifndef $guard' / '#define $guard'"
  fi
  for lang in c cpp; do
    pp=gcc
    [ "$lang" = cpp ] && pp=g++
    log="$LOG_DIR/$base.guard.$lang.log"
    if "$pp" -E -P -I"$INCLUDE_ROOT" "$TU_DIR/$base.once.$lang" > "$log.once" 2> "$log" &&
       "$pp" -E -P -I"$INCLUDE_ROOT" "$TU_DIR/$base.twice.$lang" > "$log.twice" 2>> "$log" &&
       cmp -s "$log.once" "$log.twice"; then
      pass "guard: second inclusion of $hdr adds nothing [$pp -E]"
    else
      diff "$log.once" "$log.twice" >> "$log" 2>&1
      fail "guard: second inclusion of $hdr changes the preprocessed output [$pp -E]" "$log"
    fi
  done
  for variant in once twice; do
    what="$hdr alone"
    [ "$variant" = twice ] && what="$hdr included twice"
    for cc in ${C_COMPILERS[@]+"${C_COMPILERS[@]}"}; do
      for std in "${C_MODES[@]}"; do
        compile_check "compile: $what" "$cc" "$std" "$TU_DIR/$base.$variant.c"
      done
    done
    for cxx in ${CXX_COMPILERS[@]+"${CXX_COMPILERS[@]}"}; do
      for std in "${CXX_MODES[@]}"; do
        compile_check "compile: $what" "$cxx" "$std" "$TU_DIR/$base.$variant.cpp"
      done
    done
  done
done
for order in forward reverse; do
  for cc in ${C_COMPILERS[@]+"${C_COMPILERS[@]}"}; do
    for std in "${C_MODES[@]}"; do
      compile_check "compile: all headers, $order order" "$cc" "$std" "$TU_DIR/all.$order.c"
    done
  done
  for cxx in ${CXX_COMPILERS[@]+"${CXX_COMPILERS[@]}"}; do
    for std in "${CXX_MODES[@]}"; do
      compile_check "compile: all headers, $order order" "$cxx" "$std" \
        "$TU_DIR/all.$order.cpp"
    done
  done
done

# ---------------------------------------------------------------------------
# 3./4. Layout programs
# ---------------------------------------------------------------------------
LAYOUT_C="$SCRIPT_DIR/layout_check.c"
LAYOUT_CXX="$SCRIPT_DIR/layout_check.cpp"
REFERENCE_SIZES=""
REFERENCE_LABEL=""

# run_layout <label> <source> <compiler> [<std>]
# Builds and runs one layout program; stores the printed sizes in $sizes.
run_layout() {
  local label=$1 src=$2 compiler=$3 std=${4:-}
  local tag="${compiler}${std:+.$std}"
  local exe="$BIN_DIR/$(basename "$src").$tag"
  local log="$LOG_DIR/$(basename "$src").$tag.build.log"
  local out="$LOG_DIR/$(basename "$src").$tag.run.log"
  local std_flag=()
  [ -n "$std" ] && std_flag=("-std=$std")
  sizes=""
  if ! "$compiler" ${std_flag[@]+"${std_flag[@]}"} "${WARN_FLAGS[@]}" -I"$INCLUDE_ROOT" \
       "$src" -o "$exe" > "$log" 2>&1; then
    fail "layout: build $label" "$log"
    return 1
  fi
  pass "layout: build $label"
  if "$exe" > "$out" 2>&1; then
    pass "layout: run $label ($(grep '^INFO' "$out" | sed 's/^INFO //'))"
  else
    fail "layout: run $label" "$out"
    return 1
  fi
  sizes=$(grep '^SIZE ' "$out" | sed 's/^SIZE //' | paste -s -d ' ' -)
  if [ -z "$sizes" ]; then
    fail "layout: $label printed no struct sizes" "$out"
    return 1
  fi
  return 0
}

compare_sizes() {
  local label=$1
  if [ -z "$REFERENCE_SIZES" ]; then
    return
  fi
  if [ "$sizes" = "$REFERENCE_SIZES" ]; then
    pass "layout: struct sizes of $label equal those of $REFERENCE_LABEL"
  else
    local tmp="$LOG_DIR/size_mismatch.$$.log"
    printf '%s: %s\n%s: %s\n' "$REFERENCE_LABEL" "$REFERENCE_SIZES" "$label" "$sizes" > "$tmp"
    fail "layout: struct sizes of $label differ from $REFERENCE_LABEL" "$tmp"
  fi
}

# Reference build: C with gcc -std=c11 (no HOST_NAME_MAX in strict mode).
if [ ${#C_COMPILERS[@]} -gt 0 ] && [ "${C_COMPILERS[0]}" = gcc ]; then
  if run_layout "layout_check.c [gcc -std=c11]" "$LAYOUT_C" gcc c11; then
    REFERENCE_SIZES=$sizes
    REFERENCE_LABEL="layout_check.c [gcc -std=c11]"
    pass "layout: reference struct sizes: $REFERENCE_SIZES"
  fi
fi

for cc in ${C_COMPILERS[@]+"${C_COMPILERS[@]}"}; do
  for std in "${C_MODES[@]}"; do
    [ "$cc" = gcc ] && [ "$std" = c11 ] && continue
    label="layout_check.c [$cc -std=$std]"
    run_layout "$label" "$LAYOUT_C" "$cc" "$std" && compare_sizes "$label"
  done
done
for cxx in ${CXX_COMPILERS[@]+"${CXX_COMPILERS[@]}"}; do
  for std in "${CXX_MODES[@]}"; do
    label="layout_check.cpp [$cxx -std=$std]"
    run_layout "$label" "$LAYOUT_CXX" "$cxx" "$std" && compare_sizes "$label"
  done
  label="layout_check.cpp [$cxx, default -std]"
  run_layout "$label" "$LAYOUT_CXX" "$cxx" && compare_sizes "$label"
done

# ---------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------
echo "SUMMARY: $n_pass passed, $n_fail failed, $n_skip skipped"
if [ "$n_fail" -ne 0 ]; then
  exit 1
fi
exit 0
