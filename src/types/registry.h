/*
 * Internal: handle registry for derived datatypes and user operations.
 *
 * A registry hands out integer handles for fixed-size payloads. A handle
 * encodes a slot index (low DART__REG_SLOT_BITS bits) and the slot's
 * generation (the bits above), so a lookup of a destroyed, stale or forged
 * handle is rejected in O(1) without touching a lock. Payload memory lives
 * in chunks that never move (lookups of live handles race-free with
 * concurrent allocations); it is only returned to the system by
 * dart__registry_fini. This module does not depend on MPI.
 */
#ifndef DART__TYPES_REGISTRY_H
#define DART__TYPES_REGISTRY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "dart_log.h"

#define DART__REG_SLOT_BITS 20
#define DART__REG_CHUNK_BITS 10
#define DART__REG_CHUNK_SLOTS (1u << DART__REG_CHUNK_BITS)
#define DART__REG_MAX_SLOTS (1u << DART__REG_SLOT_BITS)
#define DART__REG_MAX_CHUNKS (DART__REG_MAX_SLOTS / DART__REG_CHUNK_SLOTS)

/* Every valid handle is >= this value (generation >= 1). */
#define DART__REG_MIN_HANDLE ((intptr_t)1 << DART__REG_SLOT_BITS)

typedef struct dart__registry {
  pthread_mutex_t lock;
  size_t payload_size; /* bytes of payload per slot                    */
  size_t stride;       /* bytes per slot: header + aligned payload      */
  _Atomic(unsigned char *) chunks[DART__REG_MAX_CHUNKS];
  uint32_t used;      /* slots ever handed out (high-water mark)       */
  uint32_t free_head; /* 1 + index of the first free slot, 0 if none   */
  size_t live;        /* number of live handles                        */
  uint32_t fresh_gen; /* even generation given to never-used slots;
                         survives fini so handles of a previous
                         init/exit cycle stay invalid                  */
  int initialized;
} dart__registry_t;

/* Callback applied to a payload (e.g. to release what it owns). */
typedef void (*dart__registry_fn)(void *payload, void *ctx);

/*
 * Prepares r for payloads of payload_size bytes. r must be zero-initialised
 * before its first use (static storage) or have been through fini.
 */
DART__HIDDEN void dart__registry_init(dart__registry_t *r, size_t payload_size);

/*
 * Copies payload_size bytes from payload into a free slot and returns the
 * new handle (>= DART__REG_MIN_HANDLE), valid for lookups from now on.
 * Returns 0 when the registry is full or memory is exhausted.
 */
DART__HIDDEN intptr_t dart__registry_add(dart__registry_t *r,
                                         const void *payload);

/* Payload of a live handle, or NULL. O(1), lock-free. */
DART__HIDDEN void *dart__registry_get(const dart__registry_t *r, intptr_t h);

/*
 * Invalidates a handle and copies its payload to *out
 * (payload_size bytes, may be NULL). Returns 0, or -1 if h is not live.
 * Safe against a concurrent removal of the same handle: only one wins.
 */
DART__HIDDEN int dart__registry_remove(dart__registry_t *r, intptr_t h,
                                       void *out);

/* Number of live handles. */
DART__HIDDEN size_t dart__registry_live(dart__registry_t *r);

/*
 * Calls fn on every live payload (in slot order), invalidates every handle
 * and frees all memory. The registry can be initialised again afterwards;
 * handles from before stay invalid.
 */
DART__HIDDEN void dart__registry_fini(dart__registry_t *r, dart__registry_fn fn,
                                      void *ctx);

#endif /* DART__TYPES_REGISTRY_H */
