/*
 * Data integrity of put/get for every basic type and completion mode, to
 * self, to the neighbour and to all units, from 1 element to 16 MiB.
 */
#include "os_common.h"

/* Value of element i written by unit w in round r, exact in every type. */
static long long val(int w, size_t i, int r)
{
  return (long long)((w * 131 + i * 7 + (size_t)r * 3) % 120);
}

#define FILL_AS(T)                                                             \
  do {                                                                         \
    T *p = buf;                                                                \
    for (size_t i = 0; i < n; i++) p[i] = (T)val(w, i, r);                     \
  } while (0)
#define CHECK_AS(T)                                                            \
  do {                                                                         \
    const T *p = buf;                                                          \
    for (size_t i = 0; i < n; i++)                                             \
      if (p[i] != (T)val(w, i, r)) return i;                                   \
  } while (0)

static void fill(void *buf, dart_datatype_t t, size_t n, int w, int r)
{
  switch (t) {
  case DART_TYPE_BYTE: FILL_AS(char); break;
  case DART_TYPE_SHORT: FILL_AS(short); break;
  case DART_TYPE_INT: FILL_AS(int); break;
  case DART_TYPE_UINT: FILL_AS(unsigned); break;
  case DART_TYPE_LONG: FILL_AS(long); break;
  case DART_TYPE_ULONG: FILL_AS(unsigned long); break;
  case DART_TYPE_LONGLONG: FILL_AS(long long); break;
  case DART_TYPE_ULONGLONG: FILL_AS(unsigned long long); break;
  case DART_TYPE_FLOAT: FILL_AS(float); break;
  case DART_TYPE_DOUBLE: FILL_AS(double); break;
  default: FILL_AS(long double);
  }
}

/* Index of the first wrong element, or SIZE_MAX. */
static size_t check(const void *buf, dart_datatype_t t, size_t n, int w, int r)
{
  switch (t) {
  case DART_TYPE_BYTE: CHECK_AS(char); break;
  case DART_TYPE_SHORT: CHECK_AS(short); break;
  case DART_TYPE_INT: CHECK_AS(int); break;
  case DART_TYPE_UINT: CHECK_AS(unsigned); break;
  case DART_TYPE_LONG: CHECK_AS(long); break;
  case DART_TYPE_ULONG: CHECK_AS(unsigned long); break;
  case DART_TYPE_LONGLONG: CHECK_AS(long long); break;
  case DART_TYPE_ULONGLONG: CHECK_AS(unsigned long long); break;
  case DART_TYPE_FLOAT: CHECK_AS(float); break;
  case DART_TYPE_DOUBLE: CHECK_AS(double); break;
  default: CHECK_AS(long double);
  }
  return SIZE_MAX;
}

enum { M_BLOCKING, M_FLUSH, M_HANDLE, M_HANDLE_LOCAL, NMODES };

static void put_mode(int mode, dart_gptr_t g, const void *src, size_t n,
                     dart_datatype_t t)
{
  dart_handle_t h = DART_HANDLE_NULL;
  switch (mode) {
  case M_BLOCKING: TEST_OK(dart_put_blocking(g, src, n, t, t)); break;
  case M_FLUSH:
    TEST_OK(dart_put(g, src, n, t, t));
    TEST_OK(dart_flush(g));
    break;
  case M_HANDLE:
    TEST_OK(dart_put_handle(g, src, n, t, t, &h));
    TEST_OK(dart_wait(&h));
    TEST_CHECK(h == DART_HANDLE_NULL);
    break;
  default: /* locally waited, remotely completed by a later flush */
    TEST_OK(dart_put_handle(g, src, n, t, t, &h));
    TEST_OK(dart_wait_local(&h));
    TEST_CHECK(h == DART_HANDLE_NULL);
    TEST_OK(dart_flush(g));
  }
}

static void get_mode(int mode, void *dst, dart_gptr_t g, size_t n,
                     dart_datatype_t t)
{
  dart_handle_t h = DART_HANDLE_NULL;
  int32_t done = 0;
  switch (mode) {
  case M_BLOCKING: TEST_OK(dart_get_blocking(dst, g, n, t, t)); break;
  case M_FLUSH:
    TEST_OK(dart_get(dst, g, n, t, t));
    TEST_OK(dart_flush_local(g));
    break;
  case M_HANDLE:
    TEST_OK(dart_get_handle(dst, g, n, t, t, &h));
    TEST_OK(dart_wait_local(&h));
    break;
  default: /* test loop */
    TEST_OK(dart_get_handle(dst, g, n, t, t, &h));
    for (int it = 0; !done; it++) {
      TEST_OK(dart_test(&h, &done));
      TEST_CHECK(it < 100000000);
    }
    TEST_CHECK(h == DART_HANDLE_NULL);
  }
}

