/* Out-of-tree consumer: builds against an installed DART and runs. */
#include <dash/dart/if/dart.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  dart_global_unit_t me;
  size_t n;
  dart_myid(&me);
  dart_size(&n);
  if (dart_barrier(DART_TEAM_ALL) != DART_OK) return 1;
  if (me.id == 0)
    printf("consumer (C): %zu units, DART %s\n", n, DART_VERSION_STR);
  return dart_exit() == DART_OK ? 0 : 1;
}
