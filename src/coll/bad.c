/*
 * A bad buffer on some units of a data collective: how the others learn
 * of it (docs/collectives.md, "A bad argument on some units").
 *
 * One RMA window over DART's world communicator, made in dart_init (after
 * global memory's windows, module "collflags"), holds
 * three 64-bit words per team id on every unit (dart__coll_words):
 *   [0] flag: 0, or (sequence number << 24 | team unit id + 1) of a
 *       collective in which that unit had a bad argument; written by the
 *       bad unit with an atomic MPI_Accumulate(REPLACE);
 *   [1] done: how many collectives of the team this unit has finished and
 *       checked; written by the owner only, read by bad units;
 *   [2] count: (sequence number << 32 | elements this unit sends) of its
 *       current or last allgatherv, or DART__COLL_NOMPI for one that ended
 *       without MPI, with DART__COLL_SHMBIT set when it goes through
 *       shared memory; written by the owner before the call, read by a
 *       unit that lacks the count arrays (dart__coll_counts).
 * Every unit counts the team's collectives alike (calls rejected on
 * arguments that are equal on all units never reach MPI and are not
 * counted), so sequence numbers agree.
 *
 * A unit whose checks failed (dart__coll_warn) tells the units whose result
 * depends on its contribution ("dependents"), before it joins the MPI
 * collective with stand-in buffers: it waits until each dependent has
 * finished the team's previous collective (its done word), writes the
 * flag and flushes. Every dependent completes the collective only after the
 * bad unit has entered it, so the flag is in its memory when it looks.
 * Every unit (dart__coll_end) reads its own flag word after the MPI call
 * (one local load on the fast path), resets it when set, and publishes its
 * done count. Waiting for the previous collective keeps at most one
 * collective's flags pending in a word, so no flag overwrites another
 * that was not read yet. The word of a team id is zeroed when the team is
 * released, before any member can reuse the id.
 *
 * An allgatherv unit without count arrays cannot build a stand-in from its
 * own arguments: it reads every other unit's count word for this call
 * (each unit stores it before its MPI call, so the reader waits at most
 * until that unit has entered the call) and then stands in with those
 * counts, sending its own nsendelem, through MPI or, when the others'
 * words carry DART__COLL_SHMBIT, through the shared-memory slots. Every
 * allgatherv that passes the team and type checks is counted, also when it ends
 * without MPI (all counts zero, or an entry above INT_MAX): its units publish
 * DART__COLL_NOMPI, so the reader learns the call moves no data and returns
 * without MPI too. A count word ahead of this call means the same: that unit
 * could only get past this call without MPI.
 *
 * The window memory is plain calloc'ed memory (MPI_Win_create; MPI's own
 * with MPI_Win_allocate where the MPI cannot create windows over existing
 * memory): 768 KiB of address space per unit, of which only touched pages
 * are committed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coll_internal.h"
#include "globmem/dart_segment.h"
#include "transport/transport.h"
#include "transport/wait.h"

enum { WORDS = DART__COLL_WORDS * (DART__TEAM_ID_MAX + 1), UNIT_BITS = 24 };
#define SEQ_MASK ((UINT64_C(1) << (64 - UNIT_BITS)) - 1)
#define UNIT_MASK ((UINT64_C(1) << UNIT_BITS) - 1)

_Atomic uint64_t *dart__coll_words;
/* The window of the flag words (globmem's side window; none with one
 * unit, whose words are calloc'ed). */
static dart__side_window_t flags_win = {MPI_WIN_NULL, NULL, false, false};

/* The flag of unit `unit` in collective `seq`. */
static uint64_t flag_make(uint64_t seq, int unit)
{
  uint64_t u = (uint64_t)unit + 1;
  if (u > UNIT_MASK) u = UNIT_MASK; /* "some unit" */
  return ((seq & SEQ_MASK) << UNIT_BITS) | u;
}

