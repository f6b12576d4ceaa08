#!/usr/bin/env bash
# Usage: check_pdart_symbols.sh <libdart-mpi.so> <libdart-mpi.a> <api-list>
# The profiling interface in the built libraries (docs/profiling.md):
#  - the shared library exports exactly the functions of the public headers
#    (api-list, one name a line) as weak dart_x, each with a strong pdart_x
#    at the same address, and besides them only the functions of the
#    extension interface (include/dash/dart/ext/dartx.h: strong dartx_x,
#    for layers over DART, outside the DART API and its profiling names);
#  - no dart_x / pdart_x is left undefined in it;
#  - the static library defines each pdart_x once and each dart_x once, weak.
set -euo pipefail
so=$1 ar=$2 list=$3
fail=0
err() { echo "check_pdart_symbols: $*"; fail=1; }

exported=$(nm -D --defined-only "$so" | awk 'NF == 3 {print $2, $3, $1}')
others=$(awk '$2 !~ /^p?dart_[a-z]/ && !($1 == "T" && $2 ~ /^dartx_[a-z]/)' <<< "$exported")
[ -z "$others" ] || err "exported besides dart_*/pdart_*/dartx_*: $(tr '\n' ' ' <<< "$others")"
undef=$(nm -D --undefined-only "$so" | awk '$2 ~ /^p?dart_/ {print $2}')
[ -z "$undef" ] || err "undefined in the shared library: $(tr '\n' ' ' <<< "$undef")"

declare -A type addr
while read -r t name a; do type[$name]=$t; addr[$name]=$a; done <<< "$exported"
n=0
while read -r f; do
  [ -n "$f" ] || continue
  n=$((n + 1))
  [ "${type[$f]:-}" = W ] || err "$f: expected a weak definition, found '${type[$f]:-none}'"
  [ "${type[p$f]:-}" = T ] || err "p$f: expected a strong definition, found '${type[p$f]:-none}'"
  [ "${addr[$f]:-x}" = "${addr[p$f]:-y}" ] || err "$f and p$f at different addresses"
done < "$list"
ndart=$(awk '$2 ~ /^dart_/' <<< "$exported" | wc -l)
[ "$ndart" -eq "$n" ] || err "$ndart dart_* exported, $n in the public headers"

archive=$(nm -A "$ar" 2>/dev/null | awk 'NF == 3 && $3 ~ /^p?dart_[a-z]/ && $2 != "U" {print $2, $3}')
while read -r f; do
  [ -n "$f" ] || continue
  [ "$(grep -cx "W $f" <<< "$archive")" -eq 1 ] || err "$ar: $f not weak exactly once"
  [ "$(grep -cx "T p$f" <<< "$archive")" -eq 1 ] || err "$ar: p$f not defined exactly once"
done < "$list"
[ "$fail" -eq 0 ] && echo "check_pdart_symbols: $n functions, each weak dart_* = strong pdart_* (shared and static)"
exit "$fail"
