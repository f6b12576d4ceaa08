/* bench_floor.h — library-call floor of the one-sided benchmarks. */
#ifndef BENCH_FLOOR_H
#define BENCH_FLOOR_H

#include <stddef.h>

/* The cheapest full fence on x86-64: a locked add below the stack pointer
 * (gcc's default, a locked op on the stack top, stalls the return that
 * reads it right after; DART fences the same way). */
#if defined(__x86_64__)
#define FLOOR_FENCE()                                                          \
  __asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc")
#else
#define FLOOR_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

/* memcpy(dst, src, n), then a fence if fence != 0, behind an exported
 * call; returns 0. */
int bench_floor_copy(void *dst, const void *src, size_t n, int fence);
/* A sequentially consistent fence behind an exported call; returns 0. */
int bench_floor_fence(void);
/* *old = fetch-and-add(*target, value) (seq_cst) behind a call. */
int bench_floor_fetch_add(long long *target, long long value, long long *old);

#endif
