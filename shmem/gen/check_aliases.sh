#!/bin/sh
# Post-build check of libdart-shmem.so: every defined pshmem_x has its
# public twin shmem_x (SHMEMI_ALIAS after the definition, see
# shmem/src/shmem_internal.h). Lists the missing ones and fails otherwise.
lib=$1
nm -D --defined-only "$lib" | awk '{print $3}' | sort > "$lib.syms" || exit 1
missing=$(grep '^pshmem_' "$lib.syms" | sed 's/^p//' | sort | comm -23 - "$lib.syms")
rm -f "$lib.syms"
if [ -n "$missing" ]; then
  echo "libdart-shmem: no public alias (SHMEMI_ALIAS) for:" $missing >&2
  exit 1
fi
