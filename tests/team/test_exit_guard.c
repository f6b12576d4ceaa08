/*
 * A unit that returns from main without dart_exit while the others still
 * run (issue 15, item 6). Unit min(1, n - 1) returns at once; the others
 * call dart_exit and wait for it there. DART must end the job with a
 * non-zero code and one line naming the unit; run by expect_abort.sh,
 * which checks both.
 */
#include <dash/dart/if/dart.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  if (dart_init(&argc, &argv) != DART_OK) return 2;
  dart_global_unit_t me;
  size_t n;
  dart_myid(&me);
  dart_size(&n);
  int leaver = n > 1 ? 1 : 0;
  if (dart_barrier(DART_TEAM_ALL) != DART_OK) return 2;
  if (me.id == leaver) return 0; /* no dart_exit */
  dart_exit();
  /* Reached only if the job was not ended: a pass would be wrong. */
  printf("unit %d: dart_exit returned although unit %d left\n", me.id, leaver);
  return 0;
}
