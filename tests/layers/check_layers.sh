#!/usr/bin/env bash
# The layer model of docs/design.md ("Layers"), checked on what the build
# makes and on the sources as the compiler reads them:
#
#   base 0 < team 1 < transport 2 < types 3 < memory 4 < operations 5
#   < runtime 6 < ext 7
#
# (src/base, src/team, src/transport, src/types, src/globmem;
# src/onesided, src/locks, src/coll, src/locality; src/runtime; src/ext,
# the dartx_ extension interface for layers over DART). A file's
# layer is the folder it lives in.
#
#  1. calls: every undefined dart__* symbol of an object of the library
#     (nm) is defined by an object of its own or a lower layer;
#  2. includes: every header under src/ a file depends on, resolved as the
#     compiler resolves it (cc -MM with the library's include path, bare
#     names and relative paths included, transitively), is of its own or a
#     lower layer;
#  3. MPI calls: RMA, completion (flush, sync), waits and tests
#     (MPI_Wait*, MPI_Test*, probes, request status) only under
#     src/transport; window creation, attachment, free and epochs
#     (lock/unlock, fence, PSCW) only under src/globmem.
#
# Usage: check_layers.sh <source root> <object dir> <cc> [-I<dir>...]
#   <object dir>: where the build put the library's objects, mirroring
#   src/ (CMakeFiles/dart-obj.dir). Prints one line per violation naming
#   the file and the symbol, header or call; exit 1 if there is any.
set -u
root=$(cd "${1:?source root}" && pwd)
objdir=${2:?object dir}
cc=${3:?compiler}
shift 3
incs=("$@")
src=$root/src
bad=0

