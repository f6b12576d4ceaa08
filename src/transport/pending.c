/*
 * Segments on which the calling thread issued MPI RMA operations since it
 * last completed them all: dart_lock_release completes them before it hands
 * the lock over, so that a critical section's non-blocking puts are in
 * place when the next holder enters (docs/locks.md, "Release completes
 * the critical section").
 *
 * Every MPI RMA operation notes its (team, segment) pair here
 * (dart__segment_mark_mpi). Up to NOTE_MAX distinct pairs are kept per
 * thread; beyond that the thread is marked as overflowed and completion
 * flushes every MPI segment of every team instead. Pairs, not pointers: a
 * segment freed in the meantime is simply no longer found.
 */
#include "transport/transport.h"

enum { NOTE_MAX = 32 };

/* Default TLS model: 140 bytes would strain the static TLS reserve that
 * initial-exec variables of a dlopen'ed library draw from. Noting is on
 * the MPI path only, where a __tls_get_addr call does not show. */
static __thread uint32_t noted[NOTE_MAX];
static __thread int nnoted;
static __thread bool overflowed;

static uint32_t note_key(dart_team_t team, int16_t segid)
{
  return ((uint32_t)(uint16_t)team << 16) | (uint16_t)segid;
}

void dart__rma_note(const dart__segment_t *seg)
{
  uint32_t key = note_key(seg->team->id, seg->segid);
  for (int i = nnoted - 1; i >= 0; i--)
    if (noted[i] == key) return;
  if (nnoted == NOTE_MAX) {
    overflowed = true;
    return;
  }
  noted[nnoted++] = key;
}

typedef struct {
  const char *func;
  dart_ret_t ret;
} flush_ctx_t;

static void flush_segment(dart__segment_t *seg, int16_t id, void *arg)
{
  (void)id;
  flush_ctx_t *c = arg;
  if (seg == NULL || seg->win == MPI_WIN_NULL ||
      !__atomic_load_n(&seg->mpi_used, __ATOMIC_RELAXED))
    return;
  if (dart__rma_complete(c->func, seg, DART__WATCH_NONE, DART__RMA_FLUSH_ALL) !=
      DART_OK)
    c->ret = DART_ERR_OTHER;
}

dart_ret_t dart__rma_complete_noted(const char *func)
{
  flush_ctx_t c = {func, DART_OK};
  if (overflowed) {
    for (int team = 0; team <= DART__TEAM_ID_MAX; team++) {
      dart__segtable_t *tab = dart__segtable_of((dart_team_t)team);
      if (tab != NULL) dart__segtable_foreach(tab, flush_segment, &c);
    }
  } else {
    for (int i = 0; i < nnoted; i++)
      flush_segment(dart__segment_get((dart_team_t)(int16_t)(noted[i] >> 16),
                                      (int16_t)(noted[i] & 0xffffu)),
                    0, &c);
  }
  nnoted = 0;
  overflowed = false;
  dart__shm_complete();
  return c.ret;
}
