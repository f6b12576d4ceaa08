/*
 * The one-bad rule for every collective entry point (issue 36 item 2,
 * docs/onebad.md): one table of entries, each a collective call with an
 * argument that is bad on one unit only. For every entry and every choice
 * of the bad unit (each unit in turn), every unit checks:
 *   1. the bad unit gets DART_ERR_INVAL and logs exactly one line, naming
 *      the function;
 *   2. nobody hangs (an alarm names the entry and fails the job);
 *   3. nobody gets DART_OK with wrong state: where the rule is "fails on
 *      all" every unit gets DART_ERR_INVAL and no object (team, global
 *      pointer, lock, allocator); in data collectives the documented units
 *      get DART_ERR_INVAL and the others DART_OK with correct data;
 *   4. the next collective call works: an allreduce, then the same entry
 *      with good arguments everywhere, whose object is used and released.
 * Entry points that take no argument that can be bad on one unit only
 * (dart_barrier: the team is equal by contract) and the releasing calls
 * whose bad argument names no team (docs/onebad.md) are not in the table.
 */
#define _DEFAULT_SOURCE
#include <dash/dart/if/dart.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dart_test.h"

enum { N = 4, MAXU = 64, DEADLINE = 30 };

typedef enum { O_NONE, O_TEAM, O_ALLOC, O_REG, O_ALLOCATOR, O_LOCK } obj_kind_t;

/* Who gets DART_ERR_INVAL besides the bad unit (docs/collectives.md). */
typedef enum {
  R_ALL,  /* everybody (agreed calls, allreduce, allgather, ...) */
  R_FROM, /* bcast/scatter: everybody if the bad unit is the root */
  R_TO,   /* gather/reduce: the root */
  R_SELF  /* releases: nobody else; the bad unit still holds its object */
} rule_t;

typedef struct {
  dart_team_t team;
  dart_gptr_t gptr;
  dart_lock_t lock;
  dart_allocator_t alloc;
  long data[MAXU * N]; /* a data collective's result */
} obj_t;

typedef struct {
  const char *func; /* named in the bad unit's log line */
  const char *what; /* the bad argument */
  obj_kind_t obj;
  rule_t rule;
  int (*call)(bool bad, obj_t *o);
  bool (*data_ok)(const obj_t *o); /* data check where DART_OK, or NULL */
  /* releases (R_SELF): makes the object first (collective), and releases
   * it properly on the bad unit afterwards; bad_ok: the bad argument is
   * accepted as a no-op (DART_OK, nothing logged) */
  void (*prepare)(obj_t *o);
  int (*redo)(obj_t *o);
  bool bad_ok;
} entry_t;

static int me, n;
static long regmem[N];

/* ---- entries ---------------------------------------------------------- */

static int create_out(bool bad, obj_t *o)
{
  dart_group_t g = DART_GROUP_NULL;
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &g));
  int r = dart_team_create(DART_TEAM_ALL, g, bad ? NULL : &o->team);
  TEST_OK(dart_group_destroy(&g));
  return r;
}
static int create_group(bool bad, obj_t *o)
{
  dart_group_t g = DART_GROUP_NULL;
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &g));
  int r = dart_team_create(DART_TEAM_ALL, bad ? DART_GROUP_NULL : g, &o->team);
  TEST_OK(dart_group_destroy(&g));
  return r;
}
static int clone_out(bool bad, obj_t *o)
{
  return dart_team_clone(DART_TEAM_ALL, bad ? NULL : &o->team);
}
static int alloc_out(bool bad, obj_t *o)
{
  return dart_team_memalloc_aligned(DART_TEAM_ALL, N, DART_TYPE_LONG,
                                    bad ? NULL : &o->gptr);
}
static int alloc_type(bool bad, obj_t *o)
{
  return dart_team_memalloc_aligned(
      DART_TEAM_ALL, N, bad ? DART_TYPE_UNDEFINED : DART_TYPE_LONG, &o->gptr);
}
static int alloc_size(bool bad, obj_t *o)
{
  return dart_team_memalloc_aligned(DART_TEAM_ALL, bad ? SIZE_MAX / 2 : N,
                                    DART_TYPE_LONG, &o->gptr);
}
static int reg_out(bool bad, obj_t *o)
{
  return dart_team_memregister(DART_TEAM_ALL, N, DART_TYPE_LONG, regmem,
                               bad ? NULL : &o->gptr);
}
static int reg_addr(bool bad, obj_t *o)
{
  return dart_team_memregister(DART_TEAM_ALL, N, DART_TYPE_LONG,
                               bad ? NULL : regmem, &o->gptr);
}
static int reg_aligned_out(bool bad, obj_t *o)
{
  return dart_team_memregister_aligned(DART_TEAM_ALL, N, DART_TYPE_LONG, regmem,
                                       bad ? NULL : &o->gptr);
}
static int allocator_out(bool bad, obj_t *o)
{
  return dart_allocator_new(4096, DART_TEAM_ALL, bad ? NULL : &o->alloc);
}
static int allocator_size(bool bad, obj_t *o)
{
  return dart_allocator_new(bad ? SIZE_MAX : 4096, DART_TEAM_ALL, &o->alloc);
}
static int lock_out(bool bad, obj_t *o)
{
  return dart_team_lock_init(DART_TEAM_ALL, bad ? NULL : &o->lock);
}

