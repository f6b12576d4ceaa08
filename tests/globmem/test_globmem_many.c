/*
 * Many live collective allocations (10,000) and alloc/free cycles that
 * must not leak windows or memory.
 */
#include <stdint.h>
#include <stdlib.h>

#include "gm_access.h"

/* Resident set size and its high-water mark in KiB. */
static void rss_kib(long *rss, long *hwm)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  *rss = *hwm = -1;
  while (f && fgets(line, sizeof line, f)) {
    sscanf(line, "VmRSS: %ld", rss);
    sscanf(line, "VmHWM: %ld", hwm);
  }
  if (f) fclose(f);
}

/* Live team allocations: 10,000 at 1-2 units (1,000 at 3-4 units, where
 * oversubscribed collectives make each one slower), all from the team
 * heap, a few windows in all; data checked in the first and last ones and
 * in a sample between. */
static void test_many_live(void)
{
  const int N = nunits <= 2 ? 10000 : 1000;
  int w0 = gm_windows(), h0 = dart__globmem_heap_windows();
  dart_gptr_t *g = malloc((size_t)N * sizeof *g);
  for (int i = 0; i < N; i++) {
    size_t n = (size_t)(8 + ((i + me) % 4) * 8); /* 8..32 B, uneven */
    TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, n / 8, DART_TYPE_LONGLONG,
                                       &g[i]));
    TEST_CHECK(i == 0 || g[i].segid == g[i - 1].segid + 1);
    long long *p;
    dart_gptr_t mine = g[i];
    mine.unitid = me;
    TEST_OK(dart_gptr_getaddr(mine, (void **)&p));
    p[0] = (long long)me * 1000000 + i;
  }
  TEST_CHECK(gm_windows() == w0); /* none of their own */
  int heap = dart__globmem_heap_windows() - h0;
  TEST_CHECK_MSG(heap <= 4, "%d heap windows for %d allocations", heap, N);
  gm_barrier();
  int peer = (me + 1) % nunits;
  for (int i = 0; i < N; i = (i == N - 1) ? N : (i + 97 < N ? i + 97 : N - 1)) {
    long long v = -1;
    dart_gptr_t gp = g[i];
    gp.unitid = peer;
    gm_get(&v, gp, sizeof v);
    TEST_CHECK_MSG(v == (long long)peer * 1000000 + i, "alloc %d: got %lld", i,
                   v);
  }
  gm_barrier();
  for (int i = N - 1; i >= 0; i -= 2) TEST_OK(dart_team_memfree(g[i]));
  for (int i = 0; i < N; i += 2) TEST_OK(dart_team_memfree(g[i]));
  TEST_CHECK(gm_windows() == w0);
  free(g);
  if (me == 0) printf("  %d live allocations: %d heap windows\n", N, heap);
}

/* Live registrations of 16 bytes each, at 8 mod 16 in one array: as many
 * as allocations above. MPICH holds them in the team's dynamic window,
 * Open MPI in a window each. Data checked by a peer's get and put in the
 * first, the last and a sample between; deregistered in a different order
 * on odd units. */
static void test_many_registrations(void)
{
  const int N = nunits <= 2 ? 10000 : 1000;
  int w0 = gm_windows();
  long long *mem = malloc((2 * (size_t)N + 1) * sizeof *mem);
  dart_gptr_t *g = malloc((size_t)N * sizeof *g);
  TEST_CHECK(mem != NULL && g != NULL);
  for (int i = 0; i < N; i++) {
    long long *p = mem + 1 + 2 * i;
    p[0] = (long long)me * 1000000 + i;
    p[1] = -1;
    TEST_OK(
        dart_team_memregister(DART_TEAM_ALL, 2, DART_TYPE_LONGLONG, p, &g[i]));
  }
  gm_barrier();
  int peer = (me + 1) % nunits;
  for (int i = 0; i < N; i = (i == N - 1) ? N : (i + 97 < N ? i + 97 : N - 1)) {
    long long v = -1, w = (long long)me * 1000 + i % 1000;
    dart_gptr_t gp = g[i];
    gp.unitid = peer;
    gm_get(&v, gp, sizeof v);
    TEST_CHECK_MSG(v == (long long)peer * 1000000 + i, "reg %d: got %lld", i,
                   v);
    gp.addr_or_offs.offset = sizeof(long long);
    gm_put(gp, &w, sizeof w);
  }
  gm_barrier();
  int from = (me + nunits - 1) % nunits;
  for (int i = 0; i < N; i = (i == N - 1) ? N : (i + 97 < N ? i + 97 : N - 1))
    TEST_CHECK(mem[2 + 2 * i] == (long long)from * 1000 + i % 1000);
  gm_barrier();
  for (int k = 0; k < N; k++)
    TEST_OK(dart_team_memderegister(g[(me % 2) ? N - 1 - k : k]));
  dart_gptr_t r;
  /* Windows of deregistered segments go at the next creation. */
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 1, DART_TYPE_LONGLONG, mem, &r));
  TEST_OK(dart_team_memderegister(r));
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONGLONG, &r));
  TEST_OK(dart_team_memfree(r));
  TEST_CHECK_MSG(gm_windows() == w0, "%d windows left", gm_windows() - w0);
  free(g);
  free(mem);
  if (me == 0) printf("  %d live registrations\n", N);
}

static void cycle(int i, size_t bytes)
{
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &g));
  dart_gptr_t mine = g;
  mine.unitid = me;
  unsigned char *p;
  TEST_OK(dart_gptr_getaddr(mine, (void **)&p));
  memset(p, i & 0xff, bytes); /* touch every page */
  if (i % 50 == 0) {
    gm_barrier();
    unsigned char v = 0;
    dart_gptr_t gp = g;
    gp.unitid = (me + 1) % nunits;
    gp.addr_or_offs.offset = bytes - 1;
    gm_get(&v, gp, 1);
    TEST_CHECK(v == (i & 0xff));
    gm_barrier();
  }
  TEST_OK(dart_team_memfree(g));
}

static void test_cycles(void)
{
  enum { WARM = 50, BYTES = 256 * 1024 };
  /* Collective window creation costs ~0.1 s at 4 oversubscribed MPICH
   * units: the full 500 cycles run at up to 2 units. */
  const int CYCLES = nunits <= 2 ? 500 : 150;
  int w0 = gm_windows();
  for (int i = 0; i < WARM; i++) cycle(i, BYTES);
  long rss0, hwm0, rss1, hwm1;
  rss_kib(&rss0, &hwm0);
  for (int i = 0; i < CYCLES; i++) cycle(i, BYTES);
  rss_kib(&rss1, &hwm1);
  TEST_CHECK(gm_windows() == w0);
  /* A leak of the 256 KiB per cycle would add > 100 MiB. */
  TEST_CHECK_MSG(rss1 - rss0 < 8 * 1024, "RSS grew from %ld to %ld KiB", rss0,
                 rss1);
  TEST_CHECK_MSG(hwm1 - hwm0 < 8 * 1024, "high-water grew from %ld to %ld KiB",
                 hwm0, hwm1);
  if (me == 0)
    printf("  %d alloc/free cycles: RSS %ld -> %ld KiB, HWM %ld -> %ld KiB\n",
           CYCLES, rss0, rss1, hwm0, hwm1);
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  test_many_live();
  test_many_registrations();
  test_cycles();
  TEST_OK(dart_exit());
  if (me == 0) printf("test_globmem_many: OK (%d units)\n", nunits);
  return 0;
}
