/*
 * Non-collective global memory: the dart_memalloc pool (segment 0 of
 * DART_TEAM_ALL) and dart_allocator_t pools, both carved by a buddy
 * allocator out of one collectively allocated segment, and the process-wide
 * init/fini of the global-memory module.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "globmem/buddy.h"
#include "globmem/globmem_internal.h"
#include "transport/probe.h"
#include "transport/progress.h"
#include "transport/transport.h"
#include "transport/wait.h"

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

/*
 * DART's page in front of every pool portion, reached by node peers by
 * load/store and by everybody through MPI:
 *   bytes 0-7     the lock word of emulated atomics (transport/atomic.c)
 *   bytes 8-11    the committed size of the growth segment, in pages
 *   bytes 16-23   the growth segment's MPI address (its displacement)
 *   bytes 32-63   unit 0's page only: the arrival counts and generations
 *                 of DART_TEAM_ALL's shared-memory barrier (32-47) and
 *                 data collectives (48-63), coll/shm.c
 *                 (dart__pool_sync_words)
 *   bytes 64-     the accumulate gate and the announcement slots of node
 *                 peers (transport/cpu_gate.h), cache-line aligned
 * and, in front of that page, nineteen more: the unit's area of
 * DART_TEAM_ALL's shared-memory allreduce, allgather and bcast (coll/shm.c,
 * DART__COLL_SHM_ROOM bytes at most; dart__pool_coll_slots).
 */
#define POOL_PAGE ((size_t)4096)       /* DART's page, described above */
#define POOL_RESERVED (20 * POOL_PAGE) /* all twenty pages, hidden */

static dart__segment_t *pool_seg;
static locked_buddy_t pool;

/* Moves seg's view n bytes forward: the first n bytes of every portion
 * are then out of reach of global pointers. */
static void hide_prefix(dart__segment_t *seg, size_t n)
{
  seg->base_off += n; /* every mapped base */
  for (int u = 0; seg->disp_pads != NULL && u < seg->nunits; u++)
    seg->disp_pads[u] += (MPI_Aint)n;
  seg->disp_pad += (MPI_Aint)n;
  seg->base += n;
  if (seg->own_base != NULL) seg->own_base += n;
  seg->size -= n;
  seg->sym_size -= n;
  if (seg->odd_unit1 != 0) seg->odd_size -= n;
}

/*
 * Growth of the pool, without any collective call: at dart_init every unit
 * reserves address space (GROW_RESERVE bytes, or less if the system
 * refuses) and the units exchange its address; it is segment
 * DART__SEG_POOL_GROWTH of DART_TEAM_ALL, reached through the team's
 * dynamic window. The reservation is PROT_NONE: no page of it is usable
 * and none counts against the system's commit limit. When the pool proper
 * is exhausted, dart_memalloc carves blocks from the reservation with a
 * buddy allocator of its own and commits (mprotect to read/write, which
 * the kernel charges like malloc and refuses like malloc) and attaches
 * (MPI_Win_attach, local) the part in use, doubling it each time: a few
 * system calls and attachments in all (Open MPI allows 32 per window).
 * Node peers reach growth memory through MPI, not load/store.
 *
 * One page past the reservation (the sentinel) is committed and attached
 * first, so every piece attached later lies below an attached region:
 * osc/ucx (Open MPI 4.1.4) files memory attached above every attached
 * region one slot past its table's count and leaves an empty slot inside
 * it, whose zeroed remote key a later MPI_Get on the window unpacks
 * (SIGSEGV or a UCX assertion in uct_posix_rkey_unpack; transport/probe.c
 * has the component's other attach bugs). One path for every MPI: the
 * sentinel costs one page and one attachment.
 *
 * Every unit's committed size bounds what global pointers reach of its
 * growth portion: the caller's own is exact (seg->lazy_end), others' are
 * what the caller last learnt. Nothing about the growth of peers is kept
 * per unit (issue 23): each unit publishes its committed size (in pages)
 * and the address of its reservation (its displacement in the dynamic
 * window) in its pool page; a unit reads both on its first access to a
 * peer's growth, and again when an access falls beyond what it knows,
 * into the process-wide displacement cache of registrations (regdir.c),
 * whose entries carry a bound (dart__pool_grow_fetch). A unit alone keeps
 * its committed size as the segment's one-entry sizes array.
 */