static long val(int u, int k)
{
  return 1000L * (u + 1) + k;
}
static long sbuf[MAXU * N];
static void fill(void)
{
  for (int k = 0; k < n * N; k++) sbuf[k] = val(me, k);
}
static const dart_team_unit_t root = {0};

static int bcast(bool bad, obj_t *o)
{
  for (int k = 0; k < N; k++) o->data[k] = me == 0 ? val(0, k) : -1;
  return dart_bcast(bad ? NULL : o->data, N, DART_TYPE_LONG, root,
                    DART_TEAM_ALL);
}
static bool bcast_ok(const obj_t *o)
{
  for (int k = 0; k < N; k++)
    if (o->data[k] != val(0, k)) return false;
  return true;
}
static int scatter(bool bad, obj_t *o)
{
  fill();
  return dart_scatter(bad ? NULL : sbuf, bad ? NULL : o->data, N,
                      DART_TYPE_LONG, root, DART_TEAM_ALL);
}
static bool scatter_ok(const obj_t *o)
{
  for (int k = 0; k < N; k++)
    if (o->data[k] != val(0, me * N + k)) return false;
  return true;
}
static int gather(bool bad, obj_t *o)
{
  fill();
  return dart_gather(bad ? NULL : sbuf, bad ? NULL : o->data, N, DART_TYPE_LONG,
                     root, DART_TEAM_ALL);
}
static int reduce(bool bad, obj_t *o)
{
  fill();
  return dart_reduce(bad ? NULL : sbuf, bad ? NULL : o->data, N, DART_TYPE_LONG,
                     DART_OP_SUM, root, DART_TEAM_ALL);
}
static int allgather(bool bad, obj_t *o)
{
  fill();
  return dart_allgather(sbuf, bad ? NULL : o->data, N, DART_TYPE_LONG,
                        DART_TEAM_ALL);
}
static int allgatherv(bool bad, obj_t *o)
{
  size_t cnt[MAXU], dsp[MAXU];
  for (int u = 0; u < n; u++) cnt[u] = N, dsp[u] = (size_t)u * N;
  fill();
  return dart_allgatherv(sbuf, N, DART_TYPE_LONG, bad ? NULL : o->data, cnt,
                         dsp, DART_TEAM_ALL);
}
static int alltoall(bool bad, obj_t *o)
{
  fill();
  return dart_alltoall(sbuf, bad ? NULL : o->data, N, DART_TYPE_LONG,
                       DART_TEAM_ALL);
}
static int allreduce(bool bad, obj_t *o)
{
  fill();
  return dart_allreduce(sbuf, bad ? NULL : o->data, N, DART_TYPE_LONG,
                        DART_OP_SUM, DART_TEAM_ALL);
}