/* Puts to (me + k) % n, the owner verifies, the writer reads back. */
static void permutation_round(dart_gptr_t g, void *mine, void *buf,
                              dart_datatype_t t, size_t n, int mode, int k,
                              int r)
{
  int target = (me + k) % nunits, writer = (me - k + nunits) % nunits;
  fill(buf, t, n, me, r);
  put_mode(mode, os_at(g, target, 0), buf, n, t);
  os_barrier();
  size_t bad = check(mine, t, n, writer, r);
  TEST_CHECK_MSG(bad == SIZE_MAX,
                 "type %d n %zu mode %d k %d: element %zu from %d", (int)t, n,
                 mode, k, bad, writer);
  memset(buf, 0xee, n * os_type_size(t));
  get_mode(mode, buf, os_at(g, target, 0), n, t);
  bad = check(buf, t, n, me, r);
  TEST_CHECK_MSG(bad == SIZE_MAX, "get type %d n %zu mode %d k %d: element %zu",
                 (int)t, n, mode, k, bad);
  os_barrier();
}

static void test_types(dart_gptr_t g, void *mine, void *buf)
{
  static const size_t counts[] = {1, 3, 1000};
  int r = 0;
  for (int k = 0; k < (nunits > 1 ? 2 : 1); k++)
    for (size_t ti = 0; ti < OS_NTYPES; ti++)
      for (size_t ci = 0; ci < 3; ci++)
        for (int mode = 0; mode < NMODES; mode++)
          permutation_round(g, mine, buf, os_basic_types[ti], counts[ci], mode,
                            k, ++r);
}

/* Every unit writes its slot of every unit at once, then reads all. */
static void test_all_to_all(dart_gptr_t g, void *mine, void *buf)
{
  static const dart_datatype_t types[] = {DART_TYPE_INT, DART_TYPE_LONG_DOUBLE};
  enum { N = 100 };
  for (int ti = 0; ti < 2; ti++) {
    dart_datatype_t t = types[ti];
    size_t slot = N * os_type_size(t);
    fill(buf, t, N, me, ti);
    for (int u = 0; u < nunits; u++)
      TEST_OK(dart_put(os_at(g, u, (size_t)me * slot), buf, N, t, t));
    TEST_OK(dart_flush_all(g));
    os_barrier();
    for (int w = 0; w < nunits; w++)
      TEST_CHECK(check((char *)mine + (size_t)w * slot, t, N, w, ti) ==
                 SIZE_MAX);
    char *all = malloc(slot * (size_t)nunits * (size_t)nunits);
    for (int u = 0; u < nunits; u++)
      TEST_OK(dart_get(all + (size_t)u * nunits * slot, os_at(g, u, 0),
                       N * (size_t)nunits, t, t));
    TEST_OK(dart_flush_local_all(g));
    for (int u = 0; u < nunits; u++)
      for (int w = 0; w < nunits; w++)
        TEST_CHECK(check(all + ((size_t)u * nunits + w) * slot, t, N, w, ti) ==
                   SIZE_MAX);
    free(all);
    os_barrier();
  }
}

static void test_large(dart_gptr_t g, void *mine, void *buf)
{
  static const size_t bytes[] = {64 << 10, 1 << 20, 16 << 20};
  static const dart_datatype_t types[] = {DART_TYPE_BYTE, DART_TYPE_DOUBLE};
  int r = 1000;
  for (int bi = 0; bi < 3; bi++)
    for (int ti = 0; ti < 2; ti++)
      for (int mode = 0; mode < NMODES; mode += 2)
        permutation_round(g, mine, buf, types[ti],
                          bytes[bi] / os_type_size(types[ti]), mode,
                          nunits > 1 ? 1 : 0, ++r);
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  size_t size = 16 << 20;
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, size, DART_TYPE_BYTE, &g));
  void *mine = os_local(g);
  void *buf = malloc(size);
  double t0 = os_now();
  test_types(g, mine, buf);
  double t1 = os_now();
  test_all_to_all(g, mine, buf);
  test_large(g, mine, buf);
  /* dart_memalloc memory is a target like any other */
  dart_gptr_t m, all[64];
  TEST_OK(dart_memalloc(1000, DART_TYPE_INT, &m));
  TEST_CHECK(MPI_Allgather(&m, sizeof m, MPI_BYTE, all, sizeof m, MPI_BYTE,
                           MPI_COMM_WORLD) == 0);
  int peer = (me + 1) % nunits, src[1000], back[1000];
  fill(src, DART_TYPE_INT, 1000, me, 7);
  TEST_OK(
      dart_put_blocking(all[peer], src, 1000, DART_TYPE_INT, DART_TYPE_INT));
  os_barrier();
  int *own;
  TEST_OK(dart_gptr_getaddr(m, (void **)&own));
  TEST_CHECK(check(own, DART_TYPE_INT, 1000, (me - 1 + nunits) % nunits, 7) ==
             SIZE_MAX);
  TEST_OK(
      dart_get_blocking(back, all[peer], 1000, DART_TYPE_INT, DART_TYPE_INT));
  TEST_CHECK(check(back, DART_TYPE_INT, 1000, me, 7) == SIZE_MAX);
  os_barrier();
  TEST_OK(dart_memfree(m));
  free(buf);
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_exit());
  if (me == 0)
    printf("test_rma: OK (%d units, type rounds %.2f s)\n", nunits, t1 - t0);
  return 0;
}
