/*
 * Layout and constant checks of the public DART headers, compiled as C.
 *
 * Needs only the headers (no DART library, no MPI). Compile-time facts are
 * checked with static assertions, everything else at run time. Every failed
 * run-time check is reported on stdout and makes the program exit non-zero.
 * The sizes of the locality structs are printed as "SIZE <name> <bytes>" so
 * that check_headers.sh can compare them with the C++ build.
 */
#include <stdint.h>
typedef int64_t hid_t; /* dart_io.h expects the includer to provide hid_t */

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>
#include <dash/dart/if/dart_io.h>
#include <dash/dart/if/dart_util.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define STATIC_CHECK(cond) _Static_assert(cond, #cond)

/* ---- global pointer layout ---------------------------------------------- */
STATIC_CHECK(sizeof(dart_gptr_t) == 16);
STATIC_CHECK(_Alignof(dart_gptr_t) == 8);
STATIC_CHECK(offsetof(dart_gptr_t, segid) == 4);
STATIC_CHECK(offsetof(dart_gptr_t, teamid) == 6);
STATIC_CHECK(offsetof(dart_gptr_t, addr_or_offs) == 8);
STATIC_CHECK(sizeof(((dart_gptr_t *)0)->addr_or_offs) == 8);

/* ---- unit ids ------------------------------------------------------------ */
STATIC_CHECK(sizeof(dart_unit_t) == 4);
STATIC_CHECK(sizeof(dart_global_unit_t) == 4);
STATIC_CHECK(sizeof(dart_team_unit_t) == 4);
STATIC_CHECK(DART_UNDEFINED_UNIT_ID == -1);
STATIC_CHECK(sizeof(dart_team_t) == 2);

/* ---- return codes -------------------------------------------------------- */
STATIC_CHECK(DART_OK == 0);
STATIC_CHECK(DART_PENDING == 1);
STATIC_CHECK(DART_ERR_INVAL == 2);
STATIC_CHECK(DART_ERR_NOTFOUND == 3);
STATIC_CHECK(DART_ERR_NOTINIT == 4);
STATIC_CHECK(DART_ERR_NOMEM == 5);
STATIC_CHECK(DART_ERR_OTHER == 999);
STATIC_CHECK(DART_EXIT_SUCCESS == EXIT_SUCCESS);
STATIC_CHECK(DART_EXIT_ABORT == EXIT_FAILURE);
STATIC_CHECK(DART_EXIT_ASSERT == -6);

/* ---- operations ---------------------------------------------------------- */
STATIC_CHECK(DART_OP_UNDEFINED == 0);
STATIC_CHECK(DART_OP_MIN == 1);
STATIC_CHECK(DART_OP_MAX == 2);
STATIC_CHECK(DART_OP_MINMAX == 3);
STATIC_CHECK(DART_OP_SUM == 4);
STATIC_CHECK(DART_OP_PROD == 5);
STATIC_CHECK(DART_OP_BAND == 6);
STATIC_CHECK(DART_OP_LAND == 7);
STATIC_CHECK(DART_OP_BOR == 8);
STATIC_CHECK(DART_OP_LOR == 9);
STATIC_CHECK(DART_OP_BXOR == 10);
STATIC_CHECK(DART_OP_LXOR == 11);
STATIC_CHECK(DART_OP_REPLACE == 12);
STATIC_CHECK(DART_OP_NO_OP == 13);
STATIC_CHECK(DART_OP_LAST == 14);
STATIC_CHECK(DART_OP_MINMAX_MIN == 0);
STATIC_CHECK(DART_OP_MINMAX_MAX == 1);
STATIC_CHECK(sizeof(dart_operation_t) == sizeof(uintptr_t));
STATIC_CHECK((dart_operation_t)-1 > 0); /* unsigned */

/* ---- datatypes ----------------------------------------------------------- */
STATIC_CHECK(sizeof(dart_datatype_t) == sizeof(intptr_t));
STATIC_CHECK((dart_datatype_t)-1 < 0); /* signed */
STATIC_CHECK(DART_TYPE_UNDEFINED == 0);
STATIC_CHECK(DART_TYPE_BYTE == 1);
STATIC_CHECK(DART_TYPE_SHORT == 2);
STATIC_CHECK(DART_TYPE_INT == 3);
STATIC_CHECK(DART_TYPE_UINT == 4);
STATIC_CHECK(DART_TYPE_LONG == 5);
STATIC_CHECK(DART_TYPE_ULONG == 6);
STATIC_CHECK(DART_TYPE_LONGLONG == 7);
STATIC_CHECK(DART_TYPE_ULONGLONG == 8);
STATIC_CHECK(DART_TYPE_FLOAT == 9);
STATIC_CHECK(DART_TYPE_DOUBLE == 10);
STATIC_CHECK(DART_TYPE_LONG_DOUBLE == 11);
STATIC_CHECK(DART_TYPE_LAST == 12);
STATIC_CHECK(sizeof(size_t) == 8 ? DART_TYPE_SIZET == DART_TYPE_ULONGLONG
                                 : DART_TYPE_SIZET == DART_TYPE_ULONG);

