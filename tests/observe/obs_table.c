/*
 * The statistics' inline table (src/base/dart_observe.h) under collisions
 * and from two threads: with DART_STATS on, every unit counts through the
 * internal hooks directly (no communication), to 200 made-up target ids,
 * so that the ids 64 apart share an entry and evict each other on every
 * pass. check_table.py then asserts the exact totals and matrix row.
 *
 *   main thread: 3 passes, put on the MPI path to ids 0..199, id + 1 bytes
 *   second thread: 2 passes, get on the shm path to ids 0..99, 2 bytes
 *
 * usage: test_obs_table <stats file>
 */
#include <dash/dart/if/dart.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "dart_observe.h"

enum { IDS = 200, PASSES = 3, T_IDS = 100, T_PASSES = 2 };

static void *second(void *arg)
{
  (void)arg;
  for (int p = 0; p < T_PASSES; p++)
    for (int u = 0; u < T_IDS; u++)
      DART__OBS_OP(DART__OBS_GET, DART__OBS_SHM, u, 2);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: test_obs_table <stats file>\n");
    return 2;
  }
  setenv("DART_STATS", argv[1], 1);
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  if (!dart__obs.on) {
    fprintf(stderr, "FAIL: DART_STATS=%s did not turn statistics on\n",
            argv[1]);
    return 1;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, second, NULL) != 0) return 1;
  for (int p = 0; p < PASSES; p++)
    for (int u = 0; u < IDS; u++)
      DART__OBS_OP(DART__OBS_PUT, DART__OBS_MPI, u, (size_t)u + 1);
  pthread_join(t, NULL);
  return dart_exit() == DART_OK ? 0 : 1;
}
