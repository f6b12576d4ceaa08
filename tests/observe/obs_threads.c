/*
 * Threads that end give back their memory (issue 36, item 6): 1000
 * short-lived threads, one after the other, each make one put; under
 * DART_STATS and/or DART_TRACE the process's RSS (and, for the trace
 * buffers, its data segment) stays flat, and the statistics and trace
 * written at dart_exit still count every thread's put (check_threads.py).
 *
 * Usage: test_obs_threads (skips with 77 without MPI_THREAD_MULTIPLE).
 */
#if defined(__SANITIZE_ADDRESS__)
#define OBS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OBS_ASAN 1
#endif
#endif
#ifndef OBS_ASAN
#define OBS_ASAN 0
#endif
#include <dash/dart/if/dart.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_test.h"

enum { NTHREADS = 1000, WARM = 100 };

static dart_gptr_t seg;
static int me, nunits;

/* A field of /proc/self/status in KiB (-1 if missing). */
static long status_kib(const char *field)
{
  FILE *f = fopen("/proc/self/status", "r");
  if (f == NULL) return -1;
  char line[256];
  long v = -1;
  size_t n = strlen(field);
  while (fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, field, n) == 0 && line[n] == ':') {
      v = strtol(line + n + 1, NULL, 10);
      break;
    }
  fclose(f);
  return v;
}

static void *one_put(void *arg)
{
  int i = (int)(intptr_t)arg, v = 1000 * me + i;
  dart_gptr_t g = seg;
  dart_team_unit_t t = {(me + 1) % nunits};
  if (dart_gptr_setunit(&g, t) != DART_OK ||
      dart_gptr_incaddr(&g, (int64_t)(i * sizeof(int))) != DART_OK ||
      dart_put_blocking(g, &v, 1, DART_TYPE_INT, DART_TYPE_INT) != DART_OK)
    return (void *)1;
  return NULL;
}

int main(int argc, char **argv)
{
  dart_thread_support_level_t lvl;
  TEST_OK(dart_init_thread(&argc, &argv, &lvl));
  dart_global_unit_t id;
  size_t sz;
  TEST_OK(dart_myid(&id));
  TEST_OK(dart_size(&sz));
  me = id.id;
  nunits = (int)sz;
  if (lvl != DART_THREAD_MULTIPLE || status_kib("VmRSS") < 0) {
    if (me == 0) printf("SKIP: no MPI_THREAD_MULTIPLE or no /proc\n");
    TEST_OK(dart_exit());
    return 77;
  }
  TEST_OK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, NTHREADS, DART_TYPE_INT, &seg));
  long rss0 = 0, data0 = 0;
  for (int i = 0; i < NTHREADS; i++) {
    if (i == WARM) {
      rss0 = status_kib("VmRSS");
      data0 = status_kib("VmData");
    }
    pthread_t t;
    void *res = NULL;
    TEST_CHECK(pthread_create(&t, NULL, one_put, (void *)(intptr_t)i) == 0);
    TEST_CHECK(pthread_join(t, &res) == 0);
    TEST_CHECK_MSG(res == NULL, "thread %d: its put failed", i);
  }
  long rss = status_kib("VmRSS") - rss0, data = status_kib("VmData") - data0;
  printf("[unit %d] after %d more threads: RSS %+ld KiB, data %+ld KiB\n", me,
         NTHREADS - WARM, rss, data);
  /* kept per thread, a record of ~22 KiB (statistics) and a 2 MiB trace
   * buffer measured +8.7 MiB RSS / +19 MiB data (statistics) and +12 MiB /
   * +1.8 GiB (both) here; freed, +0 */
#if OBS_ASAN
  /* AddressSanitizer keeps freed blocks in its quarantine (256 MiB): a
   * free does not show in RSS or data there; the bounds hold in every
   * other build, the data below is checked in all */
  if (me == 0) printf("AddressSanitizer build: memory bounds not checked\n");
#else
  TEST_CHECK_MSG(rss < 3 * 1024, "RSS grew by %ld KiB", rss);
  TEST_CHECK_MSG(data < 8 * 1024, "data grew by %ld KiB", data);
#endif
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  dart_gptr_t g = seg;
  TEST_OK(dart_gptr_setunit(&g, (dart_team_unit_t){me}));
  int *mine = NULL;
  TEST_OK(dart_gptr_getaddr(g, (void **)&mine));
  int from = (me - 1 + nunits) % nunits;
  for (int i = 0; i < NTHREADS; i++)
    TEST_CHECK_MSG(mine[i] == 1000 * from + i, "element %d: %d", i, mine[i]);
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_team_memfree(seg));
  TEST_OK(dart_exit());
  return 0;
}
