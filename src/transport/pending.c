/*
 * Segments on which the calling thread issued MPI RMA operations since it
 * last completed them all: dart_lock_release completes them before it hands
 * the lock over, so that a critical section's non-blocking puts are in
 * place when the next holder enters (docs/locks.md, "Release completes
 * the critical section").
 *
 * Every MPI RMA operation of a thread that holds a DART lock notes its
 * (team, segment) pair here (dart__segment_mark_mpi; operations outside a
 * critical section are not the release's to complete, and a thread without
 * a lock pays one thread-local load). Up to NOTE_MAX distinct pairs are kept
 * per thread; noting one more completes the noted ones at once (completing
 * early is always allowed) and starts the list afresh, so a release only
 * ever touches segments the thread itself used: never another thread's
 * segments, which that thread may be freeing, and the dart_memalloc growth
 * segment like any other. Pairs, not pointers: a segment freed in the
 * meantime is simply no longer found by the memory layer's lookup, which
 * it hands to the transport (dart__rma_set_finder) so that the transport
 * never calls up into the layer above it.
 */
#include "transport/transport.h"

enum { NOTE_MAX = 32 };

/* Default TLS model: 140 bytes would strain the static TLS reserve that
 * initial-exec variables of a dlopen'ed library draw from. Noting is on
 * the MPI path only, where a __tls_get_addr call does not show. */
static __thread uint32_t noted[NOTE_MAX];
static __thread int nnoted;
/* A completion on a full list failed: reported by the next release. */
static __thread dart_ret_t early_ret = DART_OK;

/* The memory layer's segment lookup (set once at start-up). */
static dart__rma_finder_t find_segment;

void dart__rma_set_finder(dart__rma_finder_t find)
{
  find_segment = find;
}

static uint32_t note_key(dart_team_t team, int16_t segid)
{
  return ((uint32_t)(uint16_t)team << 16) | (uint16_t)segid;
}

typedef struct {
  const char *func;
  dart_ret_t ret;
} flush_ctx_t;

static void flush_segment(uint32_t key, flush_ctx_t *c)
{
  dart__rma_target_t w;
  if (!find_segment((int16_t)(key >> 16), (int16_t)(key & 0xffffu), &w) ||
      w.win == MPI_WIN_NULL || !__atomic_load_n(w.mpi_used, __ATOMIC_RELAXED))
    return;
  if (dart__rma_complete(c->func, &w, DART__WATCH_NONE, DART__RMA_FLUSH_ALL) !=
      DART_OK)
    c->ret = DART_ERR_OTHER;
}

/* Completes every noted segment and empties the list. */
static dart_ret_t complete_list(const char *func)
{
  flush_ctx_t c = {func, DART_OK};
  for (int i = 0; i < nnoted && find_segment != NULL; i++)
    flush_segment(noted[i], &c);
  nnoted = 0;
  return c.ret;
}

__thread int dart__rma_noting __attribute__((tls_model("initial-exec")));

void dart__rma_note_slow(int16_t team, int16_t segid)
{
  uint32_t key = note_key(team, segid);
  for (int i = nnoted - 1; i >= 0; i--)
    if (noted[i] == key) return;
  if (nnoted == NOTE_MAX) {
    dart_ret_t ret = complete_list("dart_lock_release (early completion)");
    if (ret != DART_OK) early_ret = ret;
  }
  noted[nnoted++] = key;
}

dart_ret_t dart__rma_complete_noted(const char *func)
{
  dart_ret_t ret = complete_list(func);
  if (early_ret != DART_OK) {
    if (ret == DART_OK) ret = early_ret;
    early_ret = DART_OK;
  }
  dart__shm_complete();
  return ret;
}