#define GROW_RESERVE ((size_t)1 << 40)
#define GROW_PIECES 48
#define GROW_PAGE ((size_t)4096)
/* The published committed size (uint32_t, pages) and address (MPI_Aint)
 * in the pool page. */
#define GROW_PUBLISHED_AT 8
#define GROW_ADDRESS_AT 16
#define SYNC_WORDS_AT 32 /* dart__pool_sync_words */

static dart__segment_t *grow_seg;
static locked_buddy_t grow;
static size_t grow_attached;          /* bytes committed from the start */
static char *grow_piece[GROW_PIECES]; /* attached pieces (for detach) */
static int grow_npieces;
static char *grow_sentinel; /* the page past the reservation, attached */

/* Reserves at most GROW_RESERVE bytes (at least 2 * bytes), and the
 * sentinel page past them; 0 if not. Without MAP_NORESERVE, so that the
 * parts made writable are charged. */
static size_t grow_reserve(size_t bytes, char **base)
{
  for (size_t r = GROW_RESERVE; r >= 2 * bytes; r >>= 1) {
    void *p = mmap(NULL, r + GROW_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p != MAP_FAILED) {
      *base = p;
      return r;
    }
  }
  return 0;
}

/* Commits and attaches the sentinel page at p (see above). */
static dart_ret_t grow_attach_sentinel(MPI_Win win, char *p)
{
  if (mprotect(p, GROW_PAGE, PROT_READ | PROT_WRITE) != 0) {
    DART_LOG_ERROR("dart_init: cannot commit the growth sentinel page");
    return DART_ERR_NOMEM;
  }
  int rc = MPI_Win_attach(win, p, (MPI_Aint)GROW_PAGE);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error("dart_init", "MPI_Win_attach", rc);
    return DART_ERR_OTHER;
  }
  grow_sentinel = p;
  return DART_OK;
}

/* The growth segment over size bytes at base (collective over team ALL). */
static dart_ret_t grow_segment(dart__team_t *all, char *base, size_t size)
{
  dart__segment_t *g = dart__segment_record(all, DART__SEG_POOL, size);
  if (g == NULL) return DART_ERR_NOMEM;
  grow_seg = g;
  g->segid = DART__SEG_POOL_GROWTH;
  g->base = base;
  /* Mapped bases: only the caller's, and only without a window. */
  if (dart__segment_own_bases(g) != DART_OK) return DART_ERR_NOMEM;
  if (all->size == 1) { /* no window: load/store and CPU atomics */
    g->own_bases[0] = base;
    /* nothing committed yet */
    if ((g->sizes = calloc(1, sizeof *g->sizes)) == NULL) return DART_ERR_NOMEM;
    dart__segment_set_atomics(g);
  } else {
    /* Agreed: every unit has the same budget this early. */
    dart_ret_t ret = dart__heap_dynamic(
        "dart_init", all, dart__mpi_objects_left(), &g->win, &g->osc);
    if (ret != DART_OK) return ret;
    g->own_base = base;
    if (grow_attach_sentinel(g->win, base + size) != DART_OK)
      return DART_ERR_OTHER;
    DART__MPI(MPI_Get_address(base, &g->disp_pad));
    /* Published before dart_init's closing barrier; peers fetch it. */
    *(MPI_Aint *)(void *)(pool_seg->base - POOL_PAGE + GROW_ADDRESS_AT) =
        g->disp_pad;
    g->disp_serial = dart__regdir_serial();
    g->lazy_end = 0;
  }
  dart__segtable_publish(all->segs, g->segid, g);
  return DART_OK;
}

