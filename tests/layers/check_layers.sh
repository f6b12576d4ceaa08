#!/usr/bin/env bash
# The layering rules of docs/design.md ("Layers"), checked on the sources:
#  1. MPI RMA calls, completions and window syncs appear only under
#     src/transport/ (the one place that makes them and watches the waits);
#  2. no layer includes the internal header of a layer above it: base
#     includes nothing of the others, the transport nothing of memory's or
#     the operations' internals, the memory layer nothing of the operations
#     or the runtime's modules.
# Usage: check_layers.sh <source root>. Prints every violation, exit 1 if any.
set -u
src=${1:?source root}/src
bad=0
rma='MPI_(Put|Get|Rput|Rget|Accumulate|Raccumulate|Get_accumulate|Rget_accumulate|Fetch_and_op|Compare_and_swap|Win_flush[a-z_]*|Win_sync)[[:space:]]*\('
while IFS= read -r hit; do
  echo "MPI RMA call outside src/transport: $hit"; bad=1
done < <(grep -rnE "$rma" "$src" --include='*.c' --include='*.h' |
         grep -v "^$src/transport/" | grep -vE ':[0-9]+:\s*(/?\*|//)')
check_includes() { # <dir> <regex of forbidden include targets>
  while IFS= read -r hit; do
    echo "upward include in $1: $hit"; bad=1
  done < <(grep -rnE "#include \"($2)" "$src/$1" 2>/dev/null)
}
check_includes base 'coll/|onesided/|locks/|locality/|globmem/|transport/|runtime/|types/'
check_includes transport 'coll/|onesided/|locks/|locality/|globmem/|runtime/'
check_includes globmem 'coll/|onesided/|locks/|locality/'
[ "$bad" -eq 0 ] && echo "layers: ok"
exit "$bad"
