/*
 * The agreement step of every collective segment creation, and the
 * collection of retired (deregistered) segments it triggers.
 *
 * Values are combined by MPI_Allreduce(MAX) over int64 vectors: a value v
 * that must be equal on all units appears as v and -v, so the reduction
 * yields its maximum and its minimum, and "equal on all units" is
 * max == -max(-v).
 *
 * The common case costs one allreduce of FAST_LEN words (measured in
 * docs/design.md 3.1: 9 words cost about what 1 does, 19 words 30% more
 * with Open MPI at 2 units): the portion size, one key packing the
 * reserved segment id, the status of the local checks and the number of
 * retired registrations, the window displacement of the portion, the MPI
 * objects left, the id of a single retired registration, and, where
 * dynamic windows hold few attachments, a registration's displacement in
 * the team's dynamic window and the attachments left there (window.c
 * chooses between that window and one of its own from them). If the keys
 * differ (an error on some unit, calls out of order, different retirement
 * counts) all units see it and follow with the full vector, which names
 * the failing unit and carries up to AGREE_RETIRED retired ids. Only if
 * sizes differ between units (asymmetric allocations and registrations)
 * or displacements of an allocation do does an MPI_Allgather of (size,
 * displacement) follow; a registration's differing displacements are
 * fetched from each unit when first needed (regdir.c).
 */
#include <stdlib.h>

#include "dart_watch.h"
#include "globmem/globmem_internal.h"
#include "transport/probe.h"
#include "transport/wait.h"

/* Retired ids compared inside the agreement allreduce; more take one
 * allreduce of their own. */
enum { AGREE_RETIRED = 4 };

enum {
  A_SIZE,
  A_SEGID = 2,
  A_STATUS = 4, /* max only: worst status                       */
  A_FAILED,     /* max only: highest unit that failed, or -1     */
  A_NRETIRED,
  A_PAD = 8,
  A_LEFT = 10,    /* max only: -(MPI objects left)               */
  A_DYN,          /* a registration's dynamic-window displacement */
  A_ATTACH = 13,  /* max only: -(attachments left)               */
  A_RETIRED = 14, /* ids, then their negations                  */
  A_LEN = A_RETIRED + 2 * AGREE_RETIRED
};

/* The fast vector; the last three words only where registrations choose
 * their window (dart__caps.register_limited). */
enum {
  F_SIZE,
  F_KEY = 2,
  F_PAD = 4,
  F_LEFT = 6,    /* max only: -(MPI objects left)                */
  F_RETIRED,     /* the retired id if there is exactly one, else 0 */
  F_DYN = 9,     /* a registration's dynamic-window displacement  */
  F_ATTACH = 11, /* max only: -(attachments left)                 */
  FAST_LEN
};

static int cmp_retired(const void *a, const void *b)
{
  int ia = -(*(dart__segment_t *const *)a)->segid;
  int ib = -(*(dart__segment_t *const *)b)->segid;
  return (ia > ib) - (ia < ib);
}

/* Retired registrations in id order: lists compare element-wise. */
static void sort_retired(dart__segtable_t *tab)
{
  if (tab->nretired > 1)
    qsort(tab->retired, (size_t)tab->nretired, sizeof *tab->retired,
          cmp_retired);
}

static void put_pair(int64_t *v, int i, int64_t x)
{
  v[i] = x;
  v[i + 1] = -x;
}

static bool pair_equal(const int64_t *v, int i)
{
  return v[i] == -v[i + 1];
}

/* Sizes equal but for the last unit's (a block distribution's remainder)
 * need no per-unit array: sym_size and the last unit's odd_size. Not for
 * registrations (their layout is left as it is). */
static void compact_sizes(dart__segment_t *seg)
{
  int n = seg->nunits;
  if (seg->kind == DART__SEG_REGISTER) return;
  for (int u = 1; u < n - 1; u++)
    if (seg->sizes[u] != seg->sizes[0]) return;
  seg->sym_size = seg->sizes[0];
  seg->odd_unit1 = (unsigned)n;
  seg->odd_size = seg->sizes[n - 1];
  free(seg->sizes);
  seg->sizes = NULL;
}

/* The policy's collective wait mode (dart__agree_set_policy). */
static bool agree_block;

void dart__agree_set_policy(const dart__policy_t *policy)
{
  agree_block = policy->coll_block;
}

/*
 * Every collective of the agreements, in one style: by DART's collective
 * wait policy (DART_COLL_WAIT: the blocking call, or the non-blocking one
 * and the transport's yielding wait), watched as the next collective of
 * the team (what names it, segid the segment or DART__WATCH_NONE). recv
 * NULL: an allreduce in place on send; else an allgather of count
 * elements per unit into recv. Logs a failure under func.
 */
