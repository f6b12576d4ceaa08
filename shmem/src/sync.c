/*
 * Point-to-point synchronization: wait_until / test and their _all, _any,
 * _some and _vector forms, signal_fetch and signal_wait_until. Waiting
 * polls the variable with atomic loads and pokes DART's progress
 * (dartx_progress) so that peers' RMA to it completes where MPI progresses
 * only inside MPI calls; it yields the CPU after a short spin.
 */
#include <sched.h>
#include <string.h>

#include <dash/dart/ext/dartx.h>

#include "shmem_internal.h"

void shmemi_poll(unsigned *spins)
{
  dartx_progress();
  if (++*spins > 64)
    sched_yield();
  else
    __builtin_ia32_pause();
}

#define CMP_CASE(NAME, ctype, tname)                                           \
  case SHMEMI_DT_##NAME: {                                                     \
    ctype a = __atomic_load_n((const ctype *)ivar, __ATOMIC_RELAXED);          \
    ctype b;                                                                   \
    memcpy(&b, value, sizeof b);                                               \
    switch (cmp) {                                                             \
    case SHMEM_CMP_EQ: return a == b;                                          \
    case SHMEM_CMP_NE: return a != b;                                          \
    case SHMEM_CMP_GT: return a > b;                                           \
    case SHMEM_CMP_GE: return a >= b;                                          \
    case SHMEM_CMP_LT: return a < b;                                           \
    case SHMEM_CMP_LE: return a <= b;                                          \
    default: return -1;                                                        \
    }                                                                          \
  }

int shmemi_compare(const void *ivar, shmemi_dtype_t dt, int cmp,
                   const void *value)
{
  switch (dt) {
    SHMEMI_FOR_SYNC(CMP_CASE)
  default: return -1;
  }
}

static void check_args(const void *ivar, int cmp, const char *fn)
{
  shmemi_check_init(fn);
  if (ivar == NULL) shmemi_fatal(fn, "ivar is NULL");
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
    shmemi_fatal(fn, "cmp %d is not a SHMEM_CMP_* value", cmp);
}

void shmemi_wait_until(void *ivar, shmemi_dtype_t dt, int cmp,
                       const void *value, const char *fn)
{
  unsigned spins = 0;
  check_args(ivar, cmp, fn);
  while (shmemi_compare(ivar, dt, cmp, value) == 0) shmemi_poll(&spins);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

int shmemi_test(void *ivar, shmemi_dtype_t dt, int cmp, const void *value,
                const char *fn)
{
  check_args(ivar, cmp, fn);
  int r = shmemi_compare(ivar, dt, cmp, value);
  if (r)
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
  else
    dartx_progress();
  return r;
}

/* Where the next ANY scan of this thread starts: one past the index it
 * returned last, so that repeated test_any/wait_any calls on a set whose
 * entries all stay satisfied report every entry in turn (fairness), not
 * always the lowest one. */
static _Thread_local size_t any_start;

/* One pass over the set: ALL returns 1 if all selected are satisfied; ANY
 * a satisfied index not excluded by status, scanning round robin from
 * any_start (SIZE_MAX if none); SOME the number of satisfied indices
 * stored. */
static size_t scan(shmemi_set_t kind, char *ivars, size_t n, size_t *indices,
                   const int *status, shmemi_dtype_t dt, int cmp,
                   const char *values, int vector)
{
  size_t esz = shmemi_dtinfo[dt].size, cnt = 0;
  size_t first = kind == SHMEMI_SET_ANY && n != 0 ? any_start % n : 0;
  for (size_t k = 0; k < n; k++) {
    size_t i = first + k < n ? first + k : first + k - n;
    if (status != NULL && status[i] != 0) continue;
    int ok = shmemi_compare(ivars + i * esz, dt, cmp,
                            values + (vector ? i * esz : 0));
    if (kind == SHMEMI_SET_ALL && !ok) return 0;
    if (kind == SHMEMI_SET_ANY && ok) {
      any_start = i + 1;
      return i;
    }
    if (kind == SHMEMI_SET_SOME && ok) indices[cnt++] = i;
  }
  return kind == SHMEMI_SET_ALL ? 1 : kind == SHMEMI_SET_ANY ? SIZE_MAX : cnt;
}

size_t shmemi_wait_set(shmemi_set_t kind, int block, void *ivars, size_t nelems,
                       size_t *indices, const int *status, shmemi_dtype_t dt,
                       int cmp, const void *values, int vector, const char *fn)
{
  shmemi_check_init(fn);
  if (nelems != 0 && ivars == NULL) shmemi_fatal(fn, "ivars is NULL");
  if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
    shmemi_fatal(fn, "cmp %d is not a SHMEM_CMP_* value", cmp);
  if (values == NULL) shmemi_fatal(fn, "cmp_values is NULL");
  if (kind == SHMEMI_SET_SOME && indices == NULL && nelems != 0)
    shmemi_fatal(fn, "indices is NULL");
  size_t active = 0;
  for (size_t i = 0; i < nelems; i++) active += status == NULL || !status[i];
  if (active == 0) /* nothing to wait for */
    return kind == SHMEMI_SET_ALL ? 1 : kind == SHMEMI_SET_ANY ? SIZE_MAX : 0;
  unsigned spins = 0;
  for (;;) {
    size_t r =
        scan(kind, ivars, nelems, indices, status, dt, cmp, values, vector);
    int done = kind == SHMEMI_SET_ALL   ? r == 1
               : kind == SHMEMI_SET_ANY ? r != SIZE_MAX
                                        : r != 0;
    if (done) {
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      return r;
    }
    /* Not done: progress also for a test (a program that loops over
     * test_any waits through it; peers' MPI atomics to this PE may need
     * its progress). */
    if (!block) {
      dartx_progress();
      return r;
    }
    shmemi_poll(&spins);
  }
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
  shmemi_check_init(__func__);
  if (sig_addr == NULL) shmemi_fatal(__func__, "sig_addr is NULL");
  uint64_t v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
  return v;
}
SHMEMI_ALIAS(shmem_signal_fetch);

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp,
                                 uint64_t cmp_value)
{
  shmemi_wait_until(sig_addr, SHMEMI_DT_UINT64, cmp, &cmp_value, __func__);
  return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
SHMEMI_ALIAS(shmem_signal_wait_until);
