/*
 * Bad input: each case (argv[1]) makes one erroneous call; the library must
 * print one line naming the function and the bad value and stop the job
 * (CTest checks the line with PASS_REGULAR_EXPRESSION). Cases with a return
 * code are checked here and the program exits 0 if they behave.
 */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "dart_test.h"

static long sym[4];

int main(int argc, char **argv)
{
  const char *c = argc > 1 ? argv[1] : "";
  if (strcmp(c, "preinit") == 0) return shmem_my_pe();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  long local[4] = {0};
  if (strcmp(c, "nonsym") == 0) shmem_putmem(local, sym, sizeof sym, 0);
  if (strcmp(c, "pe") == 0) shmem_long_p(&sym[0], 1, n + 3);
  if (strcmp(c, "range") == 0) {
    long *a = shmem_malloc(16);
    shmem_getmem(local, a, 1L << 40, me);
  }
  if (strcmp(c, "ctx") == 0) {
    shmem_ctx_t ctx;
    TEST_CHECK(shmem_ctx_create(0, &ctx) == 0);
    shmem_ctx_destroy(ctx);
    shmem_ctx_long_p(ctx, &sym[0], 1, me);
  }
  if (strcmp(c, "cmp") == 0) shmem_long_wait_until(&sym[0], 42, 0);
  if (strcmp(c, "rc") == 0) {
    /* errors with a return value: NULL / nonzero, the job goes on */
    TEST_CHECK(shmem_malloc((size_t)1 << 50) == NULL);
    TEST_CHECK(shmem_align(3, 64) == NULL);
    TEST_CHECK(shmem_ptr(local, me) == NULL);
    shmem_ctx_t ctx;
    TEST_CHECK(shmem_ctx_create(-1L, &ctx) != 0 && ctx == SHMEM_CTX_INVALID);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
  }
  shmem_finalize();
  return 3; /* not reached for an error case */
}