static dart_ret_t grow_init(dart__team_t *all, size_t bytes)
{
  char *base = NULL;
  unsigned long long r = grow_reserve(bytes, &base), rmin = r;
  DART__MPI(dart__mpi_allreduce(&r, &rmin, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN,
                                all->comm));
  if (rmin == 0) {
    if (base != NULL) munmap(base, r + GROW_PAGE);
    DART_LOG_WARN("no address space to grow the local pool beyond %zu bytes",
                  bytes);
    return DART_OK;
  }
  grow.buddy = dart__buddy_create((size_t)rmin);
  pthread_mutex_init(&grow.mutex, NULL);
  dart_ret_t ret = grow.buddy != NULL ? grow_segment(all, base, (size_t)rmin)
                                      : DART_ERR_NOMEM;
  if (ret != DART_OK)
    DART_LOG_ERROR("cannot set up the growth of the local pool");
  return ret;
}

/* Where unit u's published committed size is, if the caller maps it. */
static uint32_t *grow_published(int u)
{
  char *b =
      u == dart__g.myid ? pool_seg->base : dart__segment_mapped(pool_seg, u);
  return b != NULL ? (uint32_t *)(void *)(b - POOL_PAGE + GROW_PUBLISHED_AT)
                   : NULL;
}

/* Pieces the growth may attach: never past the MPI's known limit per
 * dynamic window (osc/ucx: its 33rd attach, or a detach after it, kills
 * the process; transport/probe.c). Where registrations share the window
 * of DART_TEAM_ALL with it (window.c), the growth takes half: doubling
 * from the pool size, 16 pieces reach far beyond any memory. */
int dart__pool_grow_pieces_max(void)
{
  int limit = dart__caps.attach_limit;
  if (limit > 0 && dart__caps.register_limited) limit /= 2;
  if (limit > 0) limit--; /* the sentinel's */
  return limit > 0 && limit < GROW_PIECES ? limit : GROW_PIECES;
}

/* Makes [grow_attached, next) usable: committed, then attached. 0 or -1
 * (nothing changed then). */
static int grow_commit(size_t next)
{
  char *p = grow_seg->base + grow_attached;
  size_t n = next - grow_attached;
  if (mprotect(p, n, PROT_READ | PROT_WRITE) != 0) return -1;
  if (grow_seg->win != MPI_WIN_NULL) {
    bool full = grow_npieces == dart__pool_grow_pieces_max();
    int rc =
        full ? MPI_ERR_OTHER : MPI_Win_attach(grow_seg->win, p, (MPI_Aint)n);
    if (rc != MPI_SUCCESS) {
      if (!full) dart__mpi_log_error("dart_memalloc", "MPI_Win_attach", rc);
      mprotect(p, n, PROT_NONE);
      return -1;
    }
    grow_piece[grow_npieces++] = p;
  }
  return 0;
}

/* Commits the reservation up to at least end (caller holds grow.mutex):
 * twice what is committed if the system grants it, else just to end. */
static int grow_attach(size_t end)
{
  size_t pool_bytes_ = dart__buddy_pool_size(pool.buddy);
  size_t next = grow_attached == 0 ? pool_bytes_ : 2 * grow_attached;
  end = (end + GROW_PAGE - 1) & ~(GROW_PAGE - 1);
  if (next < end) next = end;
  if (next > grow_seg->sym_size) next = grow_seg->sym_size;
  /* Node peers too reach growth memory through MPI only. */
  if (grow_seg->win != MPI_WIN_NULL)
    dart__progress_require("dart_memalloc pool growth");
  if (grow_commit(next) != 0) {
    if (next == end || grow_commit(end) != 0) return -1;
    next = end;
  }
  DART_LOG_DEBUG("local pool grown by %zu bytes", next - grow_attached);
  grow_attached = next;
  if (grow_seg->sizes != NULL) /* alone */
    __atomic_store_n(&grow_seg->sizes[0], next, __ATOMIC_RELEASE);
  else
    __atomic_store_n(&grow_seg->lazy_end, (uint64_t)next, __ATOMIC_RELEASE);
  uint32_t *w = grow_published(dart__g.myid);
  if (w != NULL)
    __atomic_store_n(w, (uint32_t)(next / GROW_PAGE), __ATOMIC_RELEASE);
  return 0;
}

