/*
 * An allocation the machine cannot hold is an error on every unit, never a
 * hang or an abort (issue 24, items 1 and 3). Each unit asks for more than
 * the free space of /dev/shm (shared windows are files there) and more
 * than memory and swap together (private portions when every unit is
 * alone on its node, as with DART_SIM_NODE_SIZE=1), once from every unit
 * and once from unit 0 only; every unit must get DART_ERR_NOMEM and a null
 * gptr, with no window left behind. The refused memory is never touched.
 * Afterwards allocations work as before: the ids are in step and data
 * written by RMA is read back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>

#include "gm_access.h"

/* More than /dev/shm has free and than memory and swap hold: 1 GiB above
 * the larger of the two. */
static size_t huge_size(void)
{
  uint64_t shm = 0, mem = 0;
  struct statvfs fs;
  if (statvfs("/dev/shm", &fs) == 0) shm = (uint64_t)fs.f_bavail * fs.f_frsize;
  struct sysinfo si;
  TEST_CHECK(sysinfo(&si) == 0);
  uint64_t unit = si.mem_unit ? si.mem_unit : 1;
  mem = ((uint64_t)si.totalram + (uint64_t)si.totalswap) * unit;
  uint64_t big = (shm > mem ? shm : mem) + ((uint64_t)1 << 30);
  TEST_CHECK(big < (uint64_t)PTRDIFF_MAX / 2);
  return (size_t)big;
}

/* Every unit of the world got ret (checked on every unit). */
static void all_returned(dart_ret_t ret)
{
  int r = (int)ret, lo = 0, hi = 0;
  TEST_CHECK(MPI_Allreduce(&r, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) ==
             MPI_SUCCESS);
  TEST_CHECK(MPI_Allreduce(&r, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) ==
             MPI_SUCCESS);
  TEST_CHECK(lo == (int)ret && hi == (int)ret);
}

/* One refused allocation of nbytes on this unit. */
static void refused(size_t nbytes)
{
  int before = gm_windows();
  dart_gptr_t g = DART_GPTR_NULL;
  g.segid = 77; /* must come back null */
  dart_ret_t r =
      dart_team_memalloc_aligned(DART_TEAM_ALL, nbytes, DART_TYPE_BYTE, &g);
  if (r == DART_OK) dart_team_memfree(g); /* untouched: costs nothing */
  TEST_EQ_RET(r, DART_ERR_NOMEM);
  TEST_CHECK(DART_GPTR_ISNULL(g));
  all_returned(r);
  TEST_CHECK(gm_windows() == before);
}

/* The same segment id on every unit. */
static void same_segid(dart_gptr_t g)
{
  int id = g.segid, lo = 0, hi = 0;
  TEST_CHECK(MPI_Allreduce(&id, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) ==
             MPI_SUCCESS);
  TEST_CHECK(MPI_Allreduce(&id, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) ==
             MPI_SUCCESS);
  TEST_CHECK(lo == id && hi == id && id > 0);
}

/* An allocation of nbytes per unit works: each unit writes a pattern into
 * its right neighbour's portion and reads back what its left neighbour
 * wrote into its own. */
static void usable(size_t nbytes, int round)
{
  dart_gptr_t g;
  TEST_OK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, nbytes, DART_TYPE_BYTE, &g));
  same_segid(g);
  enum { N = 256 };
  unsigned char out[N], in[N];
  for (size_t i = 0; i < N; i++) out[i] = gm_pat(me, i, round);
  int right = (me + 1) % nunits, left = (me + nunits - 1) % nunits;
  gm_put(os_at(g, right, nbytes - N), out, N);
  os_barrier();
  gm_get(in, os_at(g, me, nbytes - N), N);
  for (size_t i = 0; i < N; i++) TEST_CHECK(in[i] == gm_pat(left, i, round));
  os_barrier();
  TEST_OK(dart_team_memfree(g));
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  size_t huge = huge_size();
  int windows = gm_windows();
  for (int round = 0; round < 2; round++) {
    refused(huge);                        /* every unit asks too much */
    refused(me == 0 ? huge : (size_t)64); /* only unit 0 does */
    usable(((size_t)2 << 20) + 1, round); /* windows of its own */
    usable(4096, round);                  /* from the team heap */
  }
  TEST_CHECK(gm_windows() == windows);
  TEST_OK(dart_exit());
  if (me == 0)
    printf("test_globmem_nomem: OK (%d units, %zu bytes refused)\n", nunits,
           huge);
  return 0;
}