/* ---- teams, segments, thread levels -------------------------------------- */
STATIC_CHECK(DART_TEAM_ALL == 0);
STATIC_CHECK(DART_TEAM_NULL == -1);
STATIC_CHECK(DART_UNDEFINED_TEAM_ID == -1);
STATIC_CHECK(DART_SEGMENT_LOCAL == 0);
STATIC_CHECK(DART_THREAD_SINGLE == 0);
STATIC_CHECK(DART_THREAD_MULTIPLE == 10);

/* ---- locality ------------------------------------------------------------ */
STATIC_CHECK(DART_LOCALITY_SCOPE_UNDEFINED == -1);
STATIC_CHECK(DART_LOCALITY_SCOPE_GLOBAL == 0);
STATIC_CHECK(DART_LOCALITY_SCOPE_GROUP == 1);
STATIC_CHECK(DART_LOCALITY_SCOPE_NETWORK == 50);
STATIC_CHECK(DART_LOCALITY_SCOPE_NODE == 100);
STATIC_CHECK(DART_LOCALITY_SCOPE_MODULE == 200);
STATIC_CHECK(DART_LOCALITY_SCOPE_NUMA == 300);
STATIC_CHECK(DART_LOCALITY_SCOPE_UNIT == 400);
STATIC_CHECK(DART_LOCALITY_SCOPE_PACKAGE == 500);
STATIC_CHECK(DART_LOCALITY_SCOPE_UNCORE == 510);
STATIC_CHECK(DART_LOCALITY_SCOPE_CACHE == 530);
STATIC_CHECK(DART_LOCALITY_SCOPE_CORE == 550);
STATIC_CHECK(DART_LOCALITY_SCOPE_CPU == 600);
STATIC_CHECK(DART_LOCALITY_HOST_MAX_SIZE == 64);
#include "locality_abi.inc"
STATIC_CHECK(DART_LOCALITY_DOMAIN_TAG_MAX_SIZE == 32);
STATIC_CHECK(DART_LOCALITY_MAX_DOMAIN_SCOPES == 12);
STATIC_CHECK(DART_LOCALITY_UNIT_MAX_CPUS == 64);
STATIC_CHECK(DART_LOCALITY_MAX_NUMA_ID == 16);
STATIC_CHECK(DART_LOCALITY_MAX_CACHE_LEVELS == 5);

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("FAIL (C, line %d): %s\n", __LINE__, #cond);                      \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static int is_null(dart_gptr_t g)
{
  return DART_GPTR_ISNULL(g);
}

static int equal(dart_gptr_t a, dart_gptr_t b)
{
  return DART_GPTR_EQUAL(a, b);
}

static void check_gptr_null(void)
{
  static const unsigned char expected[16] = {0xff, 0xff, 0xff, 0x00, 0x00, 0x00,
                                             0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
                                             0x00, 0x00, 0x00, 0x00};
  dart_gptr_t g = DART_GPTR_NULL;
  unsigned char bytes[16];
  memcpy(bytes, &g, sizeof(bytes));
  CHECK(memcmp(bytes, expected, sizeof(bytes)) == 0);
  CHECK(g.unitid == -1);
  CHECK(g.flags == 0);
  CHECK(g.segid == 0);
  CHECK(g.teamid == DART_TEAM_NULL);
  CHECK(g.addr_or_offs.offset == 0);
  CHECK(g.addr_or_offs.addr == NULL);
}

static void check_gptr_isnull(void)
{
  dart_gptr_t g = DART_GPTR_NULL;
  CHECK(is_null(g));
  CHECK(DART_GPTR_ISNULL(DART_GPTR_NULL));

  g.flags = 0xab; /* flags are ignored */
  CHECK(is_null(g));

  g = DART_GPTR_NULL;
  g.unitid = 0;
  CHECK(!is_null(g));
  g = DART_GPTR_NULL;
  g.unitid = 7;
  CHECK(!is_null(g));
  g = DART_GPTR_NULL;
  g.segid = 1;
  CHECK(!is_null(g));
  g = DART_GPTR_NULL;
  g.segid = -1;
  CHECK(!is_null(g));
  g = DART_GPTR_NULL;
  g.teamid = DART_TEAM_ALL;
  CHECK(!is_null(g));
  g = DART_GPTR_NULL;
  g.addr_or_offs.offset = 1;
  CHECK(!is_null(g));
  g = DART_GPTR_NULL;
  g.addr_or_offs.offset = UINT64_C(1) << 63;
  CHECK(!is_null(g));
}

static void check_gptr_equal(void)
{
  dart_gptr_t a = DART_GPTR_NULL;
  dart_gptr_t b = DART_GPTR_NULL;
  CHECK(equal(a, b));
  CHECK(DART_GPTR_EQUAL(DART_GPTR_NULL, DART_GPTR_NULL));

  a.unitid = 3;
  a.segid = 2;
  a.teamid = 1;
  a.addr_or_offs.offset = 4096;
  b = a;
  CHECK(equal(a, b));
  b.flags = 0x5a; /* flags are ignored */
  CHECK(equal(a, b));

  b = a;
  b.unitid = 4;
  CHECK(!equal(a, b));
  b = a;
  b.segid = 3;
  CHECK(!equal(a, b));
  b = a;
  b.teamid = 2;
  CHECK(!equal(a, b));
  b = a;
  b.addr_or_offs.offset = 4097;
  CHECK(!equal(a, b));
}

static void check_gptr_helpers(void)
{
  dart_gptr_t g = DART_GPTR_NULL;
  g.unitid = 5;
  g.flags = 3;
  g.segid = 9;
  g.teamid = 2;
  g.addr_or_offs.offset = 100;

  CHECK(dart_gptr_incaddr(&g, 28) == DART_OK);
  CHECK(g.addr_or_offs.offset == 128);
  CHECK(dart_gptr_incaddr(&g, -40) == DART_OK);
  CHECK(g.addr_or_offs.offset == 88);
  CHECK(dart_gptr_incaddr(&g, -88) == DART_OK);
  CHECK(g.addr_or_offs.offset == 0);
  CHECK(dart_gptr_incaddr(&g, -1) == DART_OK);
  CHECK(g.addr_or_offs.offset == UINT64_MAX);
  CHECK(dart_gptr_incaddr(&g, 1) == DART_OK);
  CHECK(g.addr_or_offs.offset == 0);
  CHECK(dart_gptr_incaddr(&g, INT64_MIN) == DART_OK);
  CHECK(g.addr_or_offs.offset == (UINT64_C(1) << 63));
  CHECK(g.unitid == 5 && g.flags == 3 && g.segid == 9 && g.teamid == 2);

  g.addr_or_offs.offset = 64;
  CHECK(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID(42)) == DART_OK);
  CHECK(g.unitid == 42);
  CHECK(dart_gptr_setunit(&g, dart_create_team_unit(0)) == DART_OK);
  CHECK(g.unitid == 0);
  CHECK(dart_gptr_setunit(&g, dart_create_team_unit((1 << 23) - 1)) == DART_OK);
  CHECK(g.unitid == (1 << 23) - 1);
  CHECK(dart_gptr_setunit(&g, DART_UNDEFINED_TEAM_UNIT_ID) == DART_OK);
  CHECK(g.unitid == -1);
  CHECK(g.flags == 3 && g.segid == 9 && g.teamid == 2);
  CHECK(g.addr_or_offs.offset == 64);
}

