/*
 * Non-collective global memory: the dart_memalloc pool (segment 0 of
 * DART_TEAM_ALL) and dart_allocator_t pools, both carved by a buddy
 * allocator out of one collectively allocated segment, and the process-wide
 * init/fini of the global-memory module.
 */
#include <pthread.h>
#include <stdlib.h>

#include "globmem/buddy.h"
#include "globmem/globmem_internal.h"

/* A buddy allocator over one segment, locked only under
 * DART_THREAD_MULTIPLE. */
typedef struct {
  dart__buddy_t *buddy;
  pthread_mutex_t mutex;
} locked_buddy_t;

static int lb_alloc(locked_buddy_t *lb, size_t bytes, uint64_t *off)
{
  if (dart__g.multithreaded) pthread_mutex_lock(&lb->mutex);
  int rc = dart__buddy_alloc(lb->buddy, bytes, off);
  if (dart__g.multithreaded) pthread_mutex_unlock(&lb->mutex);
  return rc;
}

static int lb_free(locked_buddy_t *lb, uint64_t off)
{
  if (dart__g.multithreaded) pthread_mutex_lock(&lb->mutex);
  int rc = dart__buddy_free(lb->buddy, off);
  if (dart__g.multithreaded) pthread_mutex_unlock(&lb->mutex);
  return rc;
}

/* Pool size rounded up to a power of two >= the minimum block; 0 if too
 * large. */
static size_t pool_bytes(size_t requested)
{
  size_t p = dart__buddy_round_pow2(requested);
  if (p == 0 || p > (size_t)PTRDIFF_MAX) return 0;
  return p < DART__BUDDY_MIN_BLOCK ? DART__BUDDY_MIN_BLOCK : p;
}

/* ---- dart_memalloc pool ------------------------------------------------ */

static dart__segment_t *pool_seg;
static locked_buddy_t pool;

dart_ret_t dart__globmem_init(void)
{
  dart_ret_t ret = dart__window_hints_init();
  if (ret != DART_OK) return ret;
  dart__team_t *all = dart__team_get(DART_TEAM_ALL);
  size_t bytes = pool_bytes(dart__env.local_pool_size);
  dart_ret_t status = DART_OK;
  if (bytes == 0) {
    DART_LOG_ERROR("DART_LOCAL_POOL_SIZE=%zu is too large",
                   dart__env.local_pool_size);
    status = DART_ERR_INVAL;
  } else if ((pool.buddy = dart__buddy_create(bytes)) == NULL) {
    DART_LOG_ERROR("out of memory for the local pool allocator");
    status = DART_ERR_NOMEM;
  }
  pthread_mutex_init(&pool.mutex, NULL);
  ret = dart__segment_create(__func__, all, DART__SEG_POOL, bytes, NULL, status,
                             &pool_seg);
  if (ret != DART_OK) {
    dart__buddy_destroy(pool.buddy);
    pool.buddy = NULL;
    return ret;
  }
  /* The first block of every pool is DART's: offset 0 holds the lock word
   * of emulated atomics on this unit's memory (see dart_segment.h). */
  uint64_t off = 1;
  if (dart__buddy_alloc(pool.buddy, 64, &off) != 0 ||
      off != DART__POOL_LOCK_OFFSET) {
    DART_LOG_ERROR("cannot reserve DART's block in the local pool");
    return DART_ERR_OTHER;
  }
  __atomic_store_n((int64_t *)(void *)(pool_seg->base + off), 0,
                   __ATOMIC_SEQ_CST);
  DART__MPI(MPI_Barrier(all->comm)); /* zeroed before anybody locks it */
  DART_LOG_DEBUG("local pool: %zu bytes per unit", bytes);
  return DART_OK;
}

void dart__globmem_fini(void)
{
  if (pool_seg != NULL) dart__segment_destroy(pool_seg);
  pool_seg = NULL;
  dart__buddy_destroy(pool.buddy);
  pool.buddy = NULL;
  pthread_mutex_destroy(&pool.mutex);
  dart__window_hints_fini();
}

dart_ret_t dart_memalloc(size_t nelem, dart_datatype_t dtype, dart_gptr_t *gptr)
{
  DART__CHECK_NOTNULL(gptr);
  *gptr = DART_GPTR_NULL;
  DART__CHECK_INIT();
  size_t bytes;
  dart_ret_t ret = dart__globmem_bytes(__func__, nelem, dtype, false, &bytes);
  if (ret != DART_OK) return ret;
  uint64_t off;
  if (pool_seg == NULL || lb_alloc(&pool, bytes, &off) != 0) {
    DART_LOG_ERROR("local pool exhausted: no free block of %zu bytes in the "
                   "%zu-byte pool (raise DART_LOCAL_POOL_SIZE)",
                   bytes, pool.buddy ? dart__buddy_pool_size(pool.buddy) : 0);
    return DART_ERR_OTHER;
  }
  gptr->unitid = dart__g.myid;
  gptr->flags = 0;
  gptr->segid = 0;
  gptr->teamid = DART_TEAM_ALL;
  gptr->addr_or_offs.offset = off;
  return DART_OK;
}

dart_ret_t dart_memfree(dart_gptr_t gptr)
{
  if (DART_GPTR_ISNULL(gptr)) return DART_OK;
  DART__CHECK_INIT();
  DART__CHECK_ARG(gptr.segid == 0 && gptr.teamid == DART_TEAM_ALL,
                  "global pointer (team %d, segment %d) was not allocated by "
                  "dart_memalloc",
                  gptr.teamid, gptr.segid);
  DART__CHECK_ARG(gptr.unitid == dart__g.myid,
                  "unit %d cannot free memory of unit %d", dart__g.myid,
                  (int)gptr.unitid);
  DART__CHECK_ARG(pool_seg != NULL &&
                      lb_free(&pool, gptr.addr_or_offs.offset) == 0,
                  "no live dart_memalloc block at offset %llu (double free?)",
                  (unsigned long long)gptr.addr_or_offs.offset);
  return DART_OK;
}

