/*
 * Communication statistics (DART_STATS): per-thread tables, counters and
 * target hashes, gathered by unit 0 at dart_exit into one JSON file and a short
 * summary on stderr (format: docs/profiling.md).
 */
#include <errno.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dart_env.h"
#include "dart_mpi.h"
#include "dart_observe.h"

dart__obs_flags_t dart__obs;
const int dart__obs_hooks = DART__OBS_HOOKS;
/* Read only: all keys 0, so every lookup in it misses. */
static dart__obs_thread_t obs_empty;
__thread dart__obs_thread_t *dart__obs_self = &obs_empty;
#define LAST_NONE                                                              \
  {                                                                            \
    -1, 0, 0                                                                   \
  }
_Static_assert(DART__OBS_NDATA == 5, "one initializer per data kind");
__thread dart__obs_last_t dart__obs_last[DART__OBS_NDATA][2] = {
    {LAST_NONE, LAST_NONE},
    {LAST_NONE, LAST_NONE},
    {LAST_NONE, LAST_NONE},
    {LAST_NONE, LAST_NONE},
    {LAST_NONE, LAST_NONE}};
#undef LAST_NONE
static __thread dart__obs_thread_t *obs_mine; /* this thread's record */
/* Thread exit: its last targets are folded into its record. */
static pthread_key_t obs_exit_key;
static pthread_once_t obs_exit_once = PTHREAD_ONCE_INIT;
static uint64_t tsc0, ns0; /* statistics clock at dart_init (obs.tsc) */

static pthread_mutex_t obs_mtx = PTHREAD_MUTEX_INITIALIZER;
static dart__obs_thread_t *obs_threads; /* every registered thread */
/* The counts of the threads that ended, summed (their records are freed). */
static dart__obs_thread_t obs_retired;
static int obs_nthreads;
static const char *stats_path; /* NULL: statistics off */
static size_t max_targets;

static const char *const kind_names[DART__OBS_NKINDS] = {
    "put",       "get",        "accumulate", "fetch_op",     "cas",
    "flush",     "barrier",    "bcast",      "scatter",      "gather",
    "allgather", "allgatherv", "alltoall",   "allreduce",    "reduce",
    "send",      "recv",       "sendrecv",   "lock_acquire", "lock_release"};
static const char *const path_names[DART__OBS_NPATHS] = {"shm", "mpi", "-"};

const char *dart__obs_kind_name(int kind)
{
  return kind_names[kind];
}

const char *dart__obs_path_name(int path)
{
  return path_names[path];
}

uint64_t dart__obs_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + 1;
}

int dart__obs_coll_kind(const char *func)
{
  if (strncmp(func, "dart_", 5) == 0) func += 5;
  for (int k = DART__OBS_BARRIER; k <= DART__OBS_SENDRECV; k++)
    if (strcmp(func, kind_names[k]) == 0) return k;
  return DART__OBS_BARRIER;
}

/* Slot of unit in s's hash: its entry, or the empty slot to take. */
static dart__obs_peer_t *peer_slot(dart__obs_peer_t *tab, size_t cap,
                                   int32_t unit)
{
  size_t i = ((uint32_t)unit * 2654435761u) & (cap - 1);
  while (tab[i].unit != -1 && tab[i].unit != unit) i = (i + 1) & (cap - 1);
  return &tab[i];
}

static int peers_grow(dart__obs_thread_t *s)
{
  size_t cap = s->cap ? 2 * s->cap : 16;
  dart__obs_peer_t *tab = malloc(cap * sizeof *tab);
  if (tab == NULL) return -1;
  for (size_t i = 0; i < cap; i++) tab[i] = (dart__obs_peer_t){-1, 0, 0};
  for (size_t i = 0; i < s->cap; i++)
    if (s->peers[i].unit != -1)
      *peer_slot(tab, cap, s->peers[i].unit) = s->peers[i];
  free(s->peers);
  s->peers = tab;
  s->cap = cap;
  return 0;
}