dart_ret_t dart__coll_flags_init(void)
{
  if (dart__g.size == 1) { /* nobody to tell: no window */
    dart__coll_words = calloc(WORDS, sizeof *dart__coll_words);
    DART__CHECK(dart__coll_words != NULL, DART_ERR_NOMEM,
                "out of memory for the collectives' flag words");
    return DART_OK;
  }
  dart_ret_t ret =
      dart__side_window_create("dart_init", "the collectives' flag window",
                               dart__g.comm, WORDS * sizeof *dart__coll_words,
                               sizeof *dart__coll_words, NULL, &flags_win);
  if (ret != DART_OK) return ret;
  dart__coll_words = flags_win.mem;
  return DART_OK;
}

dart_ret_t dart__coll_fini(void)
{
  dart__p2p_fini();
  _Atomic uint64_t *mem = dart__coll_words;
  dart__coll_words = NULL;
  if (flags_win.win == MPI_WIN_NULL) {
    free(mem);
    return DART_OK;
  }
  return dart__side_window_free("dart_exit", "the collectives' flag window",
                                &flags_win);
}

dart_ret_t dart__coll_team_fini(const char *func, dart__team_t *team)
{
  (void)func;
  if (dart__coll_words == NULL) return DART_OK;
  _Atomic uint64_t *w = dart__coll_words + DART__COLL_WORDS * (size_t)team->id;
  atomic_store_explicit(&w[0], 0, memory_order_relaxed);
  atomic_store_explicit(&w[1], 0, memory_order_relaxed);
  atomic_store_explicit(&w[2], 0, memory_order_relaxed);
  return DART_OK;
}

dart_ret_t dart__coll_flagged(const char *func, const dart__team_t *team,
                              uint64_t flag, uint64_t seq, dart_ret_t ret)
{
  _Atomic uint64_t *w = dart__coll_words + DART__COLL_WORDS * (size_t)team->id;
  uint64_t fseq = flag >> UNIT_BITS, s = seq & SEQ_MASK;
  if (fseq == ((s + 1) & SEQ_MASK)) return ret; /* next call's: keep */
  atomic_store_explicit(&w[0], 0, memory_order_relaxed);
  if (fseq != s) return ret; /* older: cannot happen, drop it */
  uint64_t u = flag & UNIT_MASK;
  if (ret == DART_OK) { /* a bad unit has logged its own line already */
    if (u == UNIT_MASK)
      DART__LOG_ERROR_IN(func,
                         "a unit of team %d passed a bad buffer to this "
                         "collective (see its log)",
                         (int)team->id);
    else
      DART__LOG_ERROR_IN(func,
                         "unit %" PRIu64 " of team %d passed a bad "
                         "buffer to this collective (see its log)",
                         u - 1, (int)team->id);
  }
  return DART_ERR_INVAL;
}

/* Waits until the team units in t[0..n) have finished collective seq - 1
 * and writes flag into each one's flag word. Returns an MPI error code. */
static int tell(const char *func, const dart__team_t *team, int *t,
                uint64_t *done, int n, uint64_t seq, uint64_t flag)
{
  MPI_Aint at = DART__COLL_WORDS * (MPI_Aint)team->id;
  for (uint64_t iter = 0; n > 0; iter++) {
    int rc = MPI_SUCCESS, left = 0;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
      rc = dart__mpi_word_fetch(flags_win.win, team->l2g[t[i]], at + 1,
                                &done[i]);
    if (rc == MPI_SUCCESS) rc = dart__mpi_flush_win(func, flags_win.win);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
      if (done[i] + 1 < seq) {
        t[left++] = t[i]; /* still before the previous collective */
        continue;
      }
      rc = dart__mpi_word_replace(flags_win.win, team->l2g[t[i]], at, flag);
    }
    if (rc == MPI_SUCCESS) rc = dart__mpi_flush_win(func, flags_win.win);
    if (rc != MPI_SUCCESS) return rc;
    n = left;
    if (n > 0) dart__wait_poll(iter);
  }
  return MPI_SUCCESS;
}