static void prep_alloc(obj_t *o)
{
  TEST_OK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, N, DART_TYPE_LONG, &o->gptr));
}
static void prep_lock(obj_t *o)
{
  TEST_OK(dart_team_lock_init(DART_TEAM_ALL, &o->lock));
}
static void prep_allocator(obj_t *o)
{
  TEST_OK(dart_allocator_new(4096, DART_TEAM_ALL, &o->alloc));
}
static int free_unknown(bool bad, obj_t *o)
{
  dart_gptr_t g = o->gptr;
  if (bad) g.segid = 30000; /* no such segment */
  return dart_team_memfree(g);
}
static int free_null(bool bad, obj_t *o)
{
  return dart_team_memfree(bad ? DART_GPTR_NULL : o->gptr);
}
static int redo_free(obj_t *o)
{
  return dart_team_memfree(o->gptr);
}
static int lock_destroy(bool bad, obj_t *o)
{
  return dart_team_lock_destroy(bad ? NULL : &o->lock);
}
static int redo_lock(obj_t *o)
{
  return dart_team_lock_destroy(&o->lock);
}
static int allocator_destroy(bool bad, obj_t *o)
{
  return dart_allocator_destroy(bad ? NULL : &o->alloc);
}
static int redo_allocator(obj_t *o)
{
  return dart_allocator_destroy(&o->alloc);
}

/* The table (docs/onebad.md lists the same entry points). */
static const entry_t table[] = {
    {"dart_team_create", "newteam NULL", O_TEAM, R_ALL, create_out, NULL, NULL,
     NULL, false},
    {"dart_team_create", "group NULL", O_TEAM, R_ALL, create_group, NULL, NULL,
     NULL, false},
    {"dart_team_clone", "newteam NULL", O_TEAM, R_ALL, clone_out, NULL, NULL,
     NULL, false},
    {"dart_team_memalloc_aligned", "gptr NULL", O_ALLOC, R_ALL, alloc_out, NULL,
     NULL, NULL, false},
    {"dart_team_memalloc_aligned", "undefined type", O_ALLOC, R_ALL, alloc_type,
     NULL, NULL, NULL, false},
    {"dart_team_memalloc_aligned", "size overflow", O_ALLOC, R_ALL, alloc_size,
     NULL, NULL, NULL, false},
    {"dart_team_memregister", "gptr NULL", O_REG, R_ALL, reg_out, NULL, NULL,
     NULL, false},
    {"dart_team_memregister", "addr NULL", O_REG, R_ALL, reg_addr, NULL, NULL,
     NULL, false},
    {"dart_team_memregister_aligned", "gptr NULL", O_REG, R_ALL,
     reg_aligned_out, NULL, NULL, NULL, false},
    {"dart_allocator_new", "new_allocator NULL", O_ALLOCATOR, R_ALL,
     allocator_out, NULL, NULL, NULL, false},
    {"dart_allocator_new", "pool size", O_ALLOCATOR, R_ALL, allocator_size,
     NULL, NULL, NULL, false},
    {"dart_team_lock_init", "lock NULL", O_LOCK, R_ALL, lock_out, NULL, NULL,
     NULL, false},
    {"dart_bcast", "buffer NULL", O_NONE, R_FROM, bcast, bcast_ok, NULL, NULL,
     false},
    {"dart_scatter", "buffers NULL", O_NONE, R_FROM, scatter, scatter_ok, NULL,
     NULL, false},
    {"dart_gather", "buffers NULL", O_NONE, R_TO, gather, NULL, NULL, NULL,
     false},
    {"dart_reduce", "buffers NULL", O_NONE, R_TO, reduce, NULL, NULL, NULL,
     false},
    {"dart_allgather", "recvbuf NULL", O_NONE, R_ALL, allgather, NULL, NULL,
     NULL, false},
    {"dart_allgatherv", "recvbuf NULL", O_NONE, R_ALL, allgatherv, NULL, NULL,
     NULL, false},
    {"dart_alltoall", "recvbuf NULL", O_NONE, R_ALL, alltoall, NULL, NULL, NULL,
     false},
    {"dart_allreduce", "recvbuf NULL", O_NONE, R_ALL, allreduce, NULL, NULL,
     NULL, false},
    /* releases of team-heap memory (allocations up to 1 MiB per unit) */
    {"dart_team_memfree", "unknown segment", O_NONE, R_SELF, free_unknown, NULL,
     prep_alloc, redo_free, false},
    {"dart_team_memfree", "DART_GPTR_NULL", O_NONE, R_SELF, free_null, NULL,
     prep_alloc, redo_free, true},
    {"dart_team_lock_destroy", "lock NULL", O_NONE, R_SELF, lock_destroy, NULL,
     prep_lock, redo_lock, true},
    {"dart_allocator_destroy", "allocator NULL", O_NONE, R_SELF,
     allocator_destroy, NULL, prep_allocator, redo_allocator, false},
};
enum { NENTRIES = sizeof table / sizeof table[0] };