/* Entry of unit in s's matrix row, NULL once the row is full (then the
 * caller adds to "other"). */
static dart__obs_peer_t *peer_get(dart__obs_thread_t *s, int32_t unit)
{
  if (s->cap > 0) {
    dart__obs_peer_t *p = peer_slot(s->peers, s->cap, unit);
    if (p->unit == unit) return p;
  }
  if (s->used >= max_targets) return NULL;
  if (2 * (s->used + 1) > s->cap && peers_grow(s) != 0) return NULL;
  dart__obs_peer_t *p = peer_slot(s->peers, s->cap, unit);
  p->unit = unit;
  s->used++;
  return p;
}

static void peer_add(dart__obs_thread_t *s, int32_t unit, uint64_t ops,
                     uint64_t bytes)
{
  dart__obs_peer_t *p = peer_get(s, unit);
  if (p == NULL) {
    s->other_ops += ops;
    s->other_bytes += bytes;
    return;
  }
  p->ops += ops;
  p->bytes += bytes;
}

static void peer_count(dart__obs_thread_t *s, int kind, int gunit, uint64_t ops,
                       uint64_t bytes);

/* Moves s's last targets into its counters and matrix row (the caller
 * holds obs_mtx, or s is its own record). */
static void last_fold(dart__obs_thread_t *s)
{
  if (s->last == NULL) return;
  for (int k = 0; k < DART__OBS_NDATA; k++)
    for (int p = 0; p < 2; p++) {
      dart__obs_last_t *l = &s->last[k][p];
      if (l->unit >= 0) {
        s->count[k][p] += l->ops;
        s->bytes[k][p] += l->bytes;
        peer_count(s, k, l->unit, l->ops, l->bytes);
      }
      *l = (dart__obs_last_t){.unit = -1};
    }
}

static void slots_spill(dart__obs_thread_t *s);

/* Adds the counters and matrix row of src to dst (the caller holds obs_mtx;
 * src's last targets and table are folded in already). */
static void record_add(dart__obs_thread_t *dst, const dart__obs_thread_t *src)
{
  for (int k = 0; k < DART__OBS_NKINDS; k++)
    for (int p = 0; p < DART__OBS_NPATHS; p++) {
      dst->count[k][p] += src->count[k][p];
      dst->bytes[k][p] += src->bytes[k][p];
      dst->ns[k][p] += src->ns[k][p];
    }
  for (size_t i = 0; i < src->cap; i++)
    if (src->peers[i].unit != -1)
      peer_add(dst, src->peers[i].unit, src->peers[i].ops, src->peers[i].bytes);
  dst->other_ops += src->other_ops;
  dst->other_bytes += src->other_bytes;
}

/*
 * Thread exit: the thread's counts go into the record of the threads that
 * ended (one per process, bounded like a thread's), its buffered trace
 * events to the unit's part file, and its record is freed.
 */
static void thread_exit(void *arg)
{
  dart__obs_thread_t *s = arg;
  pthread_mutex_lock(&obs_mtx);
  last_fold(s);
  slots_spill(s);
  record_add(&obs_retired, s);
  dart__trace_release(s);
  for (dart__obs_thread_t **p = &obs_threads; *p != NULL; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      break;
    }
  pthread_mutex_unlock(&obs_mtx);
  /* a later destructor that calls DART registers the thread anew */
  if (obs_mine == s) {
    obs_mine = NULL;
    dart__obs_self = &obs_empty;
  }
  free(s->peers);
  free(s);
}

static void exit_key_create(void)
{
  if (pthread_key_create(&obs_exit_key, thread_exit) != 0)
    DART_LOG_ERROR("DART_STATS: pthread_key_create failed: the counts of "
                   "threads that end before dart_exit may be incomplete");
}

