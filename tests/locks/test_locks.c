/*
 * Team locks through the public API: mutual exclusion (non-atomic
 * read-modify-write of a shared counter inside the lock), try-acquire,
 * recursion and ownership errors, 100 locks per team, locks on sub-teams,
 * destroy after team destroy and after dart_exit, threads of one unit.
 */
#include <pthread.h>
#include <string.h>

#include "../coll/coll_teams.h"

#define ITER 40

/* Counter on team unit 0 of a fresh allocation; returns its gptr. */
static dart_gptr_t counter_alloc(dart_team_t team, int me)
{
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(team, 2, DART_TYPE_LONG, &g));
  long zero[2] = {0, 0};
  g.unitid = me;
  TEST_OK(dart_put_blocking(g, zero, 2, DART_TYPE_LONG, DART_TYPE_LONG));
  g.unitid = 0;
  TEST_OK(dart_barrier(team));
  return g;
}

/*
 * One critical section: a non-atomic increment of counter[0] (get, add,
 * put) and an atomic check that nobody else is inside (counter[1]).
 */
static void critical_section(dart_gptr_t g)
{
  dart_gptr_t inside = g;
  inside.addr_or_offs.offset += sizeof(long);
  long one = 1, minus = -1, before = -1, v = 0;
  TEST_OK(
      dart_fetch_and_op(inside, &one, &before, DART_TYPE_LONG, DART_OP_SUM));
  TEST_OK(dart_flush(inside));
  TEST_CHECK_MSG(before == 0, "%ld units inside the critical section",
                 before + 1);
  TEST_OK(dart_get_blocking(&v, g, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  v++;
  TEST_OK(dart_put_blocking(g, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  TEST_OK(
      dart_fetch_and_op(inside, &minus, &before, DART_TYPE_LONG, DART_OP_SUM));
  TEST_OK(dart_flush(inside));
}

static long counter_read(dart_gptr_t g)
{
  long v = -1;
  TEST_OK(dart_get_blocking(&v, g, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  return v;
}

static void test_mutex(const coll_team_t *t)
{
  dart_lock_t lock = DART_LOCK_NULL;
  TEST_CHECK(!dart_lock_initialized(lock));
  TEST_OK(dart_team_lock_init(t->id, &lock));
  TEST_CHECK(lock != DART_LOCK_NULL && dart_lock_initialized(lock));
  dart_gptr_t g = counter_alloc(t->id, t->me);
  for (int i = 0; i < ITER; i++) {
    TEST_OK(dart_lock_acquire(lock));
    critical_section(g);
    TEST_OK(dart_lock_release(lock));
  }
  TEST_OK(dart_barrier(t->id));
  TEST_CHECK_MSG(counter_read(g) == (long)t->size * ITER, "team %s: %ld",
                 t->name, counter_read(g));
  TEST_OK(dart_barrier(t->id));
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_team_lock_destroy(&lock));
  TEST_CHECK(lock == DART_LOCK_NULL);
}

static void test_try_and_errors(const coll_team_t *t)
{
  dart_lock_t lock;
  int32_t got = -1;
  TEST_OK(dart_team_lock_init(t->id, &lock));
  if (t->me == 0) {
    TEST_OK(dart_lock_acquire(lock));
    TEST_EQ_RET(dart_lock_acquire(lock), DART_ERR_INVAL); /* not recursive */
    TEST_EQ_RET(dart_lock_try_acquire(lock, &got), DART_ERR_INVAL);
    TEST_CHECK(got == 1);
  }
  TEST_OK(dart_barrier(t->id));
  if (t->me != 0) {
    TEST_OK(dart_lock_try_acquire(lock, &got));
    TEST_CHECK(got == 0);
    TEST_EQ_RET(dart_lock_release(lock), DART_ERR_INVAL); /* not held */
  }
  TEST_OK(dart_barrier(t->id));
  if (t->me == 0) TEST_OK(dart_lock_release(lock));
  TEST_OK(dart_barrier(t->id));
  if (t->me == t->size - 1) {
    TEST_OK(dart_lock_try_acquire(lock, &got));
    TEST_CHECK(got == 1);
  }
  TEST_OK(dart_barrier(t->id));
  if (t->me == t->size - 1) {
    TEST_OK(dart_lock_release(lock));
  } else {
    /* free again: some try eventually succeeds */
    for (got = 0; !got;) TEST_OK(dart_lock_try_acquire(lock, &got));
    TEST_OK(dart_lock_release(lock));
  }
  TEST_EQ_RET(dart_lock_release(lock), DART_ERR_INVAL);
  TEST_OK(dart_barrier(t->id));
  TEST_OK(dart_team_lock_destroy(&lock));
}

/* 100 locks, every unit takes each of them, in a unit-specific order. */
static void test_many(const coll_team_t *t)
{
  enum { NL = 100 };
  dart_lock_t locks[NL];
  for (int i = 0; i < NL; i++) TEST_OK(dart_team_lock_init(t->id, &locks[i]));
  dart_gptr_t g = counter_alloc(t->id, t->me);
  for (int k = 0; k < NL; k++) {
    dart_lock_t l = locks[(k * 7 + t->me * 13) % NL];
    TEST_OK(dart_lock_acquire(l));
    TEST_OK(dart_lock_release(l));
  }
  /* two locks held at once (always in the same order: no deadlock) */
  for (int i = 0; i < 5; i++) {
    TEST_OK(dart_lock_acquire(locks[3]));
    TEST_OK(dart_lock_acquire(locks[97]));
    critical_section(g);
    TEST_OK(dart_lock_release(locks[97]));
    TEST_OK(dart_lock_release(locks[3]));
  }
  TEST_OK(dart_barrier(t->id));
  TEST_CHECK(counter_read(g) == 5L * t->size);
  TEST_OK(dart_barrier(t->id));
  TEST_OK(dart_team_memfree(g));
  for (int i = 0; i < NL; i++) TEST_OK(dart_team_lock_destroy(&locks[i]));
}

/* Threads of one unit are serialised by the lock as well. */
typedef struct {
  dart_lock_t lock;
  dart_gptr_t g;
} thr_arg_t;

static void *thr_main(void *p)
{
  thr_arg_t *a = p;
  for (int i = 0; i < ITER / 2; i++) {
    TEST_OK(dart_lock_acquire(a->lock));
    critical_section(a->g);
    TEST_OK(dart_lock_release(a->lock));
  }
  return NULL;
}

static void test_threads(const coll_team_t *t)
{
  thr_arg_t a;
  TEST_OK(dart_team_lock_init(t->id, &a.lock));
  a.g = counter_alloc(t->id, t->me);
  pthread_t th[2];
  for (int i = 0; i < 2; i++)
    TEST_CHECK(pthread_create(&th[i], NULL, thr_main, &a) == 0);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  TEST_OK(dart_barrier(t->id));
  TEST_CHECK(counter_read(a.g) == (long)t->size * 2 * (ITER / 2));
  TEST_OK(dart_barrier(t->id));
  TEST_OK(dart_team_memfree(a.g));
  TEST_OK(dart_team_lock_destroy(&a.lock));
}

static void test_bad_input(void)
{
  dart_lock_t lock = (dart_lock_t)0x1;
  int32_t r = 5;
  TEST_EQ_RET(dart_team_lock_init(DART_TEAM_ALL, NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_lock_init(DART_TEAM_NULL, &lock), DART_ERR_INVAL);
  TEST_CHECK(lock == DART_LOCK_NULL);
  TEST_EQ_RET(dart_team_lock_init(999, &lock), DART_ERR_INVAL);
  TEST_EQ_RET(dart_lock_acquire(NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_lock_release(NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_lock_try_acquire(NULL, &r), DART_ERR_INVAL);
  TEST_CHECK(r == 0);
  TEST_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  TEST_EQ_RET(dart_lock_try_acquire(lock, NULL), DART_ERR_INVAL);
  TEST_OK(dart_team_lock_destroy(&lock));
  TEST_OK(dart_team_lock_destroy(&lock)); /* NULL handle: no-op */
  TEST_OK(dart_team_lock_destroy(NULL));
  TEST_CHECK(!dart_lock_initialized(NULL));
}

int main(int argc, char **argv)
{
  dart_lock_t lock = (dart_lock_t)0x1;
  TEST_EQ_RET(dart_team_lock_init(DART_TEAM_ALL, &lock), DART_ERR_NOTINIT);
  TEST_CHECK(lock == DART_LOCK_NULL);
  dart_thread_support_level_t level;
  TEST_OK(dart_init_thread(&argc, &argv, &level));
  coll_team_t teams[COLL_NTEAMS];
  coll_teams_create(teams);
  for (int k = 0; k < COLL_NTEAMS; k++) {
    test_mutex(&teams[k]);
    test_try_and_errors(&teams[k]);
  }
  test_many(&teams[0]);
  test_many(&teams[2]);
  if (level == DART_THREAD_MULTIPLE) test_threads(&teams[0]);
  test_bad_input();
  /* destroy after the team is gone: only the local handle is released */
  dart_lock_t sub;
  TEST_OK(dart_team_lock_init(teams[1].id, &sub));
  coll_teams_destroy(teams);
  TEST_CHECK(!dart_lock_initialized(sub));
  TEST_EQ_RET(dart_lock_acquire(sub), DART_ERR_INVAL);
  TEST_OK(dart_team_lock_destroy(&sub));
  TEST_CHECK(sub == DART_LOCK_NULL);
  /* and after dart_exit */
  TEST_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  TEST_OK(dart_exit());
  TEST_CHECK(!dart_lock_initialized(lock));
  TEST_OK(dart_team_lock_destroy(&lock));
  TEST_CHECK(lock == DART_LOCK_NULL);
  return 0;
}
