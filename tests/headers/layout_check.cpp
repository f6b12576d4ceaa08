// Layout, constant and C++-usage checks of the public DART headers, compiled
// as C++ (C++11 or newer).
//
// Needs only the headers (no DART library, no MPI). Besides the layout facts
// also checked by layout_check.c, this exercises the ways DASH uses the
// interface from C++: DART_GPTR_NULL and the gptr macros in constant
// expressions, DART_TYPE_*/DART_OP_* as template arguments, and the
// constexpr, non-explicit constructors of the unit id structs. Failed
// run-time checks are reported on stdout and make the program exit non-zero.
// The sizes of the locality structs are printed as "SIZE <name> <bytes>" so
// that check_headers.sh can compare them with the C build.
#include <stdint.h>
typedef int64_t hid_t; // dart_io.h expects the includer to provide hid_t

#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>
#include <dash/dart/if/dart_io.h>
#include <dash/dart/if/dart_util.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <type_traits>

#define STATIC_CHECK(cond) static_assert(cond, #cond)

// ---- global pointer layout -------------------------------------------------
STATIC_CHECK(sizeof(dart_gptr_t) == 16);
STATIC_CHECK(alignof(dart_gptr_t) == 8);
STATIC_CHECK(offsetof(dart_gptr_t, segid) == 4);
STATIC_CHECK(offsetof(dart_gptr_t, teamid) == 6);
STATIC_CHECK(offsetof(dart_gptr_t, addr_or_offs) == 8);
STATIC_CHECK(std::is_standard_layout<dart_gptr_t>::value);
STATIC_CHECK(std::is_trivially_copyable<dart_gptr_t>::value);

// ---- unit ids
// ----------------------------------------------------------------
STATIC_CHECK(sizeof(dart_global_unit_t) == 4);
STATIC_CHECK(sizeof(dart_team_unit_t) == 4);
STATIC_CHECK(std::is_trivially_copyable<dart_team_unit_t>::value);
STATIC_CHECK(std::is_trivially_copyable<dart_global_unit_t>::value);
STATIC_CHECK(DART_UNDEFINED_UNIT_ID == -1);

// Default construction yields the undefined id.
constexpr dart_team_unit_t kDefaultTeamUnit;
constexpr dart_global_unit_t kDefaultGlobalUnit{};
STATIC_CHECK(kDefaultTeamUnit.id == -1);
STATIC_CHECK(kDefaultGlobalUnit.id == -1);

// Converting constructors are constexpr and not explicit.
STATIC_CHECK((std::is_convertible<int, dart_team_unit_t>::value));
STATIC_CHECK((std::is_convertible<int, dart_global_unit_t>::value));
constexpr int unit_value(dart_team_unit_t u)
{
  return u.id;
}
STATIC_CHECK(unit_value(0) == 0);
STATIC_CHECK(unit_value(17) == 17);
constexpr dart_global_unit_t kGlobalUnit = 5;
STATIC_CHECK(kGlobalUnit.id == 5);

// DASH derives its own unit types from the DART structs.
struct derived_team_unit : public dart_team_unit_t {
  constexpr derived_team_unit() : dart_team_unit_t() {}
  constexpr derived_team_unit(dart_unit_t u) : dart_team_unit_t(u) {}
};
constexpr derived_team_unit kDerivedDefault;
constexpr derived_team_unit kDerived(12);
STATIC_CHECK(kDerivedDefault.id == -1);
STATIC_CHECK(kDerived.id == 12);
STATIC_CHECK(unit_value(kDerived) == 12);

// A literal 0 is accepted where a DART function expects a dart_team_unit_t
// (unevaluated, so nothing needs to be linked).
STATIC_CHECK((std::is_same<decltype(dart_bcast(nullptr, 1, DART_TYPE_INT, 0,
                                               DART_TEAM_ALL)),
                           dart_ret_t>::value));
STATIC_CHECK((std::is_same<decltype(dart_send(nullptr, 1, DART_TYPE_INT, 0, 0)),
                           dart_ret_t>::value));