static int agree_coll(const char *func, const char *what, dart__team_t *team,
                      int segid, void *send, void *recv, int count,
                      MPI_Datatype type, MPI_Op op)
{
  DART__WATCH(func, what, (int)team->id, segid, DART__WATCH_NONE,
              ++team->coll_seq);
  int rc;
  const char *call = recv == NULL ? "MPI_Allreduce" : "MPI_Allgather";
  if (recv == NULL)
    rc = agree_block
             ? MPI_Allreduce(MPI_IN_PLACE, send, count, type, op, team->comm)
             : dart__mpi_allreduce(MPI_IN_PLACE, send, count, type, op,
                                   team->comm);
  else
    rc = agree_block
             ? MPI_Allgather(send, count, type, recv, count, type, team->comm)
             : dart__mpi_allgather(send, count, type, recv, team->comm);
  dart__watch_end();
  if (rc != MPI_SUCCESS) dart__mpi_log_error(func, call, rc);
  return rc;
}

/* One agreement allreduce(MAX) of len int64 on seg's team. */
static int agree_allreduce(const char *func, dart__segment_t *seg, int64_t *v,
                           int len)
{
  return agree_coll(func, "MPI_Allreduce (allocation agreement)", seg->team,
                    seg->segid, v, NULL, len, MPI_INT64_T, MPI_MAX);
}

/* Exchanges (size, displacement) of every unit: sizes or pads differ. */
static dart_ret_t gather_sizes(const char *func, dart__segment_t *seg,
                               bool same_size, bool same_pad)
{
  int n = seg->nunits;
  int64_t mine[2] = {(int64_t)seg->size, (int64_t)seg->disp_pad};
  int64_t *all = malloc(2 * (size_t)n * sizeof *all);
  if (!same_size) seg->sizes = malloc((size_t)n * sizeof *seg->sizes);
  if (!same_pad) seg->disp_pads = malloc((size_t)n * sizeof *seg->disp_pads);
  /* A unit without memory for the exchange must not leave its peers in
   * the allgather: one more small agreement on that first (this path is
   * taken only by asymmetric allocations and registrations). */
  int ok = all != NULL && (same_size || seg->sizes != NULL) &&
           (same_pad || seg->disp_pads != NULL);
  int rc = agree_coll(func, "MPI_Allreduce (memory for the size exchange)",
                      seg->team, seg->segid, &ok, NULL, 1, MPI_INT, MPI_LAND);
  if (rc == MPI_SUCCESS && !ok) {
    free(all);
    dart__log(DART__LOG_ERROR, func, "out of memory on some unit of team %d",
              seg->team->id);
    return DART_ERR_NOMEM;
  }
  if (rc == MPI_SUCCESS)
    rc = agree_coll(func, "MPI_Allgather (sizes and displacements)", seg->team,
                    seg->segid, mine, all, 2, MPI_INT64_T, MPI_OP_NULL);
  if (rc != MPI_SUCCESS) {
    free(all);
    return DART_ERR_OTHER;
  }
  for (int u = 0; u < n; u++) {
    if (!same_size) seg->sizes[u] = (size_t)all[2 * u];
    if (!same_pad) seg->disp_pads[u] = (MPI_Aint)all[2 * u + 1];
  }
  free(all);
  if (!same_size) compact_sizes(seg);
  return DART_OK;
}

/* Fills this unit's contribution; returns the number of retired ids in
 * it (0 if there are more than fit). */
static int32_t contribution(const dart__segment_t *seg, dart_ret_t status,
                            int64_t *v)
{
  dart__segtable_t *tab = seg->team->segs;
  put_pair(v, A_SIZE, (int64_t)seg->size);
  put_pair(v, A_SEGID, seg->segid);
  v[A_STATUS] = status;
  v[A_FAILED] = status != DART_OK ? seg->myid : -1;
  put_pair(v, A_NRETIRED, tab->nretired);
  put_pair(v, A_PAD, (int64_t)seg->disp_pad);
  v[A_LEFT] = -(int64_t)dart__mpi_objects_left();
  put_pair(v, A_DYN, (int64_t)seg->dyn_disp);
  v[A_ATTACH] = -(int64_t)seg->attach_left;
  int32_t n = tab->nretired;
  sort_retired(tab);
  for (int i = 0; i < AGREE_RETIRED; i++) {
    int64_t id = (i < n && n <= AGREE_RETIRED) ? tab->retired[i]->segid : 0;
    v[A_RETIRED + i] = id;
    v[A_RETIRED + AGREE_RETIRED + i] = -id;
  }
  return n <= AGREE_RETIRED ? n : 0;
}

