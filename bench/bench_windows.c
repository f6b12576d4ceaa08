/*
 * Put/get latency on each MPI window kind DART could use, to choose the
 * window scheme of global memory (docs/design.md): 8-byte MPI_Put +
 * MPI_Win_flush and MPI_Get + flush from unit 0 to unit 1 on
 *   shared    MPI_Win_allocate_shared (all units on one node)
 *   create/shm MPI_Win_create over MPI_Win_allocate_shared memory
 *   create/mem MPI_Win_create over MPI_Alloc_mem memory
 *   allocate  MPI_Win_allocate
 *   dynamic   MPI_Win_create_dynamic + MPI_Win_attach (reference only)
 * plus memcpy + fence through the shared mapping. Uses raw MPI only; DART
 * is initialised so that MPI runs with DART's settings.
 *
 * usage: bench_windows [iterations]
 */
#include <dash/dart/if/dart.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

enum { SHARED, CREATE_SHM, CREATE_MEM, ALLOCATE, DYNAMIC, NKINDS };
static const char *kind_name[] = {"shared", "create/shm", "create/mem",
                                  "allocate", "dynamic"};
static int me, nunits, same_node;
static MPI_Comm world;

typedef struct {
  MPI_Win win, shm;
  void *base, *mem;
  MPI_Aint disp;
} win_t;

static void make(int kind, win_t *w, MPI_Aint size)
{
  memset(w, 0, sizeof *w);
  w->shm = MPI_WIN_NULL;
  switch (kind) {
  case SHARED:
    MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, world, &w->base, &w->win);
    break;
  case CREATE_SHM:
    MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, world, &w->base, &w->shm);
    MPI_Win_create(w->base, size, 1, MPI_INFO_NULL, world, &w->win);
    break;
  case CREATE_MEM:
    MPI_Alloc_mem(size, MPI_INFO_NULL, &w->mem);
    w->base = w->mem;
    MPI_Win_create(w->base, size, 1, MPI_INFO_NULL, world, &w->win);
    break;
  case ALLOCATE:
    MPI_Win_allocate(size, 1, MPI_INFO_NULL, world, &w->base, &w->win);
    break;
  default:
    MPI_Alloc_mem(size, MPI_INFO_NULL, &w->mem);
    w->base = w->mem;
    MPI_Win_create_dynamic(MPI_INFO_NULL, world, &w->win);
    MPI_Win_attach(w->win, w->base, size);
    MPI_Get_address(w->base, &w->disp);
    MPI_Aint d = w->disp;
    /* unit 0 targets unit 1: fetch its address */
    MPI_Bcast(&d, 1, MPI_AINT, 1, world);
    w->disp = d;
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win);
}

static void destroy(int kind, win_t *w)
{
  MPI_Win_unlock_all(w->win);
  if (kind == DYNAMIC) MPI_Win_detach(w->win, w->base);
  MPI_Win_free(&w->win);
  if (w->shm != MPI_WIN_NULL) MPI_Win_free(&w->shm);
  if (w->mem) MPI_Free_mem(w->mem);
}

static double lat(win_t *w, int get, int iters)
{
  long long v = 42;
  MPI_Barrier(world);
  double t0 = MPI_Wtime();
  if (me == 0) {
    for (int i = 0; i < iters; i++) {
      if (get)
        MPI_Get(&v, 8, MPI_BYTE, 1, w->disp, 8, MPI_BYTE, w->win);
      else
        MPI_Put(&v, 8, MPI_BYTE, 1, w->disp, 8, MPI_BYTE, w->win);
      MPI_Win_flush(1, w->win);
    }
  }
  double dt = (MPI_Wtime() - t0) / iters * 1e6;
  MPI_Barrier(world);
  return dt;
}

static double memcpy_lat(int iters)
{
  win_t w;
  make(SHARED, &w, 64);
  MPI_Aint sz;
  int du;
  long long *peer, v = 42;
  MPI_Win_shared_query(w.win, 1, &sz, &du, &peer);
  MPI_Barrier(world);
  double t0 = MPI_Wtime();
  if (me == 0)
    for (int i = 0; i < iters; i++) {
      memcpy(peer, &v, 8);
      __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
  double dt = (MPI_Wtime() - t0) / iters * 1e6;
  MPI_Barrier(world);
  destroy(SHARED, &w);
  return dt;
}

int main(int argc, char **argv)
{
  same_node = bench_setup(&argc, &argv, &world, &me, &nunits);
  int iters = argc > 1 ? atoi(argv[1]) : 20000;
  if (nunits < 2) {
    if (me == 0) printf("bench_windows needs 2 units\n");
  } else {
    if (me == 0)
      printf(
          "# bench_windows: %d units, %d iterations, 8-byte op + flush [us]\n"
          "# %-12s %10s %10s\n",
          nunits, iters, "window", "put", "get");
    for (int k = 0; k < NKINDS; k++) {
      if (!same_node && (k == SHARED || k == CREATE_SHM)) continue;
      win_t w;
      make(k, &w, 4096);
      lat(&w, 0, iters / 10 + 1);
      double p = lat(&w, 0, iters), g = lat(&w, 1, iters);
      if (me == 0) printf("  %-12s %10.3f %10.3f\n", kind_name[k], p, g);
      destroy(k, &w);
    }
    if (same_node) {
      double m = memcpy_lat(iters * 10);
      if (me == 0) printf("  %-12s %10.3f %10s\n", "memcpy+fence", m, "-");
    }
  }
  MPI_Comm_free(&world);
  dart_exit();
  return 0;
}