static dart__obs_thread_t *thread_register(void)
{
  dart__obs_thread_t *s = calloc(1, sizeof *s);
  if (s == NULL) return NULL;
  pthread_once(&obs_exit_once, exit_key_create);
  pthread_mutex_lock(&obs_mtx);
  s->tid = obs_nthreads++;
  s->next = obs_threads;
  s->last = dart__obs_last;
  obs_threads = s;
  pthread_mutex_unlock(&obs_mtx);
  pthread_setspecific(obs_exit_key, s);
  obs_mine = s;
  return s;
}

/* The caller's record (registered on first use), NULL if out of memory. */
static dart__obs_thread_t *mine(void)
{
  dart__obs_thread_t *s = obs_mine;
  return s != NULL ? s : thread_register();
}

/* Inside a quiet section the inline path looks in the empty table, so that
 * every call comes here and is dropped. */
void dart__obs_quiet(int delta)
{
  dart__obs_thread_t *s = mine();
  if (s == NULL) return;
  s->quiet += delta;
  dart__obs_self = s->quiet > 0 ? &obs_empty : s;
  if (s->quiet > 0) last_fold(s); /* every call now misses */
}

/* Adds ops and bytes of one target to the matrix row (data kinds only). */
static void peer_count(dart__obs_thread_t *s, int kind, int gunit, uint64_t ops,
                       uint64_t bytes)
{
  if (kind < DART__OBS_NDATA && gunit >= 0) peer_add(s, gunit, ops, bytes);
}

/* Moves a table entry of kind and path into the counters and the matrix
 * row. */
static void slot_spill(dart__obs_thread_t *s, int kind, int path,
                       dart__obs_slot_t *e)
{
  if (e->key == 0) return;
  int gunit = (int)(e->key ^ 0x80000000u);
  s->count[kind][path] += e->ops;
  s->bytes[kind][path] += e->bytes;
  peer_count(s, kind, gunit, e->ops, e->bytes);
  *e = (dart__obs_slot_t){0};
}

static void slots_spill(dart__obs_thread_t *s)
{
  for (int k = 0; k < DART__OBS_NDATA; k++)
    for (int p = 0; p < 2; p++)
      for (int i = 0; i < DART__OBS_NSLOTS; i++)
        slot_spill(s, k, p, &s->slot[k][p][i]);
}

/* Every call that missed the table, and every call that may wait. */
void dart__obs_record(int kind, int path, int gunit, size_t bytes, uint64_t t0)
{
  dart__obs_thread_t *s = mine();
  if (s == NULL || s->quiet > 0) return;
  dart__obs_self = s;
  if (t0 == 0 && !dart__obs.trace && kind < DART__OBS_NDATA &&
      path <= DART__OBS_MPI && gunit >= 0) {
    /* gunit becomes the last target; the one it replaces goes to its
     * table entry (whose previous owner is counted) */
    int32_t u = gunit;
    uint64_t ops = 1, nbytes = bytes;
    if (s->last != NULL) {
      dart__obs_last_t *l = &s->last[kind][path];
      u = l->unit, ops = l->ops, nbytes = l->bytes;
      *l = (dart__obs_last_t){.unit = gunit, .ops = 1, .bytes = bytes};
      if (u < 0) return;
    }
    dart__obs_slot_t *e =
        &s->slot[kind][path][(uint32_t)u & (DART__OBS_NSLOTS - 1)];
    if (e->key != dart__obs_key(u)) {
      slot_spill(s, kind, path, e);
      e->key = dart__obs_key(u);
    }
    e->ops += ops;
    e->bytes += nbytes;
    return;
  }
  uint64_t t1 = 0;
  if (t0 != 0) t1 = dart__obs.trace ? dart__obs_now() : dart__obs_t0();
  s->count[kind][path]++;
  s->bytes[kind][path] += bytes;
  if (t0 != 0) s->ns[kind][path] += t1 - t0;
  peer_count(s, kind, gunit, 1, bytes);
  if (dart__obs.trace) {
    if (t0 == 0) t0 = t1 = dart__obs_now();
    dart__trace_event(s, kind, path, gunit, bytes, t0, t1);
  }
}

