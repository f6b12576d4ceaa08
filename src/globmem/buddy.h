/*
 * Internal: binary buddy allocator over an abstract range of offsets.
 *
 * The allocator never touches the memory it manages: it hands out byte
 * offsets into a pool of 2^k bytes and keeps all bookkeeping out of band,
 * so the pool may be remotely accessible memory that is only backed by
 * physical pages once used. MPI-free and not thread-safe (callers lock).
 */
#ifndef DART__GLOBMEM_BUDDY_H
#define DART__GLOBMEM_BUDDY_H

#include <stddef.h>
#include <stdint.h>

#include "dart_log.h"

typedef struct dart__buddy dart__buddy_t;

/* Smallest block handed out: 16 bytes keeps every block max_align_t-aligned
 * relative to the pool base. */
#define DART__BUDDY_MIN_BLOCK ((size_t)16)

/* Rounds n up to a power of two (n <= 1 gives 1; 0 if it would overflow). */
DART__HIDDEN size_t dart__buddy_round_pow2(size_t n);

/*
 * Creates an allocator for a pool of pool_size bytes. pool_size must be a
 * power of two >= DART__BUDDY_MIN_BLOCK. Returns NULL on bad size or OOM.
 */
DART__HIDDEN dart__buddy_t *dart__buddy_create(size_t pool_size);
DART__HIDDEN void dart__buddy_destroy(dart__buddy_t *b);

/*
 * Reserves a block of at least size bytes (size 0 is served as the minimum
 * block). Returns 0 and stores the block's offset, or -1 when no free block
 * is large enough (or bookkeeping memory ran out). O(log pool_size).
 */
DART__HIDDEN int dart__buddy_alloc(dart__buddy_t *b, size_t size,
                                   uint64_t *offset);

/*
 * Returns the block starting at offset. Returns 0, or -1 if no block is
 * allocated at that offset (never allocated, already freed, interior
 * offset). Merges free buddies eagerly. O(log pool_size).
 */
DART__HIDDEN int dart__buddy_free(dart__buddy_t *b, uint64_t offset);

/* Size of the allocated block at offset, 0 if none is allocated there. */
DART__HIDDEN size_t dart__buddy_block_size(const dart__buddy_t *b,
                                           uint64_t offset);

DART__HIDDEN size_t dart__buddy_pool_size(const dart__buddy_t *b);
/* Number of currently allocated blocks. */
DART__HIDDEN size_t dart__buddy_live_blocks(const dart__buddy_t *b);

#endif /* DART__GLOBMEM_BUDDY_H */
