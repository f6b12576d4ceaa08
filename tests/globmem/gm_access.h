/*
 * Test helpers for global-memory tests: byte access to any gptr through the
 * segment resolver (load/store when the target is mapped, MPI RMA on the
 * segment's window otherwise), and small MPI conveniences.
 */
#ifndef GM_ACCESS_H
#define GM_ACCESS_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "dart_segment.h"
#include "dart_test.h"

static inline void gm_put(dart_gptr_t g, const void *src, size_t n)
{
  dart__target_t t = {0};
  TEST_OK(dart__segment_resolve("gm_put", g, n, &t));
  if (t.local != NULL) {
    memcpy(t.local, src, n);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  } else {
    TEST_CHECK(MPI_Put(src, (int)n, MPI_BYTE, t.unit, t.disp, (int)n, MPI_BYTE,
                       t.seg->win) == MPI_SUCCESS);
    TEST_CHECK(MPI_Win_flush(t.unit, t.seg->win) == MPI_SUCCESS);
  }
}

static inline void gm_get(void *dst, dart_gptr_t g, size_t n)
{
  dart__target_t t = {0};
  TEST_OK(dart__segment_resolve("gm_get", g, n, &t));
  if (t.local != NULL) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    memcpy(dst, t.local, n);
  } else {
    TEST_CHECK(MPI_Get(dst, (int)n, MPI_BYTE, t.unit, t.disp, (int)n, MPI_BYTE,
                       t.seg->win) == MPI_SUCCESS);
    TEST_CHECK(MPI_Win_flush(t.unit, t.seg->win) == MPI_SUCCESS);
  }
}

/* Barrier on the world communicator with a memory fence around it. */
static inline void gm_barrier(void)
{
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  TEST_CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Gathers one gptr from every unit of MPI_COMM_WORLD. */
static inline void gm_allgather_gptr(dart_gptr_t mine, dart_gptr_t *all)
{
  TEST_CHECK(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine,
                           MPI_BYTE, MPI_COMM_WORLD) == MPI_SUCCESS);
}

/* Pattern byte of (owner, index, round). */
static inline unsigned char gm_pat(int owner, size_t i, int round)
{
  return (unsigned char)(owner * 31 + (int)(i % 251) * 7 + round * 13 + 1);
}

#endif /* GM_ACCESS_H */