/* Did every unit retire the same AGREE_RETIRED-or-fewer registrations? */
static bool same_retired(const int64_t *v)
{
  for (int i = 0; i < AGREE_RETIRED; i++)
    if (v[A_RETIRED + i] != -v[A_RETIRED + AGREE_RETIRED + i]) return false;
  return true;
}

/* Status, retirement count and segment id packed so that one equal key
 * means all three are equal (status < 2^15, count < 2^32, id 16 bits). */
static int64_t fast_key(const dart__segment_t *seg, dart_ret_t status)
{
  int32_t n = seg->team->segs->nretired;
  return ((int64_t)status << 48) | ((int64_t)(uint32_t)n << 16) |
         (int64_t)(uint16_t)seg->segid;
}

/*
 * Where the dynamic window holds few attachments (dart__register_limited),
 * a registration takes it if every unit has one left (min_left, the
 * team's minimum, INT32_MAX where none is needed), with the displacements
 * there (same_dyn: equal everywhere); else a window of its own, with the
 * pads. Returns whether the chosen displacements are equal everywhere.
 */
static bool choose_window(dart__segment_t *seg, int64_t min_left, bool same_dyn,
                          bool same_pad)
{
  if (seg->kind != DART__SEG_REGISTER || !dart__register_limited(seg->team))
    return same_pad;
  if (min_left < 1) return same_pad;
  seg->reg_dynamic = true;
  seg->disp_pad = seg->dyn_disp;
  return same_dyn;
}

/* Sizes and displacements agreed: symmetric, or gathered per unit;
 * differing displacements of a registration are published and fetched
 * instead (regdir.c). */
static dart_ret_t agree_sizes(const char *func, dart__segment_t *seg,
                              bool same_size, bool same_pad)
{
  seg->sym_size = seg->size;
  if (!same_pad && seg->kind == DART__SEG_REGISTER) {
    seg->disp_serial = dart__regdir_serial();
    seg->lazy_end = UINT64_MAX; /* sizes bound it */
    same_pad = true;
  }
  if (same_size && same_pad) return DART_OK;
  return gather_sizes(func, seg, same_size, same_pad);
}

/*
 * The full agreement (after keys differed): names the unit that failed
 * its checks, reports calls out of order, compares up to AGREE_RETIRED
 * retired ids.
 */
static dart_ret_t agree_full(const char *func, dart__segment_t *seg,
                             dart_ret_t status, int32_t *collect)
{
  dart__team_t *team = seg->team;
  int64_t v[A_LEN];
  int32_t inline_ids = contribution(seg, status, v);
  if (agree_allreduce(func, seg, v, A_LEN) != MPI_SUCCESS)
    return DART_ERR_OTHER;
  if (pair_equal(v, A_NRETIRED) && v[A_NRETIRED] > 0) {
    /* Same count everywhere: compared here if few, else collected by
     * dart__segment_collect with an allreduce of its own. */
    if (inline_ids == 0)
      *collect = (int32_t)v[A_NRETIRED];
    else if (same_retired(v))
      *collect = -(int32_t)v[A_NRETIRED];
  }
  dart_ret_t ret = (dart_ret_t)v[A_STATUS];
  if (ret != DART_OK) {
    if (status == DART_OK)
      dart__log(DART__LOG_ERROR, func,
                "team %d unit %lld failed its local checks (%s)", team->id,
                (long long)v[A_FAILED], dart__strerror(ret));
    return ret;
  }
  if (!pair_equal(v, A_SEGID)) {
    dart__log(DART__LOG_ERROR, func,
              "collective calls out of order on team %d: segment id %d "
              "here, %lld to %lld on other units",
              team->id, seg->segid, (long long)-v[A_SEGID + 1],
              (long long)v[A_SEGID]);
    return DART_ERR_OTHER;
  }
  seg->mpi_left = (int)-v[A_LEFT];
  bool same_pad = choose_window(seg, -v[A_ATTACH], pair_equal(v, A_DYN),
                                pair_equal(v, A_PAD));
  return agree_sizes(func, seg, pair_equal(v, A_SIZE), same_pad);
}

