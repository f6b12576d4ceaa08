/*
 * Timeline trace (DART_TRACE=file): one Chrome trace-event ("X" complete
 * event) per observed call, pid = global unit, tid = thread of that unit
 * in registration order. Each thread buffers DART_TRACE_BUFFER events;
 * a full buffer is appended to the unit's part file (<file>.part<unit>),
 * and at dart_exit unit 0 concatenates the parts into <file> and removes
 * them (the directory must be shared by the units). Times are corrected by
 * each unit's clock offset against unit 0, measured once in dart_init.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_env.h"
#include "dart_mpi.h"
#include "dart_observe.h"

typedef struct {
  uint64_t t0, t1, bytes;
  int32_t target;
  uint16_t kind;
  uint16_t path;
} trace_ev_t;

typedef struct {
  size_t n, cap;
  trace_ev_t ev[];
} trace_buf_t;

static pthread_mutex_t part_mtx = PTHREAD_MUTEX_INITIALIZER;
static FILE *part;      /* this unit's part file, opened at first write */
static int part_failed; /* it could not be written: events are dropped */
static int64_t offset;  /* this unit's clock minus unit 0's             */
static uint64_t base;   /* unit 0's clock when the trace began           */
static size_t buf_cap;

static void part_name(char *out, size_t len, int unit)
{
  snprintf(out, len, "%s.part%d", dart__env.trace, unit);
}

/* Offset of this unit's clock against unit 0's: one round trip each
 * (unit 0 serves the units in turn: O(units) at unit 0, once). */
static dart_ret_t clock_sync(MPI_Comm comm)
{
  uint64_t t = dart__obs_now();
  base = t;
  if (dart__g.myid == 0) {
    for (int r = 1; r < dart__g.size; r++) {
      DART__MPI(MPI_Recv(&t, 1, MPI_UINT64_T, r, 7, comm, MPI_STATUS_IGNORE));
      t = dart__obs_now();
      DART__MPI(MPI_Send(&t, 1, MPI_UINT64_T, r, 7, comm));
    }
    offset = 0;
  } else {
    uint64_t t1 = dart__obs_now(), t0;
    DART__MPI(MPI_Send(&t1, 1, MPI_UINT64_T, 0, 7, comm));
    DART__MPI(MPI_Recv(&t0, 1, MPI_UINT64_T, 0, 7, comm, MPI_STATUS_IGNORE));
    uint64_t t2 = dart__obs_now();
    offset = (int64_t)(t1 + (t2 - t1) / 2) - (int64_t)t0;
  }
  DART__MPI(MPI_Bcast(&base, 1, MPI_UINT64_T, 0, comm));
  return DART_OK;
}

int dart__trace_init(void)
{
  long cap = dart__env.trace_buffer;
  buf_cap = cap > 0 ? (size_t)cap : 1;
  part = NULL;
  part_failed = 0;
  MPI_Comm comm;
  DART__MPI(MPI_Comm_dup(dart__g.comm, &comm));
  dart_ret_t ret = clock_sync(comm);
  DART__MPI_LOG(MPI_Comm_free(&comm));
  char name[4096];
  part_name(name, sizeof name, dart__g.myid);
  remove(name); /* a leftover of an earlier run */
  return ret;
}

/* Nanoseconds as microseconds with three exact decimals. */
static void put_us(FILE *f, int64_t ns)
{
  const char *sign = ns < 0 ? "-" : "";
  uint64_t a = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;
  fprintf(f, "%s%llu.%03llu", sign, (unsigned long long)(a / 1000),
          (unsigned long long)(a % 1000));
}

static const char *wait_reason(int kind)
{
  if (kind == DART__OBS_FLUSH) return "flush";
  if (kind == DART__OBS_LOCK_ACQUIRE || kind == DART__OBS_LOCK_RELEASE)
    return "lock";
  if (kind >= DART__OBS_BARRIER && kind <= DART__OBS_SENDRECV)
    return "collective";
  return NULL;
}