/* ---- checks ----------------------------------------------------------- */

static const entry_t *current;
static int current_bad;

static void on_alarm(int sig)
{
  (void)sig;
  char line[256];
  int len = snprintf(line, sizeof line,
                     "[unit %d] FAIL: %s (%s bad on unit %d) still running "
                     "after %d s\n",
                     me, current->func, current->what, current_bad, DEADLINE);
  if (write(2, line, (size_t)len) < 0) _exit(2);
  _exit(1);
}

/* Runs e with stderr captured; returns the code, *lines and whether the
 * log named the function. */
static int run_logged(const entry_t *e, bool bad, obj_t *o, int *lines,
                      bool *named)
{
  fflush(stderr);
  int saved = dup(2);
  FILE *f = tmpfile();
  TEST_CHECK(saved >= 0 && f != NULL);
  dup2(fileno(f), 2);
  int r = e->call(bad, o);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(f);
  char buf[1024];
  *lines = 0;
  *named = false;
  while (fgets(buf, sizeof buf, f) != NULL) {
    ++*lines;
    if (strstr(buf, e->func) != NULL) *named = true;
    fputs(buf, stderr); /* keep it in the test's output */
  }
  fclose(f);
  return r;
}

static int expected(const entry_t *e, int bad)
{
  if (me == bad) return e->bad_ok ? DART_OK : DART_ERR_INVAL;
  switch (e->rule) {
  case R_SELF: return DART_OK;
  case R_FROM: return bad == root.id ? DART_ERR_INVAL : DART_OK;
  case R_TO: return me == root.id ? DART_ERR_INVAL : DART_OK;
  default: return DART_ERR_INVAL;
  }
}

static bool empty(const entry_t *e, const obj_t *o)
{
  switch (e->obj) {
  case O_TEAM: return o->team == DART_TEAM_NULL;
  case O_ALLOC:
  case O_REG: return DART_GPTR_ISNULL(o->gptr);
  case O_ALLOCATOR: return o->alloc == NULL;
  case O_LOCK: return o->lock == DART_LOCK_NULL;
  default: return true;
  }
}

