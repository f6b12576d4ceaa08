/*
 * OpenSHMEM example: a distributed histogram with atomics.
 *
 * Every PE draws NSAMPLES pseudo-random values in [0, NBINS * n_pes) and
 * counts each one with shmem_long_atomic_inc into the bin's owner (bin b
 * lives on PE b / NBINS, in the symmetric heap). The counts are then checked:
 * PE 0 fetches every bin with shmem_long_get and compares with the exact
 * histogram, which every PE can recompute because the generator is seeded by PE
 * number. Exit code 0 only if every bin matches. Build: oshcc
 * shmem_histogram.c; run: oshrun -np 4 ./a.out.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define NBINS 64
#define NSAMPLES 5000

static unsigned next(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

int main(void)
{
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  unsigned total_bins = (unsigned)(NBINS * n);
  long *bins = shmem_calloc(NBINS, sizeof(long)); /* symmetric heap */
  unsigned seed = 1234u + (unsigned)me;
  for (int i = 0; i < NSAMPLES; i++) {
    unsigned b = next(&seed) % total_bins;
    shmem_long_atomic_inc(&bins[b % NBINS], (int)(b / NBINS));
  }
  shmem_barrier_all();
  int bad = 0;
  if (me == 0) {
    long *expect = calloc(total_bins, sizeof(long));
    for (int pe = 0; pe < n; pe++) {
      unsigned s = 1234u + (unsigned)pe;
      for (int i = 0; i < NSAMPLES; i++) expect[next(&s) % total_bins]++;
    }
    long got[NBINS], sum = 0;
    for (int pe = 0; pe < n; pe++) {
      shmem_long_get(got, bins, NBINS, pe);
      for (int b = 0; b < NBINS; b++) {
        sum += got[b];
        if (got[b] != expect[pe * NBINS + b]) bad++;
      }
    }
    printf("histogram: %d PEs, %u bins, %ld samples counted, %d wrong bins\n",
           n, total_bins, sum, bad);
    if (sum != (long)NSAMPLES * n) bad++;
    free(expect);
  }
  shmem_barrier_all();
  int ok = bad == 0;
  shmem_free(bins);
  shmem_finalize();
  return ok ? 0 : 1;
}
