/*
 * A unit forks a child that calls exit(0) without exec (a popen-like
 * helper). The child inherits DART's exit guard but is no unit: it must
 * end quietly with code 0, and the job must carry on and finish normally.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dash/dart/if/dart_communication.h>

#include "dart_test.h"

/* LeakSanitizer (sanitizer job) asks this before its check at exit: a
 * forked child never finalizes MPI, so what MPI holds is no leak there. */
static volatile int in_child;
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
  return in_child;
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t n = 0;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&n));
  /* Every unit forks once; unit 0 twice (the second child exits 3). */
  for (int k = 0; k < (me.id == 0 ? 2 : 1); k++) {
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    TEST_CHECK(child >= 0);
    if (child == 0) {
      in_child = 1;
      exit(k == 0 ? 0 : 3);
    }
    int status = -1;
    TEST_CHECK(waitpid(child, &status, 0) == child);
    TEST_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == (k ? 3 : 0),
                   "child status 0x%x", status);
  }
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  long mine = me.id + 1, sum = 0;
  TEST_OK(dart_allreduce(&mine, &sum, 1, DART_TYPE_LONG, DART_OP_SUM,
                         DART_TEAM_ALL));
  TEST_CHECK_MSG(sum == (long)(n * (n + 1) / 2), "sum %ld", sum);
  TEST_OK(dart_exit());
  if (me.id == 0) printf("test_fork_exit: OK (%zu units)\n", n);
  return 0;
}