/* Uses and releases the object of a good call (collective). */
static void use_and_release(const entry_t *e, obj_t *o)
{
  long x = -1, v = 100 + me;
  dart_gptr_t g = o->gptr;
  switch (e->obj) {
  case O_TEAM: {
    size_t s = 0;
    TEST_OK(dart_team_size(o->team, &s));
    TEST_CHECK((int)s == n);
    TEST_OK(dart_barrier(o->team));
    TEST_OK(dart_team_destroy(&o->team));
    break;
  }
  case O_ALLOC:
  case O_REG:
    g.unitid = (me + 1) % n;
    TEST_OK(dart_put_blocking(g, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    TEST_OK(dart_barrier(DART_TEAM_ALL));
    g.unitid = me;
    TEST_OK(dart_get_blocking(&x, g, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    TEST_CHECK_MSG(x == 100 + (me + n - 1) % n, "%s: read %ld", e->func, x);
    TEST_OK(dart_barrier(DART_TEAM_ALL));
    if (e->obj == O_ALLOC)
      TEST_OK(dart_team_memfree(o->gptr));
    else
      TEST_OK(dart_team_memderegister(o->gptr));
    TEST_OK(dart_barrier(DART_TEAM_ALL));
    break;
  case O_ALLOCATOR:
    TEST_OK(dart_allocator_alloc(1, DART_TYPE_LONG, &g, o->alloc));
    TEST_OK(dart_allocator_free(&g, o->alloc));
    TEST_OK(dart_allocator_destroy(&o->alloc));
    break;
  case O_LOCK:
    TEST_OK(dart_lock_acquire(o->lock));
    TEST_OK(dart_lock_release(o->lock));
    TEST_OK(dart_barrier(DART_TEAM_ALL));
    TEST_OK(dart_team_lock_destroy(&o->lock));
    break;
  default: break;
  }
}

static void fresh(obj_t *o)
{
  memset(o, 0, sizeof *o);
  o->team = DART_TEAM_NULL;
  o->gptr = DART_GPTR_NULL;
  o->lock = DART_LOCK_NULL;
  o->alloc = NULL;
}

/* The team's heaps are in step: a new small allocation has the same
 * layout on every unit (ring put, own get). */
static void check_heaps(const entry_t *e)
{
  dart_gptr_t g;
  long v = 500 + me, x = -1;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, N, DART_TYPE_LONG, &g));
  g.unitid = (me + 1) % n;
  g.addr_or_offs.offset = sizeof(long);
  TEST_OK(dart_put_blocking(g, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  g.unitid = me;
  TEST_OK(dart_get_blocking(&x, g, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  TEST_CHECK_MSG(x == 500 + (me + n - 1) % n,
                 "%s: an allocation after it reads %ld", e->func, x);
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_team_memfree(g));
}

/* A release with a bad argument on unit bad (rule R_SELF). */
static void release_round(const entry_t *e, int bad, obj_t *o)
{
  e->prepare(o);
  int lines = 0;
  bool named = false;
  int r = run_logged(e, me == bad, o, &lines, &named);
  int want = expected(e, bad);
  TEST_CHECK_MSG(r == want, "%s (%s bad on unit %d) returned %d, want %d",
                 e->func, e->what, bad, r, want);
  int want_lines = me == bad && !e->bad_ok ? 1 : 0;
  TEST_CHECK_MSG(lines == want_lines && (want_lines == 0 || named),
                 "%s (%s bad on unit %d): unit %d logged %d lines, want %d%s",
                 e->func, e->what, bad, me, lines, want_lines,
                 want_lines ? " naming the function" : "");
  check_heaps(e); /* nobody reuses what the bad unit still holds */
  if (me == bad) TEST_OK(e->redo(o));
  check_heaps(e); /* and its late release is collected */
  fresh(o);
  e->prepare(o);
  TEST_OK(e->call(false, o));
  check_heaps(e);
}

static void one_round(const entry_t *e, int bad)
{
  static obj_t o;
  current = e;
  current_bad = bad;
  alarm(DEADLINE);
  fresh(&o);
  if (e->rule == R_SELF) {
    release_round(e, bad, &o);
    alarm(0);
    return;
  }
  int lines = 0;
  bool named = false;
  int r = run_logged(e, me == bad, &o, &lines, &named);
  int want = expected(e, bad);
  TEST_CHECK_MSG(r == want, "%s (%s bad on unit %d) returned %d, want %d",
                 e->func, e->what, bad, r, want);
  if (me == bad)
    TEST_CHECK_MSG(lines == 1 && named,
                   "%s (%s): the bad unit logged %d lines%s, want 1 naming "
                   "the function",
                   e->func, e->what, lines, named ? "" : " (none named it)");
  else
    TEST_CHECK_MSG(lines <= 1, "%s (%s): unit %d logged %d lines", e->func,
                   e->what, me, lines);
  if (r != DART_OK)
    TEST_CHECK_MSG(empty(e, &o), "%s failed but left an object", e->func);
  else if (e->data_ok != NULL)
    TEST_CHECK_MSG(e->data_ok(&o), "%s: wrong data on unit %d", e->func, me);
  /* the next collective calls work */
  long one = me + 1, sum = 0;
  TEST_OK(dart_allreduce(&one, &sum, 1, DART_TYPE_LONG, DART_OP_SUM,
                         DART_TEAM_ALL));
  TEST_CHECK(sum == (long)n * (n + 1) / 2);
  fresh(&o);
  TEST_OK(e->call(false, &o));
  if (e->data_ok != NULL)
    TEST_CHECK_MSG(e->data_ok(&o), "%s: wrong data after", e->func);
  use_and_release(e, &o);
  alarm(0);
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t id;
  size_t size;
  TEST_OK(dart_myid(&id));
  TEST_OK(dart_size(&size));
  me = id.id;
  n = (int)size;
  if (n > MAXU) {
    dart_exit();
    return 77;
  }
  signal(SIGALRM, on_alarm);
  /* an argument restricts the run to the entries whose function contains it */
  const char *only = argc > 1 ? argv[1] : NULL;
  for (int i = 0; i < NENTRIES; i++)
    for (int bad = 0; bad < n; bad++)
      if (only == NULL || strstr(table[i].func, only) != NULL)
        one_round(&table[i], bad);
  TEST_OK(dart_exit());
  if (me == 0) printf("onebad: %d entries x %d bad units ok\n", NENTRIES, n);
  return 0;
}