/* Why grow_alloc failed. */
enum { GROW_NO_BLOCK = -1, GROW_NO_MEMORY = -2 };

/* A block of the growth area: 0, GROW_NO_BLOCK (no free block that
 * large) or GROW_NO_MEMORY (the system refuses to commit it). */
static int grow_alloc(size_t bytes, uint64_t *off)
{
  if (grow_seg == NULL || bytes > grow_seg->sym_size) return GROW_NO_BLOCK;
  if (dart__g.multithreaded) pthread_mutex_lock(&grow.mutex);
  int rc = dart__buddy_alloc(grow.buddy, bytes, off) == 0 ? 0 : GROW_NO_BLOCK;
  if (rc == 0) {
    size_t end = *off + dart__buddy_block_size(grow.buddy, *off);
    if (end > grow_attached && grow_attach(end) != 0) {
      dart__buddy_free(grow.buddy, *off);
      rc = GROW_NO_MEMORY;
    }
  }
  if (dart__g.multithreaded) pthread_mutex_unlock(&grow.mutex);
  return rc;
}

dart_ret_t dart__pool_grow_fetch(const char *func, int u, MPI_Aint *disp)
{
  dart__segment_t *g = grow_seg;
  if (g == NULL || g->disp_serial == 0 || u < 0 || u >= g->nunits ||
      u == dart__g.myid)
    return DART_ERR_OTHER;
  uint32_t pages = 0;
  MPI_Aint addr = 0;
  uint32_t *w = grow_published(u);
  dart_ret_t ret = DART_OK;
  if (w != NULL) { /* a node peer's page: loads */
    pages = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    addr =
        *(const MPI_Aint *)(const void *)((const char *)w - GROW_PUBLISHED_AT +
                                          GROW_ADDRESS_AT);
  } else {
    MPI_Aint page = dart__segment_disp(pool_seg, u, 0) - (MPI_Aint)POOL_PAGE;
    ret = dart__mpi_get_word(func, pool_seg->win, u, page + GROW_PUBLISHED_AT,
                             &pages, MPI_UINT32_T);
    if (ret == DART_OK)
      ret = dart__mpi_get_word(func, pool_seg->win, u, page + GROW_ADDRESS_AT,
                               &addr, MPI_AINT);
  }
  if (ret != DART_OK) {
    dart__log(DART__LOG_ERROR, func,
              "cannot read the dart_memalloc growth of unit %d", u);
    return DART_ERR_OTHER;
  }
  dart__dispcache_put(g->disp_serial, u, addr, (uint64_t)pages * GROW_PAGE);
  *disp = addr;
  return DART_OK;
}

/* Whether the system would commit bytes more right now (asked the way
 * malloc asks; only after a failed allocation). */
static bool system_could_commit(size_t bytes)
{
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  munmap(p, bytes);
  return true;
}

static void grow_fini(void)
{
  if (grow_seg != NULL) {
    for (int i = grow_npieces - 1; i >= 0; i--)
      DART__MPI_LOG(MPI_Win_detach(grow_seg->win, grow_piece[i]));
    if (grow_sentinel != NULL)
      DART__MPI_LOG(MPI_Win_detach(grow_seg->win, grow_sentinel));
    dart__segtable_release(grow_seg->team->segs, grow_seg->segid);
    munmap(grow_seg->base, grow_seg->sym_size + GROW_PAGE);
    grow_seg->win = MPI_WIN_NULL; /* the team's dynamic window */
    dart__segment_dispose("dart_exit", grow_seg);
  }
  grow_seg = NULL;
  grow_sentinel = NULL;
  grow_npieces = 0;
  grow_attached = 0;
  dart__buddy_destroy(grow.buddy);
  grow.buddy = NULL;
}

/* Unit 0's count and generation words of DART_TEAM_ALL's barrier and
 * data collectives (coll/shm.c), where every unit maps unit 0's page:
 * DART_TEAM_ALL on one node with its pool in a shared window. */
