// Out-of-tree C++ consumer: the headers work from C++ as DASH uses them.
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#include <cstdio>
#include <type_traits>

struct Ptr {
  dart_gptr_t g = DART_GPTR_NULL;
  constexpr Ptr() {}
};

int main(int argc, char **argv)
{
  static_assert(
      std::integral_constant<dart_datatype_t, DART_TYPE_INT>::value == 3, "");
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  dart_team_unit_t me = 0;
  if (dart_team_myid(DART_TEAM_ALL, &me) != DART_OK) return 1;
  Ptr p;
  if (!DART_GPTR_ISNULL(p.g)) return 1;
  dart_barrier(DART_TEAM_ALL);
  if (me.id == 0) std::printf("consumer (C++): ok\n");
  return dart_exit() == DART_OK ? 0 : 1;
}