layer_of() { # <path relative to src/> -> layer number, or empty
  case "$1" in
    base/*) echo 0 ;;
    team/*) echo 1 ;;
    transport/*) echo 2 ;;
    types/*) echo 3 ;;
    globmem/*) echo 4 ;;
    onesided/* | locks/* | coll/* | locality/*) echo 5 ;;
    runtime/*) echo 6 ;;
    ext/*) echo 7 ;;
    *) echo "" ;;
  esac
}
names=(base team transport types memory operations runtime ext)
fail() {
  echo "$*"
  bad=1
}

# Every source file must belong to a layer.
while IFS= read -r f; do
  rel=${f#"$src"/}
  [ -n "$(layer_of "$rel")" ] || fail "no layer: src/$rel (folder not in the model)"
done < <(find "$src" -name '*.[ch]' | sort)

# 1. Calls, over the built objects: one nm for all, one awk.
layer_awk='
function layer(p) {
  if (p ~ /^base\//) return 0; if (p ~ /^team\//) return 1
  if (p ~ /^transport\//) return 2; if (p ~ /^types\//) return 3
  if (p ~ /^globmem\//) return 4
  if (p ~ /^(onesided|locks|coll|locality)\//) return 5
  if (p ~ /^runtime\//) return 6; if (p ~ /^ext\//) return 7; return -1
}
BEGIN { split("base team transport types memory operations runtime ext", nm, " ") }'
mapfile -t objs < <(find "$objdir" -path '*/src/*' -name '*.o' | sort)
if [ "${#objs[@]}" -eq 0 ]; then
  fail "no objects under $objdir (build the library first)"
else
  out=$({ nm -A -P --defined-only "${objs[@]}" | sed 's/^/D /'
          nm -A -P -u "${objs[@]}" | sed 's/^/U /'; } | awk "$layer_awk"'
    { f = $2; sub(/:$/, "", f); sub(/.*\/src\//, "", f); sub(/\.o$/, "", f)
      sym = $3; if (sym !~ /^dart__/) next
      if ($1 == "D") { if ($4 ~ /^[TDBRVWGS]$/) def[sym] = f }
      else use[++n] = f " " sym }
    END { for (i = 1; i <= n; i++) { split(use[i], a, " ")
            if (!(a[2] in def)) continue
            lo = layer(a[1]); ld = layer(def[a[2]])
            if (lo >= 0 && ld > lo)
              printf "upward call: src/%s (%s) uses %s of src/%s (%s)\n",
                     a[1], nm[lo + 1], a[2], def[a[2]], nm[ld + 1] } }')
  [ -z "$out" ] || fail "$out"
fi

# 2. Includes, resolved by the compiler (transitively, from every file):
# one cc -MM per file (include path of the library), one awk.
out=$(find "$src" -name '*.[ch]' | sort | while IFS= read -r f; do
  echo "@@FILE $f"
  "$cc" -MM -MG -x c "${incs[@]}" "$f" 2>&1 || echo "@@FAIL $f"
done | awk -v src="$src/" "$layer_awk"'
  function norm(p,   n, a, i, o, k, st) {
    n = split(p, a, "/"); k = 0
    for (i = 1; i <= n; i++) {
      if (a[i] == "" || a[i] == ".") continue
      if (a[i] == ".." && k > 0) { k--; continue }
      st[++k] = a[i] }
    o = ""; for (i = 1; i <= k; i++) o = o "/" st[i]; return o }
  $1 == "@@FILE" { rel = $2; sub("^" src, "", rel); lf = layer(rel); next }
  $1 == "@@FAIL" { printf "cannot resolve the includes of src/%s\n", rel; next }
  { for (i = 1; i <= NF; i++) {
      d = $i; if (d == "\\" || d ~ /:$/ || d !~ /^\//) continue
      d = norm(d); if (index(d, src) != 1) continue
      dr = substr(d, length(src) + 1); if (dr == rel) continue
      ld = layer(dr)
      if (lf >= 0 && ld > lf && !seen[rel, dr]++)
        printf "upward include: src/%s (%s) includes src/%s (%s)\n",
               rel, nm[lf + 1], dr, nm[ld + 1] } }')
[ -z "$out" ] || fail "$out"

# 3. MPI calls, in the sources without comments and string literals
# (one awk over every file; line numbers kept).
rma='MPI_(Put|Get|Rput|Rget|Accumulate|Raccumulate|Get_accumulate|Rget_accumulate|Fetch_and_op|Compare_and_swap|Win_flush[a-z_]*|Win_sync)'
wait='MPI_(Wait|Waitall|Waitany|Waitsome|Test|Testall|Testany|Testsome|Iprobe|Probe|Improbe|Mprobe|Request_get_status)'
win='MPI_Win_(create|create_dynamic|allocate|allocate_shared|free|attach|detach|lock|unlock|lock_all|unlock_all|fence|post|start|complete|wait|test)'
out=$(find "$src" -name '*.[ch]' | sort | xargs awk -v src="$src/" \
  -v rma="^$rma\$" -v wt="^$wait\$" -v win="^$win\$" '
  FNR == 1 { c = 0; rel = FILENAME; sub("^" src, "", rel)
             top = rel; sub(/\/.*/, "", top) }
  {
    o = ""; s = $0; n = length(s); i = 1
    while (i <= n) {
      ch = substr(s, i, 1); two = substr(s, i, 2)
      if (c) { if (two == "*/") { c = 0; i += 2 } else i++; continue }
      if (two == "/*") { c = 1; i += 2; continue }
      if (two == "//") break
      if (ch == "\"" || ch == "\047") {
        q = ch; i++
        while (i <= n && substr(s, i, 1) != q) i += (substr(s, i, 1) == "\\") ? 2 : 1
        i++; o = o " "; continue
      }
      o = o ch; i++
    }
    while (match(o, /MPI_[A-Za-z_]+[ \t]*\(/)) {
      call = substr(o, RSTART, RLENGTH); o = substr(o, RSTART + RLENGTH)
      sub(/[ \t]*\($/, "", call)
      if (call ~ win) { want = "globmem"; what = "MPI window creation/epoch call" }
      else if (call ~ wt) { want = "transport"; what = "MPI wait/test call" }
      else if (call ~ rma) { want = "transport"; what = "MPI RMA/completion call" }
      else continue
      if (top != want)
        printf "%s outside src/%s: src/%s:%d: %s\n", what, want, rel, FNR, call
    }
  }')
[ -z "$out" ] || fail "$out"

[ "$bad" -eq 0 ] && echo "layers: ok"
exit "$bad"
