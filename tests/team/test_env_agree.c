/*
 * Settings units must agree on (issue 36, item 1; docs/env.md), launched
 * MPMD with a variable set differently per unit (mpmd_env.sh):
 *
 *   test_env_agree NAME EXPECT
 *
 * EXPECT is the value every unit must end up with ("FAIL": dart_init must
 * return DART_ERR_INVAL on every unit). Each unit checks the effective
 * value of NAME (white-box: dart__env), then what the variable does:
 * DART_LOCK_TAIL a locked counter keeps every update (on the second lock
 * of the team: the first has its tail on unit 0 either way), DART_TRACE /
 * DART_STATS unit 0 finds every unit's events in the file after dart_exit,
 * the others some collectives and one-sided calls. The wrapper checks that
 * every unit printed its mismatch line and that nobody hung.
 */
#include <dash/dart/if/dart.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_env.h"
#include "dart_test.h"

enum { ITERS = 300 };

static int me, nunits;

static const char *fmt_str(const char *v, char *buf, size_t len)
{
  (void)buf, (void)len;
  return v;
}
static const char *fmt_int(int v, char *buf, size_t len)
{
  snprintf(buf, len, "%d", v);
  return buf;
}
static const char *fmt_long(long v, char *buf, size_t len)
{
  snprintf(buf, len, "%ld", v);
  return buf;
}
static const char *fmt_size(size_t v, char *buf, size_t len)
{
  snprintf(buf, len, "%zu", v);
  return buf;
}

/* The effective value of NAME as text, NULL if no such variable. */
static const char *effective(const char *name, char *buf, size_t len)
{
#define ENV_CASE(NAME, kind, ctype, field, ...)                                \
  if (strcmp(name, #NAME) == 0)                                                \
    return _Generic(dart__env.field,                                           \
                    const char *: fmt_str,                                     \
                    int: fmt_int,                                              \
                    long: fmt_long,                                            \
                    size_t: fmt_size)(dart__env.field, buf, len);
  DART__ENV_TABLE(ENV_CASE)
#undef ENV_CASE
  return NULL;
}

/* Every unit adds 1 to a counter on unit 0, ITERS times, under the lock. */
static void locked_counter(void)
{
  dart_lock_t first, lock;
  TEST_OK(dart_team_lock_init(DART_TEAM_ALL, &first));
  TEST_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG, &g));
  dart_gptr_t c = g;
  TEST_OK(dart_gptr_setunit(&c, (dart_team_unit_t){0}));
  long zero = 0;
  if (me == 0)
    TEST_OK(dart_put_blocking(c, &zero, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  for (int i = 0; i < ITERS; i++) {
    long v = 0;
    TEST_OK(dart_lock_acquire(lock));
    TEST_OK(dart_get_blocking(&v, c, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    v++;
    TEST_OK(dart_put_blocking(c, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    TEST_OK(dart_lock_release(lock));
  }
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  long v = 0;
  TEST_OK(dart_get_blocking(&v, c, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  TEST_CHECK_MSG(v == (long)ITERS * nunits,
                 "locked counter %ld, expected %ld: updates lost", v,
                 (long)ITERS * nunits);
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_team_lock_destroy(&lock));
  TEST_OK(dart_team_lock_destroy(&first));
}

/* Collectives, two-sided and one-sided calls (events for trace/stats). */
static void some_work(void)
{
  long x = me, sum = 0;
  TEST_OK(
      dart_allreduce(&x, &sum, 1, DART_TYPE_LONG, DART_OP_SUM, DART_TEAM_ALL));
  TEST_CHECK(sum == (long)nunits * (nunits - 1) / 2);
  TEST_OK(
      dart_bcast(&x, 1, DART_TYPE_LONG, (dart_team_unit_t){0}, DART_TEAM_ALL));
  TEST_CHECK(x == 0);
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG, &g));
  dart_gptr_t t = g;
  TEST_OK(dart_gptr_setunit(&t, (dart_team_unit_t){(me + 1) % nunits}));
  long v = me;
  TEST_OK(dart_put_blocking(t, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_team_memfree(g));
}

/* Unit 0 after dart_exit: the file names every unit (pattern %d). */
static void check_file(const char *path, const char *pattern)
{
  FILE *f = fopen(path, "r");
  TEST_CHECK_MSG(f != NULL, "%s was not written", path);
  static char text[1 << 22];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  for (int u = 0; u < nunits; u++) {
    char key[64];
    snprintf(key, sizeof key, pattern, u);
    TEST_CHECK_MSG(strstr(text, key) != NULL, "%s lacks %s", path, key);
  }
  printf("test_env_agree: %s has every unit's data\n", path);
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: test_env_agree NAME EXPECT\n");
    return 2;
  }
  const char *name = argv[1], *expect = argv[2];
  int ret = dart_init(&argc, &argv);
  if (strcmp(expect, "FAIL") == 0) {
    TEST_CHECK_MSG(ret == DART_ERR_INVAL, "dart_init returned %d", ret);
    printf("test_env_agree: dart_init failed as documented\n");
    return 0;
  }
  TEST_OK(ret);
  dart_global_unit_t id;
  size_t sz;
  TEST_OK(dart_myid(&id));
  TEST_OK(dart_size(&sz));
  me = id.id;
  nunits = (int)sz;
  char buf[64];
  const char *got = effective(name, buf, sizeof buf);
  TEST_CHECK_MSG(got != NULL, "no variable %s", name);
  TEST_CHECK_MSG(strcmp(got, expect) == 0, "%s is '%s' here, expected '%s'",
                 name, got, expect);
  if (strcmp(name, "DART_LOCK_TAIL") == 0) locked_counter();
  some_work();
  TEST_OK(dart_exit());
  if (me == 0 && expect[0] != '\0' && strcmp(expect, "0") != 0) {
    if (strcmp(name, "DART_TRACE") == 0)
      check_file(expect, "\"pid\":%d,\"tid\"");
    if (strcmp(name, "DART_STATS") == 0) check_file(expect, "{\"unit\":%d,");
  }
  if (me == 0) printf("test_env_agree: %s OK (%d units)\n", name, nunits);
  return 0;
}