void dart__coll_warn(const char *func, const dart__team_t *team,
                     dart__coll_kind_t kind, int root)
{
  if (team->size == 1 || flags_win.win == MPI_WIN_NULL) return;
  bool rooted = kind == DART__COLL_BCAST || kind == DART__COLL_SCATTER ||
                kind == DART__COLL_GATHER || kind == DART__COLL_REDUCE;
  bool to_root = kind == DART__COLL_GATHER || kind == DART__COLL_REDUCE;
  bool me_root = team->myid == root;
  /* bcast/scatter: only the root's data reaches others; gather/reduce:
   * only the root receives; the rest: everybody receives from everybody */
  if (rooted && (to_root ? me_root : !me_root)) return;
  int n = rooted && to_root ? 1 : team->size - 1;
  uint64_t *done = malloc((size_t)n * (sizeof *done + sizeof(int)));
  if (done == NULL) {
    DART__LOG_ERROR_IN(func,
                       "out of memory telling the other units of "
                       "team %d about the bad argument",
                       (int)team->id);
    return;
  }
  int *t = (int *)(done + n);
  if (rooted && to_root) {
    t[0] = root;
  } else {
    for (int u = 0, k = 0; u < team->size; u++)
      if (u != team->myid) t[k++] = u;
  }
  const _Atomic uint64_t *w =
      dart__coll_words + DART__COLL_WORDS * (size_t)team->id;
  uint64_t seq = atomic_load_explicit(&w[1], memory_order_relaxed) + 1;
  DART__WATCH(func, "telling the other units about the bad argument",
              (int)team->id, DART__WATCH_NONE, DART__WATCH_NONE, -1);
  int rc = tell(func, team, t, done, n, seq, flag_make(seq, team->myid));
  dart__watch_end();
  if (rc != MPI_SUCCESS)
    dart__mpi_log_error(func,
                        "telling the other units about the bad "
                        "argument (they may return wrong data)",
                        rc);
  free(done);
}

/* Reads the count words of the team units in t[0..n) for collective seq
 * into icnt; stops early (*mpi = false) at a word that shows the call
 * ended without MPI. Returns an MPI error code. */
static int read_counts(const char *func, const dart__team_t *team, int *t,
                       uint64_t *v, int n, uint32_t seq, int *icnt, bool *mpi,
                       bool *shm)
{
  MPI_Aint at = DART__COLL_WORDS * (MPI_Aint)team->id + 2;
  for (uint64_t iter = 0; n > 0; iter++) {
    int rc = MPI_SUCCESS, left = 0;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
      rc = dart__mpi_word_fetch(flags_win.win, team->l2g[t[i]], at, &v[i]);
    if (rc == MPI_SUCCESS) rc = dart__mpi_flush_win(func, flags_win.win);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < n; i++) {
      int32_t ahead = (int32_t)((uint32_t)(v[i] >> 32) - seq);
      uint32_t c = (uint32_t)v[i];
      if (ahead < 0) {
        t[left++] = t[i]; /* not in this call yet */
      } else if (ahead > 0 || c == DART__COLL_NOMPI) {
        *mpi = false;
        return MPI_SUCCESS;
      } else {
        if (c & DART__COLL_SHMBIT) *shm = true;
        icnt[t[i]] = (int)(c & ~DART__COLL_SHMBIT);
      }
    }
    n = left;
    if (n > 0) dart__wait_poll(iter);
  }
  return MPI_SUCCESS;
}

dart_ret_t dart__coll_counts(const char *func, const dart__team_t *team,
                             int *icnt, bool *mpi, bool *shm)
{
  *mpi = true;
  *shm = false;
  int n = team->size - 1;
  if (n == 0 || flags_win.win == MPI_WIN_NULL) return DART_OK;
  uint64_t *v = malloc((size_t)n * (sizeof *v + sizeof(int)));
  if (v == NULL) {
    DART__LOG_ERROR_IN(func, "out of memory reading the counts of team %d",
                       (int)team->id);
    return DART_ERR_NOMEM;
  }
  int *t = (int *)(v + n);
  for (int u = 0, k = 0; u < team->size; u++)
    if (u != team->myid) t[k++] = u;
  const _Atomic uint64_t *w =
      dart__coll_words + DART__COLL_WORDS * (size_t)team->id;
  uint32_t seq =
      (uint32_t)(atomic_load_explicit(&w[1], memory_order_relaxed) + 1);
  DART__WATCH(func, "reading the other units' counts", (int)team->id,
              DART__WATCH_NONE, DART__WATCH_NONE, -1);
  int rc = read_counts(func, team, t, v, n, seq, icnt, mpi, shm);
  dart__watch_end();
  free(v);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, "reading the other units' counts", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}
