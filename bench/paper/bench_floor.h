/* bench_floor.h — library-call floor of the one-sided benchmarks. */
#ifndef BENCH_FLOOR_H
#define BENCH_FLOOR_H

#include <stddef.h>

/* memcpy(dst, src, n), then a fence if fence != 0, behind an exported
 * call; returns 0. */
int bench_floor_copy(void *dst, const void *src, size_t n, int fence);
/* A sequentially consistent fence behind an exported call; returns 0. */
int bench_floor_fence(void);
/* *old = fetch-and-add(*target, value) (seq_cst) behind a call. */
int bench_floor_fetch_add(long long *target, long long value, long long *old);

#endif