static void check_units_and_handles(void)
{
  dart_team_unit_t tu = DART_TEAM_UNIT_ID(3);
  dart_global_unit_t gu = DART_GLOBAL_UNIT_ID(4);
  CHECK(tu.id == 3);
  CHECK(gu.id == 4);
  CHECK(DART_UNDEFINED_TEAM_UNIT_ID.id == -1);
  CHECK(DART_UNDEFINED_GLOBAL_UNIT_ID.id == -1);
  CHECK(dart_create_global_unit(9).id == 9);

  CHECK(DART_HANDLE_NULL == NULL);
  CHECK(DART_LOCK_NULL == NULL);
  CHECK(DART_GROUP_NULL == NULL);
  {
    dart_handle_t h = DART_HANDLE_NULL;
    dart_lock_t l = DART_LOCK_NULL;
    dart_group_t g = DART_GROUP_NULL;
    CHECK(h == NULL && l == NULL && g == NULL);
  }
  CHECK(strcmp(DART_VERSION_STR, "3.2.0") == 0);
  CHECK(strlen(DART_BUILD_STR) > 0);
}

int main(void)
{
  check_gptr_null();
  check_gptr_isnull();
  check_gptr_equal();
  check_gptr_helpers();
  check_units_and_handles();

  printf("SIZE dart_hwinfo_t %zu\n", sizeof(dart_hwinfo_t));
  printf("SIZE dart_unit_locality_t %zu\n", sizeof(dart_unit_locality_t));
  printf("SIZE dart_domain_locality_t %zu\n", sizeof(dart_domain_locality_t));
  printf("SIZE dart_module_location_t %zu\n", sizeof(dart_module_location_t));
#ifdef HOST_NAME_MAX
  printf("INFO HOST_NAME_MAX is defined (%d) in this C translation unit\n",
         (int)HOST_NAME_MAX);
#else
  printf("INFO HOST_NAME_MAX is not defined in this C translation unit\n");
#endif

  if (failures != 0) {
    printf("layout_check (C): %d check(s) failed\n", failures);
    return 1;
  }
  printf("layout_check (C): all checks passed\n");
  return 0;
}