uint64_t *dart__pool_sync_words(void)
{
  const dart__segment_t *s = pool_seg;
  if (s == NULL || !s->team->single_node || s->nunits < 2) return NULL;
  char *b = dart__g.myid == 0 ? s->base : dart__segment_mapped(s, 0);
  return b != NULL ? (uint64_t *)(void *)(b - POOL_PAGE + SYNC_WORDS_AT) : NULL;
}

/* Where units 0..n-1 keep their collective slots (see POOL_PAGE), as
 * this unit maps them, and how many bytes each unit has there: false if it
 * does not map every one. */
bool dart__pool_coll_slots(char **slots, int n, size_t *bytes)
{
  const dart__segment_t *s = pool_seg;
  *bytes = POOL_RESERVED - POOL_PAGE;
  if (s == NULL || !s->team->single_node || s->nunits != n) return false;
  for (int u = 0; u < n; u++) {
    char *b = u == dart__g.myid ? s->base : dart__segment_mapped(s, u);
    if (b == NULL) return false;
    slots[u] = b - POOL_RESERVED;
  }
  return true;
}

/* The lock word of emulated atomics on global unit g's memory: in DART's
 * page in front of g's portion of the pool (dart__atomic_set_lock_words). */
static bool lock_word(int g, dart__rma_target_t *t)
{
  const dart__segment_t *s = pool_seg;
  if (s == NULL || g < 0 || g >= s->nunits) return false;
  dart__segment_rma_win(s, t);
  t->unit = g;
  t->disp = dart__segment_disp(s, g, 0) - (MPI_Aint)POOL_PAGE;
  char *b = dart__segment_mapped(s, g);
  t->local = b != NULL ? b - POOL_PAGE : NULL;
  return true;
}

/* The accumulate gates in the same page (dart__cpu_gate_set): the
 * caller's portion and each node peer's as mapped. */
static dart_ret_t gate_set(const dart__segment_t *s)
{
  const dart__team_t *team = s->team;
  char **peer = calloc((size_t)team->node_size, sizeof *peer);
  if (peer == NULL) {
    DART_LOG_ERROR("out of memory for the accumulate gates");
    return DART_ERR_NOMEM;
  }
  for (int r = 0; r < team->node_size; r++)
    peer[r] = s->node_base[r] != NULL ? s->node_base[r] + s->base_off : NULL;
  dart_ret_t ret = dart__cpu_gate_set(team, s->base, peer, POOL_PAGE);
  free(peer);
  return ret;
}

dart_ret_t dart__globmem_init(void)
{
  dart__rma_set_finder(dart__segment_rma_find);
  dart_ret_t ret = dart__window_hints_init();
  if (ret != DART_OK) return ret;
  dart__team_t *all = dart__team_get(DART_TEAM_ALL);
  size_t bytes = pool_bytes(dart__env.local_pool_size);
  dart_ret_t status = DART_OK;
  if (bytes == 0 || bytes > (size_t)PTRDIFF_MAX / 4) {
    DART_LOG_ERROR("DART_LOCAL_POOL_SIZE=%zu is too large",
                   dart__env.local_pool_size);
    status = DART_ERR_INVAL;
  } else if ((pool.buddy = dart__buddy_create(bytes)) == NULL) {
    DART_LOG_ERROR("out of memory for the local pool allocator");
    status = DART_ERR_NOMEM;
  }
  pthread_mutex_init(&pool.mutex, NULL);
  ret = dart__segment_create("dart_init", all, DART__SEG_POOL,
                             bytes + POOL_RESERVED, NULL, status, &pool_seg);
  if (ret != DART_OK) {
    dart__buddy_destroy(pool.buddy);
    pool.buddy = NULL;
    return ret;
  }
  hide_prefix(pool_seg, POOL_RESERVED);
  /* The lock word of emulated atomics on this unit's memory. */
  __atomic_store_n((int64_t *)(void *)(pool_seg->base - POOL_PAGE), 0,
                   __ATOMIC_SEQ_CST);
  __atomic_store_n(grow_published(dart__g.myid), 0, __ATOMIC_RELAXED);
  if (dart__g.myid == 0) { /* dart_barrier's words, in unit 0's page only */
    uint64_t *sync =
        (uint64_t *)(void *)(pool_seg->base - POOL_PAGE + SYNC_WORDS_AT);
    for (int i = 0; i < 4; i++) __atomic_store_n(&sync[i], 0, __ATOMIC_RELAXED);
  }
  dart__atomic_set_lock_words(lock_word);
  ret = gate_set(pool_seg);
  if (ret != DART_OK) return ret;
  ret = grow_init(all, bytes);
  if (ret != DART_OK) return ret;
  /* zeroed before anybody locks it or takes its gate */
  DART__WATCH("dart_init", "MPI_Barrier (local pool)", (int)all->id, 0,
              DART__WATCH_NONE, -1);
  ret = dart__watch_end_mpi("dart_init", "MPI_Barrier", MPI_Barrier(all->comm));
  if (ret == DART_OK) DART_LOG_DEBUG("local pool: %zu bytes per unit", bytes);
  return ret;
}