dart_ret_t dart__segment_agree(const char *func, dart__segment_t *seg,
                               dart_ret_t status, int32_t *collect)
{
  *collect = 0;
  dart__segtable_t *tab = seg->team->segs;
  int64_t v[FAST_LEN];
  put_pair(v, F_SIZE, (int64_t)seg->size);
  put_pair(v, F_KEY, fast_key(seg, status));
  put_pair(v, F_PAD, (int64_t)seg->disp_pad);
  v[F_LEFT] = -(int64_t)dart__mpi_objects_left();
  int64_t one = tab->nretired == 1 ? tab->retired[0]->segid : 0;
  put_pair(v, F_RETIRED, one);
  put_pair(v, F_DYN, (int64_t)seg->dyn_disp);
  v[F_ATTACH] = -(int64_t)seg->attach_left;
  /* the same length on every unit: the probe's results are agreed */
  int len = dart__caps.register_limited ? FAST_LEN : F_DYN;
  if (agree_allreduce(func, seg, v, len) != MPI_SUCCESS) return DART_ERR_OTHER;
  if (!pair_equal(v, F_KEY)) return agree_full(func, seg, status, collect);
  /* Equal keys: the same status, retirement count and id everywhere. */
  if (status != DART_OK) return status;
  int32_t n = tab->nretired;
  if (n == 1 && pair_equal(v, F_RETIRED))
    *collect = -1; /* the same single registration: free it inline */
  else if (n > 1) {
    sort_retired(tab);
    *collect = n; /* compared by dart__segment_collect */
  }
  seg->mpi_left = (int)-v[F_LEFT];
  bool same_pad = choose_window(seg, -v[F_ATTACH], pair_equal(v, F_DYN),
                                pair_equal(v, F_PAD));
  return agree_sizes(func, seg, pair_equal(v, F_SIZE), same_pad);
}

dart_ret_t dart__segment_agree_step(const char *func, dart__segment_t *seg,
                                    dart_ret_t status, int count,
                                    int *min_count)
{
  /* Worst status, and the smallest count as the maximum of its negation. */
  int64_t v[2] = {status, -(int64_t)count};
  if (agree_allreduce(func, seg, v, 2) != MPI_SUCCESS) return DART_ERR_OTHER;
  if (min_count != NULL) *min_count = (int)-v[1];
  return (dart_ret_t)v[0];
}

/* Frees the n (sorted) retired registrations of team. */
static dart_ret_t free_retired(const char *func, dart__team_t *team, int32_t n)
{
  dart__segtable_t *tab = team->segs;
  dart_ret_t ret = DART_OK;
  for (int32_t i = 0; i < n; i++) {
    dart__segment_t *seg = tab->retired[i];
    DART_LOG_DEBUG("team %d: freeing released segment %d", team->id,
                   seg->segid);
    dart__segtable_release(tab, seg->segid);
    /* a retired heap block goes back to its chunk on every unit alike */
    dart_ret_t r = seg->chunk != 0 ? dart__heap_free(func, seg) : DART_OK;
    if (r != DART_OK) ret = r;
    r = dart__segment_dispose(func, seg);
    if (r != DART_OK) ret = r;
  }
  /* Retired after the agreement (other threads): keep those. */
  tab->nretired -= n;
  for (int32_t i = 0; i < tab->nretired; i++)
    tab->retired[i] = tab->retired[n + i];
  return ret;
}

/*
 * Frees the retired registrations as decided by dart__segment_agree
 * (collective; all members call it with the same collect): collect < 0:
 * the -collect retired ones, known to be the same everywhere; collect > 0:
 * the collect retired ones if every member retired the same (sorted by id,
 * the lists are equal iff their element-wise maximum and minimum agree:
 * one MPI_Allreduce(MAX) over the ids and their negations). *freed: how
 * many were freed, the same on every member.
 */
dart_ret_t dart__segment_collect(const char *func, dart__team_t *team,
                                 int32_t collect, int32_t *freed)
{
  *freed = 0;
  if (collect < 0) {
    *freed = -collect;
    return free_retired(func, team, -collect);
  }
  if (collect == 0) return DART_OK;
  int32_t n = collect;
  dart__segtable_t *tab = team->segs;
  int32_t *k = malloc(2 * (size_t)n * sizeof *k);
  int32_t ok = k != NULL, all_ok = 0;
  for (int32_t i = 0; ok && i < n; i++) {
    k[i] = tab->retired[i]->segid;
    k[n + i] = -k[i];
  }
  /* Members without memory for the keys opt out of this round. */
  all_ok = ok;
  int rc = agree_coll(func, "MPI_Allreduce (retired registrations)", team,
                      DART__WATCH_NONE, &all_ok, NULL, 1, MPI_INT32_T, MPI_MIN);
  if (rc == MPI_SUCCESS && all_ok)
    rc = agree_coll(func, "MPI_Allreduce (retired registrations)", team,
                    DART__WATCH_NONE, k, NULL, 2 * n, MPI_INT32_T, MPI_MAX);
  if (rc != MPI_SUCCESS) {
    free(k);
    return DART_ERR_OTHER;
  }
  bool same = all_ok;
  for (int32_t i = 0; same && i < n; i++) same = k[i] == -k[n + i];
  free(k);
  if (!same) return DART_OK;
  *freed = n;
  return free_retired(func, team, n);
}
