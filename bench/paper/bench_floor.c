/*
 * bench_floor.c — the cheapest a library call can be: exported functions
 * of a separate shared library that only copy, fence or add atomically.
 * paper_rma times them as the "call" variant so that DART's per-call cost
 * can be set against the cost of any call through a shared library
 * (PLT jump, argument passing, return) on the same machine and run.
 */
#include "bench_floor.h"

#include <string.h>

int bench_floor_copy(void *dst, const void *src, size_t n, int fence)
{
  memcpy(dst, src, n);
  if (fence) FLOOR_FENCE();
  return 0;
}

int bench_floor_fence(void)
{
  FLOOR_FENCE();
  return 0;
}

int bench_floor_fetch_add(long long *target, long long value, long long *old)
{
  *old = __atomic_fetch_add(target, value, __ATOMIC_SEQ_CST);
  return 0;
}