void dart__globmem_fini(void)
{
  grow_fini();
  dart__atomic_set_lock_words(NULL);
  dart__cpu_gate_set(NULL, NULL, NULL, 0);
  if (pool_seg != NULL) dart__segment_destroy("dart_exit", pool_seg);
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
  int16_t segid = 0;
  if (pool_seg == NULL || lb_alloc(&pool, bytes, &off) != 0) {
    segid = DART__SEG_POOL_GROWTH;
    int rc = grow_alloc(bytes, &off);
    /* Within the reservation but no free block: the system decides
     * whether this is a lack of memory or of address space. Past the
     * reservation, the pool is exhausted (DART_ERR_OTHER, as specified). */
    if (rc == GROW_NO_BLOCK && grow_seg != NULL &&
        bytes <= grow_seg->sym_size && !system_could_commit(bytes))
      rc = GROW_NO_MEMORY;
    if (rc == GROW_NO_MEMORY) {
      DART_LOG_ERROR("out of memory: the system cannot provide %zu bytes",
                     bytes);
      return DART_ERR_NOMEM;
    }
    if (rc != 0) {
      DART_LOG_ERROR("local pool exhausted: no free block of %zu bytes in "
                     "the %zu-byte pool nor in its growth area",
                     bytes, pool.buddy ? dart__buddy_pool_size(pool.buddy) : 0);
      return DART_ERR_OTHER;
    }
  }
  gptr->unitid = dart__g.myid;
  gptr->flags = 0;
  gptr->segid = segid;
  gptr->teamid = DART_TEAM_ALL;
  gptr->addr_or_offs.offset = off;
  return DART_OK;
}

static int pool_free(int16_t segid, uint64_t off)
{
  if (segid == 0) return pool_seg != NULL ? lb_free(&pool, off) : -1;
  return grow_seg != NULL ? lb_free(&grow, off) : -1;
}

dart_ret_t dart_memfree(dart_gptr_t gptr)
{
  if (DART_GPTR_ISNULL(gptr)) return DART_OK;
  DART__CHECK_INIT();
  DART__CHECK_ARG((gptr.segid == 0 || gptr.segid == DART__SEG_POOL_GROWTH) &&
                      gptr.teamid == DART_TEAM_ALL,
                  "global pointer (team %d, segment %d) was not allocated by "
                  "dart_memalloc",
                  gptr.teamid, gptr.segid);
  DART__CHECK_ARG(gptr.unitid == dart__g.myid,
                  "unit %d cannot free memory of unit %d", dart__g.myid,
                  (int)gptr.unitid);
  DART__CHECK_ARG(pool_free(gptr.segid, gptr.addr_or_offs.offset) == 0,
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
  dart_ret_t ret =
      (seg != NULL) ? dart__segment_release(__func__, seg) : DART_ERR_INVAL;
  dart__buddy_destroy(a->lb.buddy);
  pthread_mutex_destroy(&a->lb.mutex);
  free(a);
  *allocator = NULL;
  return ret;
}
