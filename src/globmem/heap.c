/*
 * Team heaps: collective allocations carved out of a few large windows.
 *
 * Every team has a heap: a list of chunks, each one set of windows made by
 * the window scheme of window.c (shared window on a node, RMA window over
 * the team) and a buddy allocator over the chunk's portion. A collective
 * allocation whose largest per-unit size is at most DART__HEAP_MAX_BLOCK
 * takes the lowest fitting block of the lowest chunk that has one; only
 * when no chunk fits do the units create a new chunk (collectively, twice
 * the size of the last one, up to DART__HEAP_CHUNK_MAX). Larger
 * allocations keep windows of their own (window.c).
 *
 * No communication is needed to agree on offsets: every unit applies the
 * same allocations (sizes agreed by the allgather of dart__segment_create)
 * and the same frees to identical allocators, and the buddy allocator's
 * choice depends only on the set of live blocks (buddy.c), so frees may
 * even come in different orders on different units. A free is local: no
 * window call at all.
 *
 * The segment of a carved allocation shares the chunk's windows: win is
 * the chunk's RMA window, every displacement and mapped base is the
 * chunk's plus the block offset (the record points at the chunk's array of
 * mapped bases: its size does not depend on the team's). The resolver
 * sees an ordinary segment.
 */
#include <stdlib.h>

#include "globmem/buddy.h"
#include "globmem/globmem_internal.h"
#include "transport/transport.h"

typedef struct dart__heap_chunk {
  dart__segment_t *seg; /* windows and bases (not in the segment table) */
  dart__buddy_t *buddy;
  size_t size; /* portion size of every unit                  */
} chunk_t;

struct dart__heap {
  chunk_t *chunks;
  int nchunks, cap;
  dart__segment_t *dyn; /* the team's dynamic window, or NULL         */
};

static int heap_windows; /* windows held by the chunks of all teams */

int dart__globmem_heap_windows(void)
{
  return __atomic_load_n(&heap_windows, __ATOMIC_RELAXED);
}

static int windows_of(const dart__segment_t *s)
{
  return (s->win != MPI_WIN_NULL) + (s->shm_win != MPI_WIN_NULL);
}

/* Bytes asked from the heap for an allocation: at least a cache line, so
 * that two allocations never share one. */
static size_t block_bytes(size_t size)
{
  return size < DART__HEAP_MIN_BLOCK ? DART__HEAP_MIN_BLOCK : size;
}

bool dart__heap_takes(size_t max_size)
{
  return max_size <= DART__HEAP_MAX_BLOCK;
}

/* Size of the next chunk: double the last (the first is
 * DART__HEAP_CHUNK_MIN), capped, and large enough for the block. */
static size_t next_chunk_size(const struct dart__heap *h, size_t block)
{
  size_t sz = DART__HEAP_CHUNK_MIN;
  if (h->nchunks > 0) sz = 2 * h->chunks[h->nchunks - 1].size;
  if (sz > DART__HEAP_CHUNK_MAX) sz = DART__HEAP_CHUNK_MAX;
  while (sz < block) sz *= 2;
  return sz;
}

/* Collectively adds a chunk of size bytes per unit. */
static dart_ret_t add_chunk(const char *func, dart__team_t *team,
                            struct dart__heap *h, size_t size)
{
  if (h->nchunks == h->cap) {
    int cap = h->cap ? 2 * h->cap : 4;
    chunk_t *c = realloc(h->chunks, (size_t)cap * sizeof *c);
    if (c == NULL) return DART_ERR_NOMEM;
    h->chunks = c;
    h->cap = cap;
  }
  chunk_t *c = &h->chunks[h->nchunks];
  c->size = size;
  c->buddy = dart__buddy_create(size);
  c->seg = dart__segment_record(team, DART__SEG_ALLOC, size);
  dart_ret_t ret = DART_ERR_NOMEM;
  if (c->buddy != NULL && c->seg != NULL) {
    ret = dart__window_alloc(func, c->seg, size);
    if (ret == DART_OK) dart__segment_set_atomics(c->seg);
  }
  if (ret == DART_OK && !c->seg->cpu_atomics) {
    /* Peers reach the caller's blocks through MPI, and so must the caller
     * (dart__segment_create): its entry in the shared array is NULL. */
    c->seg->own_bases[team->node_rank] = NULL;
  }
  if (ret != DART_OK) {
    dart__log(DART__LOG_ERROR, func,
              "cannot add a %zu-byte chunk to the heap of team %d", size,
              team->id);
    if (c->seg != NULL) dart__segment_dispose(func, c->seg);
    dart__buddy_destroy(c->buddy);
    return ret;
  }
  __atomic_add_fetch(&heap_windows, windows_of(c->seg), __ATOMIC_RELAXED);
  DART_LOG_DEBUG("team %d: heap chunk %d of %zu bytes per unit", team->id,
                 h->nchunks, size);
  h->nchunks++;
  return DART_OK;
}

/* Makes seg a view of bytes [off, off + size) of every portion of c:
 * constant work and memory (the chunk's mapped bases and displacement
 * rule, shifted by off), except for a chunk whose displacements had to be
 * kept per unit (window.c, single_node_layout; not seen with MPICH or
 * Open MPI). */
