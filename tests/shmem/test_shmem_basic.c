/*
 * OpenSHMEM core: init/query, the symmetric heap (malloc/calloc/align/
 * realloc/free give the same offsets on every PE), static variables as
 * symmetric memory, putmem/getmem/quiet to every PE.
 */
#include <shmem.h>
#include <stdint.h>
#include <string.h>

#include "dart_test.h"

static long sym_static[64];
static int sym_bss_flag;

int main(void)
{
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  TEST_CHECK(me >= 0 && me < n);
  int major, minor;
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_version(&major, &minor);
  TEST_CHECK(major == 1 && minor == 5);
  shmem_info_get_name(name);
  TEST_CHECK(strstr(name, "DART") != NULL);

  /* Heap: symmetric offsets and barrier semantics. */
  long *a = shmem_malloc(100 * sizeof(long));
  TEST_CHECK(a != NULL);
  int *z = shmem_calloc(50, sizeof(int));
  for (int i = 0; i < 50; i++) TEST_CHECK(z[i] == 0);
  double *al = shmem_align(4096, 3 * sizeof(double));
  TEST_CHECK(al != NULL && ((uintptr_t)al & 4095) == 0);
  TEST_CHECK(shmem_addr_accessible(a, (me + 1) % n));
  TEST_CHECK(shmem_addr_accessible(sym_static, (me + 1) % n));
  int local_var = 0;
  TEST_CHECK(!shmem_addr_accessible(&local_var, me));
  TEST_CHECK(shmem_pe_accessible(n - 1) && !shmem_pe_accessible(n));

  /* putmem to the right neighbour, heap and data. */
  int right = (me + 1) % n, left = (me + n - 1) % n;
  long src[100];
  for (int i = 0; i < 100; i++) src[i] = me * 1000 + i;
  shmem_putmem(a, src, sizeof src, right);
  shmem_putmem(sym_static, src, sizeof sym_static, right);
  shmem_quiet();
  shmem_barrier_all();
  for (int i = 0; i < 100; i++) TEST_CHECK(a[i] == left * 1000 + i);
  for (int i = 0; i < 64; i++) TEST_CHECK(sym_static[i] == left * 1000 + i);

  /* getmem from every PE. */
  for (int pe = 0; pe < n; pe++) {
    long got[100];
    shmem_getmem(got, a, sizeof got, pe);
    int pl = (pe + n - 1) % n;
    for (int i = 0; i < 100; i++) TEST_CHECK(got[i] == pl * 1000 + i);
    long gs[64];
    shmem_getmem(gs, sym_static, sizeof gs, pe);
    for (int i = 0; i < 64; i++) TEST_CHECK(gs[i] == pl * 1000 + i);
  }

  /* realloc keeps the contents, on every PE at the same offset. */
  shmem_barrier_all();
  long *b = shmem_realloc(a, 10000 * sizeof(long));
  TEST_CHECK(b != NULL);
  for (int i = 0; i < 100; i++) TEST_CHECK(b[i] == left * 1000 + i);
  b[9999] = me;
  shmem_barrier_all();
  long far;
  shmem_getmem(&far, &b[9999], sizeof far, right);
  TEST_CHECK(far == right);

  /* A flag in BSS set by a put, awaited with wait_until. */
  int one = 1;
  shmem_putmem(&sym_bss_flag, &one, sizeof one, right);
  shmem_int_wait_until(&sym_bss_flag, SHMEM_CMP_EQ, 1);

  /* shmem_ptr: own address always; node peers' heap where mapped. */
  TEST_CHECK(shmem_ptr(b, me) == b);
  void *pr = shmem_ptr(b, right);
  if (pr != NULL)
    TEST_CHECK(*(long *)((char *)pr + 9999 * sizeof(long)) == right);

  shmem_free(b);
  shmem_free(z);
  shmem_free(al);
  /* the heap is reusable: the same sequence gives the same address */
  void *c = shmem_malloc(64);
  TEST_CHECK(c != NULL);
  shmem_free(c);
  shmem_finalize();
  return 0;
}
