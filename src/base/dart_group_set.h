/* Internal: sorted unit-id sets behind dart_group_t (no MPI needed). */
#ifndef DART__GROUP_SET_H
#define DART__GROUP_SET_H

#include <stddef.h>
#include <stdint.h>

#include "dart_log.h"

/* A group: strictly ascending global unit ids. */
struct dart_group_struct {
  size_t n;
  size_t cap;
  int32_t *ids;
};

typedef struct dart_group_struct dart__group_t;

DART__HIDDEN dart__group_t *dart__group_new(size_t cap);
DART__HIDDEN void dart__group_free(dart__group_t *g);
DART__HIDDEN dart__group_t *dart__group_copy(const dart__group_t *g);
/* Returns 0 on success, -1 when memory is exhausted. */
DART__HIDDEN int dart__group_insert(dart__group_t *g, int32_t id);
DART__HIDDEN void dart__group_remove(dart__group_t *g, int32_t id);
DART__HIDDEN int dart__group_contains(const dart__group_t *g, int32_t id);
DART__HIDDEN dart__group_t *dart__group_union(const dart__group_t *a,
                                              const dart__group_t *b);
DART__HIDDEN dart__group_t *dart__group_intersect(const dart__group_t *a,
                                                  const dart__group_t *b);
/*
 * Splits g into n contiguous chunks of ceil(size/n) members; out[i] for all
 * i < n are fresh groups (empty beyond the end). Returns the number of
 * non-empty chunks, or -1 on allocation failure (nothing leaked).
 */
DART__HIDDEN long dart__group_split(const dart__group_t *g, size_t n,
                                    dart__group_t **out);

#endif /* DART__GROUP_SET_H */