static dart_ret_t view(dart__segment_t *seg, const chunk_t *c, uint64_t off)
{
  const dart__segment_t *cs = c->seg;
  seg->node_base = cs->node_base;
  seg->base_off = cs->base_off + off;
  seg->disp_neg0 = cs->disp_neg0;
  seg->disp_step = cs->disp_step;
  seg->disp_mask = cs->disp_mask;
  if (cs->disp_pads != NULL) {
    seg->disp_pads = malloc((size_t)seg->nunits * sizeof *seg->disp_pads);
    if (seg->disp_pads == NULL) return DART_ERR_NOMEM;
    for (int u = 0; u < seg->nunits; u++)
      seg->disp_pads[u] = cs->disp_pads[u] + (MPI_Aint)off;
  }
  seg->disp_pad = cs->disp_pad + (MPI_Aint)off;
  seg->win = cs->win;
  seg->osc = cs->osc;
  seg->base = cs->base + off;
  return DART_OK;
}

/* team's heap record, created empty at first use. */
static struct dart__heap *heap_of(dart__team_t *team)
{
  if (team->segs->heap == NULL)
    team->segs->heap = calloc(1, sizeof(struct dart__heap));
  return team->segs->heap;
}

dart_ret_t dart__heap_dynamic(const char *func, dart__team_t *team,
                              int mpi_left, MPI_Win *win, dart__osc_t *osc)
{
  struct dart__heap *h = heap_of(team);
  if (h == NULL) return DART_ERR_NOMEM;
  if (h->dyn == NULL) {
    if (mpi_left < 1) return dart__mpi_objects_refuse(func, 1);
    dart__segment_t *d = dart__segment_record(team, DART__SEG_REGISTER, 0);
    if (d == NULL) return DART_ERR_NOMEM;
    dart_ret_t ret = dart__window_dynamic(func, d);
    if (ret != DART_OK) {
      dart__log(DART__LOG_ERROR, func,
                "cannot create the dynamic window of team %d", team->id);
      dart__segment_dispose(func, d);
      return ret;
    }
    __atomic_add_fetch(&heap_windows, 1, __ATOMIC_RELAXED);
    h->dyn = d;
  }
  *win = h->dyn->win;
  *osc = h->dyn->osc;
  return DART_OK;
}

dart_ret_t dart__heap_alloc(const char *func, dart__segment_t *seg,
                            size_t max_size)
{
  dart__team_t *team = seg->team;
  struct dart__heap *h = heap_of(team);
  if (h == NULL) return DART_ERR_NOMEM;
  size_t want = block_bytes(max_size);
  uint64_t off = 0;
  int i = 0;
  /* Every unit holds the same allocators: the same chunk fits or none. */
  while (i < h->nchunks && dart__buddy_alloc(h->chunks[i].buddy, want, &off))
    i++;
  if (i == h->nchunks) {
    if (seg->mpi_left < dart__window_count(team))
      return dart__mpi_objects_refuse(func, dart__window_count(team));
    dart_ret_t ret = add_chunk(func, team, h, next_chunk_size(h, want));
    if (ret != DART_OK) return ret;
    if (dart__buddy_alloc(h->chunks[i].buddy, want, &off) != 0)
      return DART_ERR_NOMEM;
  }
  seg->chunk = &h->chunks[i] - h->chunks + 1;
  seg->heap_off = off;
  dart_ret_t ret = view(seg, &h->chunks[i], off);
  if (ret != DART_OK) {
    dart__buddy_free(h->chunks[i].buddy, off);
    seg->chunk = 0;
  }
  return ret;
}

dart_ret_t dart__heap_free(const char *func, dart__segment_t *seg)
{
  struct dart__heap *h = seg->team->segs->heap;
  chunk_t *c = &h->chunks[seg->chunk - 1];
  dart_ret_t ret = DART_OK;
  /* The block may be handed out again by the next allocation: this
   * unit's RMA on it must be complete (a window free used to do that). */
  if (__atomic_load_n(&seg->mpi_used, __ATOMIC_RELAXED)) {
    dart__rma_target_t w;
    dart__segment_rma_win(seg, &w);
    ret = dart__rma_complete(func, &w, DART__WATCH_NONE, DART__RMA_FLUSH_ALL);
  }
  dart__buddy_free(c->buddy, seg->heap_off);
  seg->win = MPI_WIN_NULL; /* the chunk's: not freed with seg */
  seg->chunk = 0;
  return ret;
}

dart_ret_t dart__heap_fini(const char *func, dart__team_t *team)
{
  struct dart__heap *h = team->segs->heap;
  if (h == NULL) return DART_OK;
  dart_ret_t ret = DART_OK;
  /* Same chunks in the same order on every unit: the window frees match. */
  for (int i = 0; i < h->nchunks; i++) {
    __atomic_sub_fetch(&heap_windows, windows_of(h->chunks[i].seg),
                       __ATOMIC_RELAXED);
    dart_ret_t r = dart__segment_dispose(func, h->chunks[i].seg);
    if (r != DART_OK) ret = r;
    dart__buddy_destroy(h->chunks[i].buddy);
  }
  if (h->dyn != NULL) {
    __atomic_sub_fetch(&heap_windows, 1, __ATOMIC_RELAXED);
    dart_ret_t r = dart__segment_dispose(func, h->dyn);
    if (r != DART_OK) ret = r;
  }
  free(h->chunks);
  free(h);
  team->segs->heap = NULL;
  return ret;
}

int dart__heap_chunks(dart__team_t *team)
{
  const struct dart__heap *h = team->segs->heap;
  return h == NULL ? 0 : h->nchunks;
}