/* ---- dart_exit: gather at unit 0 ---------------------------------- */

/* Nanoseconds per statistics clock tick (1 without the time-stamp
 * counter): measured over the run, against the system clock. */
static double tsc_scale(void)
{
#if defined(__x86_64__)
  if (dart__obs.tsc) {
    uint64_t dt = __builtin_ia32_rdtsc() - tsc0, dn = dart__obs_now() - ns0;
    if (dt > 0) return (double)dn / (double)dt;
  }
#endif
  return 1.0;
}

/* Everything one unit sends: counters of all threads summed, then its
 * matrix row (threads merged into a row of the same bound). */
typedef struct {
  uint64_t v[3][DART__OBS_NKINDS][DART__OBS_NPATHS];
  uint64_t other_ops, other_bytes;
  uint64_t npeers;
} unit_sum_t;

/* Adds one record (folded first) to the unit's sums and matrix row. */
static void sum_one(unit_sum_t *u, dart__obs_thread_t *row,
                    dart__obs_thread_t *s, double scale)
{
  last_fold(s);
  slots_spill(s);
  for (int k = 0; k < DART__OBS_NKINDS; k++)
    for (int p = 0; p < DART__OBS_NPATHS; p++) {
      u->v[0][k][p] += s->count[k][p];
      u->v[1][k][p] += s->bytes[k][p];
      u->v[2][k][p] += (uint64_t)((double)s->ns[k][p] * scale + 0.5);
    }
  for (size_t i = 0; i < s->cap; i++)
    if (s->peers[i].unit != -1)
      peer_add(row, s->peers[i].unit, s->peers[i].ops, s->peers[i].bytes);
  row->other_ops += s->other_ops;
  row->other_bytes += s->other_bytes;
}

/* The running threads and those that ended. */
static void sum_threads(unit_sum_t *u, dart__obs_thread_t *row)
{
  memset(u, 0, sizeof *u);
  double scale = tsc_scale();
  pthread_mutex_lock(&obs_mtx);
  for (dart__obs_thread_t *s = obs_threads; s != NULL; s = s->next)
    sum_one(u, row, s, scale);
  sum_one(u, row, &obs_retired, scale);
  pthread_mutex_unlock(&obs_mtx);
  u->other_ops = row->other_ops;
  u->other_bytes = row->other_bytes;
  u->npeers = row->used;
}

/* Packs the row's entries as (unit, ops, bytes) triples. */
static uint64_t *pack_row(const dart__obs_thread_t *row)
{
  uint64_t *buf = malloc((3 * row->used + 1) * sizeof *buf);
  if (buf == NULL) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < row->cap; i++)
    if (row->peers[i].unit != -1) {
      buf[n++] = (uint64_t)row->peers[i].unit;
      buf[n++] = row->peers[i].ops;
      buf[n++] = row->peers[i].bytes;
    }
  return buf;
}

/* Totals over the units for the summary. */
typedef struct {
  uint64_t sum[3][DART__OBS_NKINDS][DART__OBS_NPATHS];
  uint64_t max[DART__OBS_NKINDS][DART__OBS_NPATHS]; /* count, one unit */
} totals_t;

static void write_unit(FILE *f, int unit, const unit_sum_t *u,
                       const uint64_t *row, totals_t *tot)
{
  fprintf(f, "%s\n{\"unit\":%d,\"ops\":[", unit ? "," : "", unit);
  const char *sep = "";
  for (int k = 0; k < DART__OBS_NKINDS; k++)
    for (int p = 0; p < DART__OBS_NPATHS; p++) {
      if (u->v[0][k][p] == 0) continue;
      fprintf(f, "%s[\"%s\",\"%s\",%llu,%llu,%llu]", sep, kind_names[k],
              path_names[p], (unsigned long long)u->v[0][k][p],
              (unsigned long long)u->v[1][k][p],
              (unsigned long long)u->v[2][k][p]);
      sep = ",";
      for (int i = 0; i < 3; i++) tot->sum[i][k][p] += u->v[i][k][p];
      if (u->v[0][k][p] > tot->max[k][p]) tot->max[k][p] = u->v[0][k][p];
    }
  fprintf(f, "],\"targets\":[");
  for (uint64_t i = 0; i < u->npeers; i++)
    fprintf(f, "%s[%llu,%llu,%llu]", i ? "," : "",
            (unsigned long long)row[3 * i], (unsigned long long)row[3 * i + 1],
            (unsigned long long)row[3 * i + 2]);
  fprintf(f, "],\"other\":[%llu,%llu]}", (unsigned long long)u->other_ops,
          (unsigned long long)u->other_bytes);
}

