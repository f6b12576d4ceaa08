/* Internal: CPU atomics on mapped memory (see cpu_atomic.c). */
#ifndef DART__ONESIDED_CPU_ATOMIC_H
#define DART__ONESIDED_CPU_ATOMIC_H

#include <dash/dart/if/dart_types.h>
#include <stddef.h>

#include "dart_log.h"

/*
 * For i < nelem, atomically: old[i] = target[i]; target[i] = old[i] op
 * values[i] (old may be NULL). esz is the size of the basic type t.
 * Returns -1 (nothing done) for a type without CPU atomics on this
 * platform or a target not aligned to esz. op must be valid for t.
 */
DART__HIDDEN int dart__cpu_atomic(void *target, const void *values, void *old,
                                  size_t nelem, size_t esz, dart_datatype_t t,
                                  dart_operation_t op);

/* Atomic compare-and-swap of one integer element; -1 as above. */
DART__HIDDEN int dart__cpu_cas(void *target, const void *value,
                               const void *compare, void *old, size_t esz,
                               dart_datatype_t t);

/* Non-atomic out = a op b for one element of basic type t (emulations of
 * atomics on top of MPI compare-and-swap or a lock); -1 if unsupported. */
DART__HIDDEN int dart__atomic_combine(void *out, const void *a, const void *b,
                                      dart_datatype_t t, dart_operation_t op);

#endif /* DART__ONESIDED_CPU_ATOMIC_H */