/* ---- dart_allocator_t -------------------------------------------------- */

struct dart_allocator_struct {
  dart_team_t teamid;
  int16_t segid;
  size_t pool_size;
  locked_buddy_t lb;
};

/* The allocator's segment if it still exists, else logs and NULL. */
static dart__segment_t *allocator_segment(const char *func,
                                          struct dart_allocator_struct *a)
{
  dart__segment_t *seg = dart__segment_get(a->teamid, a->segid);
  if (seg == NULL || seg->kind != DART__SEG_ALLOCATOR || seg->owner != a) {
    dart__log(DART__LOG_ERROR, func,
              "allocator %p is not valid (destroyed, or its team %d is gone)",
              (void *)a, a->teamid);
    return NULL;
  }
  return seg;
}

dart_ret_t dart_allocator_new(size_t pool_size, dart_team_t teamid,
                              dart_allocator_t *new_allocator)
{
  if (new_allocator != NULL) *new_allocator = NULL;
  DART__TEAM_OR_RETURN(team, teamid);
  dart_ret_t status = DART_OK;
  size_t bytes = pool_bytes(pool_size);
  struct dart_allocator_struct *a = calloc(1, sizeof *a);
  if (new_allocator == NULL) {
    DART_LOG_ERROR("argument 'new_allocator' is NULL");
    status = DART_ERR_INVAL;
  } else if (bytes == 0) {
    DART_LOG_ERROR("pool size %zu is too large", pool_size);
    status = DART_ERR_INVAL;
  } else if (a == NULL || (a->lb.buddy = dart__buddy_create(bytes)) == NULL) {
    DART_LOG_ERROR("out of memory");
    status = DART_ERR_NOMEM;
  }
  dart__segment_t *seg = NULL;
  dart_ret_t ret = dart__segment_create(__func__, team, DART__SEG_ALLOCATOR,
                                        bytes, NULL, status, &seg);
  if (ret != DART_OK) {
    if (a != NULL) dart__buddy_destroy(a->lb.buddy);
    free(a);
    return ret;
  }
  seg->owner = a;
  a->teamid = teamid;
  a->segid = seg->segid;
  a->pool_size = bytes;
  pthread_mutex_init(&a->lb.mutex, NULL);
  *new_allocator = a;
  return DART_OK;
}

dart_ret_t dart_allocator_alloc(size_t nelem, dart_datatype_t dtype,
                                dart_gptr_t *gptr, dart_allocator_t allocator)
{
  DART__CHECK_NOTNULL(gptr);
  *gptr = DART_GPTR_NULL;
  DART__CHECK_NOTNULL(allocator);
  dart__segment_t *seg = allocator_segment(__func__, allocator);
  if (seg == NULL) return DART_ERR_INVAL;
  size_t bytes;
  dart_ret_t ret = dart__globmem_bytes(__func__, nelem, dtype, false, &bytes);
  if (ret != DART_OK) return ret;
  uint64_t off;
  if (lb_alloc(&allocator->lb, bytes, &off) != 0) {
    DART_LOG_ERROR("allocator pool exhausted: no free block of %zu bytes in "
                   "the %zu-byte pool",
                   bytes, allocator->pool_size);
    return DART_ERR_NOMEM;
  }
  gptr->unitid = seg->team->myid;
  gptr->flags = 0;
  gptr->segid = seg->segid;
  gptr->teamid = seg->team->id;
  gptr->addr_or_offs.offset = off;
  return DART_OK;
}

dart_ret_t dart_allocator_free(dart_gptr_t *gptr, dart_allocator_t allocator)
{
  DART__CHECK_NOTNULL(gptr);
  DART__CHECK_NOTNULL(allocator);
  if (DART_GPTR_ISNULL((*gptr))) return DART_OK;
  dart__segment_t *seg = allocator_segment(__func__, allocator);
  if (seg == NULL) return DART_ERR_INVAL;
  DART__CHECK_ARG(gptr->teamid == seg->team->id && gptr->segid == seg->segid,
                  "global pointer (team %d, segment %d) does not belong to "
                  "this allocator (team %d, segment %d)",
                  gptr->teamid, gptr->segid, seg->team->id, seg->segid);
  DART__CHECK_ARG(gptr->unitid == seg->team->myid,
                  "unit %d cannot free a block of unit %d", seg->team->myid,
                  (int)gptr->unitid);
  DART__CHECK_ARG(lb_free(&allocator->lb, gptr->addr_or_offs.offset) == 0,
                  "no live block at offset %llu (double free?)",
                  (unsigned long long)gptr->addr_or_offs.offset);
  *gptr = DART_GPTR_NULL;
  return DART_OK;
}

dart_ret_t dart_allocator_destroy(dart_allocator_t *allocator)
{
  DART__CHECK_NOTNULL(allocator);
  DART__CHECK_NOTNULL(*allocator);
  struct dart_allocator_struct *a = *allocator;
  dart__segment_t *seg = allocator_segment(__func__, a);
  dart_ret_t ret = (seg != NULL) ? dart__segment_destroy(seg) : DART_ERR_INVAL;
  dart__buddy_destroy(a->lb.buddy);
  pthread_mutex_destroy(&a->lb.mutex);
  free(a);
  *allocator = NULL;
  return ret;
}