// ---- integral constants as template arguments
// --------------------------------
STATIC_CHECK((std::is_integral<dart_datatype_t>::value));
STATIC_CHECK((std::is_integral<dart_operation_t>::value));
STATIC_CHECK((std::is_signed<dart_datatype_t>::value));
STATIC_CHECK((std::is_unsigned<dart_operation_t>::value));
STATIC_CHECK((std::integral_constant<dart_datatype_t, DART_TYPE_INT>::value ==
              3));
STATIC_CHECK((std::integral_constant<dart_datatype_t, DART_TYPE_BYTE>::value ==
              1));
STATIC_CHECK((std::integral_constant<dart_operation_t, DART_OP_SUM>::value ==
              4));
STATIC_CHECK((std::integral_constant<dart_operation_t, DART_OP_MINMAX>::value ==
              3));
template <dart_datatype_t T> struct type_holder {
  static constexpr dart_datatype_t value = T;
};
template <dart_operation_t Op> struct op_holder {
  static constexpr dart_operation_t value = Op;
};
STATIC_CHECK(type_holder<DART_TYPE_DOUBLE>::value == 10);
STATIC_CHECK(op_holder<DART_OP_REPLACE>::value == 12);

// ---- constant values
// ---------------------------------------------------------
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

STATIC_CHECK(DART_TEAM_ALL == 0);
STATIC_CHECK(DART_TEAM_NULL == -1);
STATIC_CHECK(DART_UNDEFINED_TEAM_ID == -1);
STATIC_CHECK(
    (std::is_same<decltype(DART_TEAM_NULL), const dart_team_t>::value ||
     std::is_same<decltype(DART_TEAM_NULL), dart_team_t>::value));
STATIC_CHECK(DART_SEGMENT_LOCAL == 0);
STATIC_CHECK(DART_THREAD_SINGLE == 0);
STATIC_CHECK(DART_THREAD_MULTIPLE == 10);

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
STATIC_CHECK(std::is_trivially_copyable<dart_hwinfo_t>::value);
STATIC_CHECK(std::is_trivially_copyable<dart_unit_locality_t>::value);
STATIC_CHECK(std::is_trivially_copyable<dart_domain_locality_t>::value);

// ---- opaque handle types
// -----------------------------------------------------
STATIC_CHECK((std::is_same<std::remove_pointer<dart_handle_t>::type,
                           dart_handle_struct>::value));
STATIC_CHECK((std::is_same<std::remove_pointer<dart_lock_t>::type,
                           dart_lock_struct>::value));
STATIC_CHECK((std::is_same<std::remove_pointer<dart_group_t>::type,
                           dart_group_struct>::value));

// ---- DART_GPTR_NULL and the gptr macros in constant expressions
// -------------- A class in the style of dash::GlobPtr: constexpr constructors
// and a DART_GPTR_NULL default member initialiser.
class glob_ptr_like {
public:
  constexpr glob_ptr_like() {}
  constexpr explicit glob_ptr_like(dart_gptr_t gptr) : m_gptr(gptr) {}
  constexpr bool is_null() const { return DART_GPTR_ISNULL(m_gptr); }
  constexpr bool operator==(const glob_ptr_like &other) const
  {
    return DART_GPTR_EQUAL(m_gptr, other.m_gptr);
  }
  constexpr dart_gptr_t dart_gptr() const { return m_gptr; }

private:
  dart_gptr_t m_gptr = DART_GPTR_NULL;
};

constexpr bool gptr_is_null(dart_gptr_t g)
{
  return DART_GPTR_ISNULL(g);
}
constexpr bool gptr_equal(dart_gptr_t a, dart_gptr_t b)
{
  return DART_GPTR_EQUAL(a, b);
}

constexpr dart_gptr_t kNullGptr = DART_GPTR_NULL;
constexpr glob_ptr_like kNullGlobPtr;
constexpr glob_ptr_like kSomeGlobPtr(dart_gptr_t{2, 0, 3, 1, {64}});