static void print_summary(const totals_t *tot, int nunits)
{
  fprintf(stderr,
          "DART stats: %d units, file %s\n"
          "DART stats: %-13s %-4s %12s %14s %12s %10s\n",
          nunits, stats_path, "kind", "path", "count", "bytes", "time_ms",
          "max/unit");
  for (int k = 0; k < DART__OBS_NKINDS; k++)
    for (int p = 0; p < DART__OBS_NPATHS; p++) {
      if (tot->sum[0][k][p] == 0) continue;
      fprintf(
          stderr, "DART stats: %-13s %-4s %12llu %14llu %12.3f %10llu\n",
          kind_names[k], path_names[p], (unsigned long long)tot->sum[0][k][p],
          (unsigned long long)tot->sum[1][k][p],
          (double)tot->sum[2][k][p] / 1e6, (unsigned long long)tot->max[k][p]);
    }
}

/* Unit 0: receives every unit's sums and row in turn (O(1) memory, one
 * message pair per unit) and writes them. */
static dart_ret_t stats_collect(MPI_Comm comm, unit_sum_t *mine,
                                uint64_t *myrow)
{
  FILE *f = fopen(stats_path, "w");
  if (f == NULL)
    DART_LOG_ERROR("DART_STATS: cannot write %s: %s", stats_path,
                   strerror(errno));
  totals_t *tot = calloc(1, sizeof *tot);
  if (tot == NULL) return DART_ERR_NOMEM;
  if (f != NULL)
    fprintf(f,
            "{\"format\":\"dart-stats-1\",\"units\":%d,\"max_targets\":%zu,"
            "\"columns\":[\"kind\",\"path\",\"count\",\"bytes\",\"ns\"],"
            "\"units_data\":[",
            dart__g.size, max_targets);
  dart_ret_t ret = DART_OK;
  for (int r = 0; r < dart__g.size; r++) {
    unit_sum_t u = *mine;
    uint64_t *row = myrow;
    if (r > 0) {
      DART__MPI_LOG(
          MPI_Recv(&u, sizeof u, MPI_BYTE, r, 1, comm, MPI_STATUS_IGNORE));
      row = malloc((3 * u.npeers + 1) * sizeof *row);
      if (row == NULL) abort();
      DART__MPI_LOG(MPI_Recv(row, (int)(3 * u.npeers), MPI_UINT64_T, r, 2, comm,
                             MPI_STATUS_IGNORE));
    }
    if (f != NULL) write_unit(f, r, &u, row, tot);
    if (r > 0) free(row);
  }
  if (f != NULL) {
    fprintf(f, "\n]}\n");
    if (fclose(f) != 0) ret = DART_ERR_OTHER;
    print_summary(tot, dart__g.size);
  }
  free(tot);
  return f == NULL ? DART_ERR_OTHER : ret;
}

static dart_ret_t stats_fini(MPI_Comm comm)
{
  dart__obs_thread_t *row = calloc(1, sizeof *row);
  if (row == NULL) return DART_ERR_NOMEM;
  unit_sum_t mine;
  sum_threads(&mine, row);
  uint64_t *packed = pack_row(row);
  free(row->peers);
  free(row);
  if (packed == NULL) return DART_ERR_NOMEM;
  dart_ret_t ret = DART_OK;
  if (dart__g.myid == 0) {
    ret = stats_collect(comm, &mine, packed);
  } else {
    DART__MPI_LOG(MPI_Send(&mine, sizeof mine, MPI_BYTE, 0, 1, comm));
    DART__MPI_LOG(
        MPI_Send(packed, (int)(3 * mine.npeers), MPI_UINT64_T, 0, 2, comm));
  }
  free(packed);
  return ret;
}

