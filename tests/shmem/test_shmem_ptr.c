/*
 * shmem_ptr / shmem_team_ptr: a load/store address of every PE's heap
 * memory on the caller's node (all PEs here, unless DART_SIM_NODE_SIZE=1
 * makes every PE its own node: then only the caller's own), stores through
 * it seen by the owner and by gets; static variables of other PEs are
 * reached by RMA only (NULL); NULL for non-symmetric addresses.
 */
#include <shmem.h>
#include <stdlib.h>
#include <string.h>

#include "dart_test.h"

static int stat_var;

#if defined(__SANITIZE_ADDRESS__)
#define SHMEM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHMEM_TEST_ASAN 1
#endif
#endif
#ifndef SHMEM_TEST_ASAN
#define SHMEM_TEST_ASAN 0
#endif

int main(void)
{
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  const char *sim = getenv("DART_SIM_NODE_SIZE");
  int alone = sim != NULL && atoi(sim) == 1;
  long *a = shmem_malloc(n * sizeof(long));
  memset(a, 0, n * sizeof(long));
  shmem_barrier_all();
  for (int pe = 0; pe < n; pe++) {
    long *p = shmem_ptr(a, pe);
    long *q = shmem_team_ptr(SHMEM_TEAM_WORLD, a, pe);
    TEST_CHECK(p == q);
    if (pe == me) {
      TEST_CHECK(p == a);
    } else if (alone) {
      TEST_CHECK(p == NULL);
    } else {
      TEST_CHECK(p != NULL);
    }
    if (p != NULL)
      p[me] = 100 * me + pe; /* my slot on PE pe */
    else
      shmem_long_p(&a[me], 100 * me + pe, pe);
  }
  shmem_quiet();
  shmem_barrier_all();
  for (int i = 0; i < n; i++) TEST_CHECK(a[i] == 100 * i + me);
  for (int pe = 0; pe < n; pe++) {
    long v;
    shmem_long_get(&v, &a[me], 1, pe);
    TEST_CHECK(v == 100 * me + pe);
  }
  TEST_CHECK(shmem_ptr(&stat_var, me) == &stat_var);
  stat_var = 0;
  shmem_barrier_all();
  if (n > 1) {
    int r = (me + 1) % n;
    int *sp = shmem_ptr(&stat_var, r);
    /* (AddressSanitizer builds keep statics on the MPI path) */
    TEST_CHECK(alone ? sp == NULL : (sp != NULL || SHMEM_TEST_ASAN));
    if (sp != NULL)
      *sp = 1000 + me;
    else if (!alone)
      shmem_int_p(&stat_var, 1000 + me, r);
    if (!alone) TEST_CHECK(shmem_int_g(&stat_var, r) == 1000 + me);
    shmem_barrier_all();
    if (!alone) TEST_CHECK(stat_var == 1000 + (me + n - 1) % n);
  }
  int local;
  TEST_CHECK(shmem_ptr(&local, me) == NULL);
  shmem_barrier_all();
  shmem_free(a);
  shmem_finalize();
  return 0;
}
