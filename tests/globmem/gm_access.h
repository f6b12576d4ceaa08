/*
 * Test helpers for global-memory tests: byte access to any gptr with the
 * blocking one-sided calls, and small MPI conveniences.
 */
#ifndef GM_ACCESS_H
#define GM_ACCESS_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "../onesided/os_common.h"
#include "globmem/dart_segment.h"
#include "dart_test.h"

static inline void gm_put(dart_gptr_t g, const void *src, size_t n)
{
  TEST_OK(dart_put_blocking(g, src, n, DART_TYPE_BYTE, DART_TYPE_BYTE));
}

static inline void gm_get(void *dst, dart_gptr_t g, size_t n)
{
  TEST_OK(dart_get_blocking(dst, g, n, DART_TYPE_BYTE, DART_TYPE_BYTE));
}

/* Barrier on the world communicator with a memory fence around it. */
/* Live MPI windows of global memory other than team heap chunks (which
 * stay until their team ends): what an allocation or registration that is
 * gone again must not leave behind. */
static inline int gm_windows(void)
{
  return dart__globmem_live_windows() - dart__globmem_heap_windows();
}

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