/* "0"/"off"/"" off, "1"/"on" the default file, else the path itself. */
static const char *stats_target(const char *v)
{
  if (v == NULL || v[0] == '\0' || strcmp(v, "0") == 0 ||
      strcasecmp(v, "off") == 0 || strcasecmp(v, "no") == 0)
    return NULL;
  if (strcmp(v, "1") == 0 || strcasecmp(v, "on") == 0 ||
      strcasecmp(v, "yes") == 0)
    return dart__env.stats_file;
  return v;
}

/* Whether the time-stamp counter ticks at a constant rate in every state
 * (CPUID 0x80000007, EDX bit 8). */
static int invariant_tsc(void)
{
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u)
    return 0;
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  return (d >> 8) & 1u;
#else
  return 0;
#endif
}

int dart__obs_init(void)
{
  stats_path = stats_target(dart__env.stats);
  if (!DART__OBS_HOOKS) {
    if (stats_path != NULL ||
        (dart__env.trace != NULL && dart__env.trace[0] != '\0'))
      DART_LOG_WARN("DART_STATS / DART_TRACE ignored: this library was built "
                    "with DART_OBSERVE_HOOKS=OFF");
    return DART_OK;
  }
  max_targets =
      dart__env.stats_targets > 0 ? (size_t)dart__env.stats_targets : 1;
  int trace = dart__env.trace != NULL && dart__env.trace[0] != '\0';
  if (trace && dart__trace_init() != DART_OK) trace = 0;
  dart__obs.trace = trace;
  dart__obs.tsc = !trace && invariant_tsc();
#if defined(__x86_64__)
  tsc0 = __builtin_ia32_rdtsc();
#endif
  ns0 = dart__obs_now();
  dart__obs.on = trace || stats_path != NULL;
  return DART_OK;
}

int dart__obs_fini(void)
{
  if (!dart__obs.on || !DART__OBS_HOOKS) return DART_OK;
  dart__obs.on = 0;
  MPI_Comm comm;
  DART__MPI(MPI_Comm_dup(dart__g.comm, &comm));
  dart_ret_t ret = DART_OK;
  if (stats_path != NULL) ret = stats_fini(comm);
  if (dart__obs.trace) {
    pthread_mutex_lock(&obs_mtx);
    for (dart__obs_thread_t *s = obs_threads; s != NULL; s = s->next)
      dart__trace_release(s);
    pthread_mutex_unlock(&obs_mtx);
    dart_ret_t r2 = dart__trace_fini();
    if (ret == DART_OK) ret = r2;
  }
  dart__obs.trace = 0;
  DART__MPI_LOG(MPI_Comm_free(&comm));
  /* Records of running threads stay registered (the threads keep pointers
   * to theirs in their thread-local variable): emptied for a later
   * dart_init. */
  pthread_mutex_lock(&obs_mtx);
  free(obs_retired.peers);
  memset(&obs_retired, 0, sizeof obs_retired);
  for (dart__obs_thread_t *s = obs_threads; s != NULL; s = s->next) {
    free(s->peers);
    int tid = s->tid;
    dart__obs_thread_t *next = s->next;
    dart__obs_last_t(*last)[2] = s->last;
    memset(s, 0, sizeof *s);
    s->tid = tid;
    s->next = next;
    s->last = last;
    if (last != NULL)
      for (int k = 0; k < DART__OBS_NDATA; k++)
        for (int p = 0; p < 2; p++) last[k][p] = (dart__obs_last_t){.unit = -1};
  }
  pthread_mutex_unlock(&obs_mtx);
  return ret;
}