STATIC_CHECK(kNullGptr.unitid == -1);
STATIC_CHECK(kNullGptr.flags == 0);
STATIC_CHECK(kNullGptr.segid == 0);
STATIC_CHECK(kNullGptr.teamid == DART_TEAM_NULL);
STATIC_CHECK(kNullGptr.addr_or_offs.offset == 0);
STATIC_CHECK(kNullGlobPtr.dart_gptr().unitid == -1);
STATIC_CHECK(kNullGlobPtr.dart_gptr().teamid == DART_TEAM_NULL);

constexpr bool kNullEqualsNull = gptr_equal(DART_GPTR_NULL, DART_GPTR_NULL);
constexpr bool kNullEqualsSome =
    gptr_equal(DART_GPTR_NULL, kSomeGlobPtr.dart_gptr());
constexpr bool kSomeIsNull = gptr_is_null(kSomeGlobPtr.dart_gptr());
constexpr bool kSomeIsNullMem = kSomeGlobPtr.is_null();
constexpr bool kGlobPtrsEqual = kNullGlobPtr == glob_ptr_like();
STATIC_CHECK(kNullEqualsNull);
STATIC_CHECK(!kNullEqualsSome);
STATIC_CHECK(!kSomeIsNull);
STATIC_CHECK(!kSomeIsNullMem);
STATIC_CHECK(kGlobPtrsEqual);
// Note: DART_GPTR_ISNULL(DART_GPTR_NULL) cannot be a constant expression: the
// macro (whose text is fixed by the interface) reads addr_or_offs.addr while
// DART_GPTR_NULL initialises addr_or_offs.offset, and reading an inactive
// union member is not allowed during constant evaluation. It is checked at
// run time below.

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::printf("FAIL (C++, line %d): %s\n", __LINE__, #cond);               \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

// DASH uses DART_UNDEFINED_TEAM_UNIT_ID as a (run-time) default member
// initialiser.
struct unit_holder {
  dart_team_unit_t unit = DART_UNDEFINED_TEAM_UNIT_ID;
};

static void check_gptr_null()
{
  static const unsigned char expected[16] = {0xff, 0xff, 0xff, 0x00, 0x00, 0x00,
                                             0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
                                             0x00, 0x00, 0x00, 0x00};
  dart_gptr_t g = DART_GPTR_NULL;
  unsigned char bytes[16];
  std::memcpy(bytes, &g, sizeof(bytes));
  CHECK(std::memcmp(bytes, expected, sizeof(bytes)) == 0);
  std::memcpy(bytes, &kNullGptr, sizeof(bytes));
  CHECK(std::memcmp(bytes, expected, sizeof(bytes)) == 0);

  dart_gptr_t assigned;
  assigned = DART_GPTR_NULL;
  dart_gptr_t paren(DART_GPTR_NULL);
  dart_gptr_t brace{DART_GPTR_NULL};
  CHECK(std::memcmp(&assigned, expected, sizeof(expected)) == 0);
  CHECK(std::memcmp(&paren, expected, sizeof(expected)) == 0);
  CHECK(std::memcmp(&brace, expected, sizeof(expected)) == 0);
}

static void check_gptr_isnull()
{
  dart_gptr_t g = DART_GPTR_NULL;
  CHECK(gptr_is_null(g));
  CHECK(DART_GPTR_ISNULL(DART_GPTR_NULL));
  CHECK(kNullGlobPtr.is_null());
  CHECK(glob_ptr_like().is_null());

  g.flags = 0xab; // flags are ignored
  CHECK(gptr_is_null(g));

  g = DART_GPTR_NULL;
  g.unitid = 0;
  CHECK(!gptr_is_null(g));
  g = DART_GPTR_NULL;
  g.segid = 1;
  CHECK(!gptr_is_null(g));
  g = DART_GPTR_NULL;
  g.teamid = DART_TEAM_ALL;
  CHECK(!gptr_is_null(g));
  g = DART_GPTR_NULL;
  g.addr_or_offs.offset = 1;
  CHECK(!gptr_is_null(g));
  CHECK(!glob_ptr_like(g).is_null());
}

static void check_gptr_equal()
{
  dart_gptr_t a = dart_gptr_t{3, 0, 2, 1, {4096}};
  dart_gptr_t b = a;
  CHECK(gptr_equal(a, b));
  b.flags = 0x5a; // flags are ignored
  CHECK(gptr_equal(a, b));
  CHECK(glob_ptr_like(a) == glob_ptr_like(b));

  b = a;
  b.unitid = 4;
  CHECK(!gptr_equal(a, b));
  b = a;
  b.segid = 3;
  CHECK(!gptr_equal(a, b));
  b = a;
  b.teamid = 2;
  CHECK(!gptr_equal(a, b));
  b = a;
  b.addr_or_offs.offset = 4097;
  CHECK(!gptr_equal(a, b));
}

static void check_gptr_helpers()
{
  dart_gptr_t g = dart_gptr_t{5, 3, 9, 2, {100}};
  CHECK(dart_gptr_incaddr(&g, -40) == DART_OK);
  CHECK(g.addr_or_offs.offset == 60);
  CHECK(dart_gptr_incaddr(&g, -61) == DART_OK);
  CHECK(g.addr_or_offs.offset == UINT64_MAX);
  CHECK(dart_gptr_incaddr(&g, 2) == DART_OK);
  CHECK(g.addr_or_offs.offset == 1);
  CHECK(g.unitid == 5 && g.flags == 3 && g.segid == 9 && g.teamid == 2);

  CHECK(dart_gptr_setunit(&g, 7) == DART_OK); // implicit conversion from int
  CHECK(g.unitid == 7);
  CHECK(dart_gptr_setunit(&g, derived_team_unit(8)) == DART_OK);
  CHECK(g.unitid == 8);
  CHECK(dart_gptr_setunit(&g, dart_team_unit_t()) == DART_OK);
  CHECK(g.unitid == -1);
  CHECK(g.flags == 3 && g.segid == 9 && g.teamid == 2);
  CHECK(g.addr_or_offs.offset == 1);
}

static void check_units_and_handles()
{
  unit_holder holder;
  CHECK(holder.unit.id == -1);
  CHECK(DART_TEAM_UNIT_ID(3).id == 3);
  CHECK(DART_GLOBAL_UNIT_ID(4).id == 4);
  CHECK(DART_UNDEFINED_GLOBAL_UNIT_ID.id == -1);
  dart_team_unit_t tu;
  CHECK(tu.id == -1);
  tu = 6;
  CHECK(tu.id == 6);

  CHECK(DART_HANDLE_NULL == nullptr);
  CHECK(DART_LOCK_NULL == nullptr);
  CHECK(DART_GROUP_NULL == nullptr);
  CHECK(std::strcmp(DART_VERSION_STR, "3.2.0") == 0);
  CHECK(std::strlen(DART_BUILD_STR) > 0);
}

int main()
{
  check_gptr_null();
  check_gptr_isnull();
  check_gptr_equal();
  check_gptr_helpers();
  check_units_and_handles();

  std::printf("SIZE dart_hwinfo_t %zu\n", sizeof(dart_hwinfo_t));
  std::printf("SIZE dart_unit_locality_t %zu\n", sizeof(dart_unit_locality_t));
  std::printf("SIZE dart_domain_locality_t %zu\n",
              sizeof(dart_domain_locality_t));
  std::printf("SIZE dart_module_location_t %zu\n",
              sizeof(dart_module_location_t));
#ifdef HOST_NAME_MAX
  std::printf(
      "INFO HOST_NAME_MAX is defined (%d) in this C++ translation unit\n",
      static_cast<int>(HOST_NAME_MAX));
#else
  std::printf(
      "INFO HOST_NAME_MAX is not defined in this C++ translation unit\n");
#endif

  if (failures != 0) {
    std::printf("layout_check (C++): %d check(s) failed\n", failures);
    return 1;
  }
  std::printf("layout_check (C++): all checks passed\n");
  return 0;
}