static void write_event(FILE *f, int tid, const trace_ev_t *e)
{
  fprintf(f,
          ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,"
          "\"tid\":%d,\"ts\":",
          dart__obs_kind_name(e->kind), dart__obs_path_name(e->path),
          dart__g.myid, tid);
  put_us(f, (int64_t)(e->t0 - base) - offset);
  fputs(",\"dur\":", f);
  put_us(f, (int64_t)(e->t1 - e->t0));
  fprintf(f, ",\"args\":{\"target\":%d,\"bytes\":%llu,\"path\":\"%s\"",
          e->target, (unsigned long long)e->bytes,
          dart__obs_path_name(e->path));
  const char *w = wait_reason(e->kind);
  if (w != NULL) fprintf(f, ",\"wait\":\"%s\"", w);
  fputs("}}", f);
}

/* Appends a thread's buffered events to the part file and empties it. */
static void buf_flush(dart__obs_thread_t *s)
{
  trace_buf_t *b = s->trace;
  if (b == NULL || b->n == 0) return;
  pthread_mutex_lock(&part_mtx);
  if (part == NULL && !part_failed) {
    char name[4096];
    part_name(name, sizeof name, dart__g.myid);
    part = fopen(name, "w");
    if (part == NULL) {
      part_failed = 1;
      DART_LOG_ERROR("DART_TRACE: cannot write %s: %s", name, strerror(errno));
    }
  }
  if (part != NULL)
    for (size_t i = 0; i < b->n; i++) write_event(part, s->tid, &b->ev[i]);
  pthread_mutex_unlock(&part_mtx);
  b->n = 0;
}

void dart__trace_event(dart__obs_thread_t *s, int kind, int path, int gunit,
                       size_t bytes, uint64_t t0, uint64_t t1)
{
  trace_buf_t *b = s->trace;
  if (b == NULL) {
    b = malloc(sizeof *b + buf_cap * sizeof b->ev[0]);
    if (b == NULL) return;
    b->n = 0;
    b->cap = buf_cap;
    s->trace = b;
  }
  if (b->n == b->cap) buf_flush(s);
  b->ev[b->n++] =
      (trace_ev_t){t0, t1, bytes, gunit, (uint16_t)kind, (uint16_t)path};
}

/* Unit 0: the whole file, from the parts of units 0..size-1. */
static dart_ret_t trace_merge(void)
{
  FILE *f = fopen(dart__env.trace, "w");
  if (f == NULL) {
    DART_LOG_ERROR("DART_TRACE: cannot write %s: %s", dart__env.trace,
                   strerror(errno));
    return DART_ERR_OTHER;
  }
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
  for (int r = 0; r < dart__g.size; r++)
    fprintf(f,
            "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
            "\"args\":{\"name\":\"unit %d\"}},\n"
            "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
            "\"args\":{\"sort_index\":%d}}",
            r ? ",\n" : "", r, r, r, r);
  char name[4096], chunk[65536];
  for (int r = 0; r < dart__g.size; r++) {
    part_name(name, sizeof name, r);
    FILE *p = fopen(name, "r");
    if (p == NULL) continue; /* a unit without events */
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0) fwrite(chunk, 1, n, f);
    fclose(p);
    remove(name);
  }
  fputs("\n]}\n", f);
  if (fclose(f) != 0) return DART_ERR_OTHER;
  return DART_OK;
}

void dart__trace_release(dart__obs_thread_t *s)
{
  buf_flush(s);
  free(s->trace);
  s->trace = NULL;
}

int dart__trace_fini(void)
{
  dart_ret_t ret = DART_OK;
  if (part != NULL && fclose(part) != 0) ret = DART_ERR_OTHER;
  part = NULL;
  /* Every part is complete before unit 0 reads them. */
  DART__MPI(MPI_Barrier(dart__g.comm));
  if (dart__g.myid == 0) {
    dart_ret_t r2 = trace_merge();
    if (ret == DART_OK) ret = r2;
  }
  return ret;
}
