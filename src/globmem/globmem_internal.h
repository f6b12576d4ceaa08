/* Internal to src/globmem: segment life cycle shared by the source files. */
#ifndef DART__GLOBMEM_INTERNAL_H
#define DART__GLOBMEM_INTERNAL_H

#include "dart_segment.h"

/* Window info hints, created in dart__globmem_init. */
DART__HIDDEN dart_ret_t dart__window_hints_init(void);
DART__HIDDEN void dart__window_hints_fini(void);

/*
 * Collectively creates a segment of the given kind on team: size bytes of
 * the caller's portion (allocated, or the user memory at addr for
 * registrations). status is the outcome of the caller's local argument
 * checks; every member passes its own, and if any member's status is not
 * DART_OK, all return that error without creating anything (so a bad
 * argument on one unit never leaves the others waiting). On success the
 * segment is published in team->segs under a fresh id.
 */
DART__HIDDEN dart_ret_t dart__segment_create(const char *func,
                                             dart__team_t *team,
                                             dart__seg_kind_t kind, size_t size,
                                             void *addr, dart_ret_t status,
                                             dart__segment_t **out);

/* Collectively frees a segment: unpublishes it, releases its id and its
 * windows. */
DART__HIDDEN dart_ret_t dart__segment_destroy(dart__segment_t *seg);

/*
 * Deregistration, a local operation: unpublishes seg at once; its window is
 * freed collectively later, at the first segment creation on the team at
 * which every member has retired the same registrations (any per-unit
 * order of deregistration works), or when the team is destroyed.
 */
DART__HIDDEN dart_ret_t dart__segment_retire(dart__segment_t *seg);

/* seg's id (callback of dart__segtable_revive_retired). */
DART__HIDDEN int16_t dart__segment_id(dart__segment_t *seg);

/* Byte count of nelem elements of dtype (any valid type), or logs and
 * fails: bad type -> DART_ERR_INVAL, overflow -> DART_ERR_INVAL. */
DART__HIDDEN dart_ret_t dart__globmem_bytes(const char *func, size_t nelem,
                                            dart_datatype_t dtype,
                                            bool basic_only, size_t *bytes);

#endif /* DART__GLOBMEM_INTERNAL_H */
