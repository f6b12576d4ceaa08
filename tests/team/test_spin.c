/*
 * DART_SPIN_COUNT: the polls before a wait yields. -1 (the default) gives
 * 200 where this unit's node has a CPU per unit of the job and 0 where
 * units outnumber its CPUs; any other value is taken as it is (the test
 * runs with DART_SPIN_COUNT unset and set to 7 and 0). Then a barrier and a
 * small allreduce still complete with every value (the waits use it).
 */
#include <stdlib.h>
#include <unistd.h>

#include "dart_mpi.h"
#include "dart_test.h"
#include "transport/wait.h"

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  const char *env = getenv("DART_SPIN_COUNT");
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  long units = dart__g.real_node_units;
  uint64_t want = env != NULL && atol(env) >= 0
                      ? (uint64_t)atol(env)
                      : (cpus > 0 && units > 0 && units <= cpus ? 200 : 0);
  TEST_CHECK_MSG(dart__wait_spins() == want,
                 "DART_SPIN_COUNT=%s, %ld units on %ld CPUs: %llu spins, "
                 "want %llu",
                 env != NULL ? env : "(unset)", units, cpus,
                 (unsigned long long)dart__wait_spins(),
                 (unsigned long long)want);
  dart_global_unit_t me;
  size_t n;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&n));
  for (int r = 0; r < 200; r++) {
    long v = me.id + r, sum = 0;
    TEST_OK(dart_allreduce(&v, &sum, 1, DART_TYPE_LONG, DART_OP_SUM,
                           DART_TEAM_ALL));
    TEST_CHECK(sum == (long)(n * (n - 1) / 2) + (long)n * r);
    TEST_OK(dart_barrier(DART_TEAM_ALL));
  }
  TEST_OK(dart_exit());
  if (me.id == 0)
    printf("test_spin: %llu spins ok\n", (unsigned long long)want);
  return 0;
}
