/*
 * Active-set collectives (OpenSHMEM 1.4 forms with pSync, deprecated in 1.5).
 *
 * Only the PEs of the set take part, so no DART team can be made for them;
 * everything is one-sided over the symmetric arrays:
 *  - sync: member 0 counts arrivals in its pSync[0] (remote atomic adds),
 *    then adds 1 to every other member's pSync[1]; each waits for its word
 *    and subtracts what it consumed, so the words are back at
 *    SHMEM_SYNC_VALUE when the call returns (an arrival of the next call on
 *    the same pSync is kept, not lost);
 *  - data: after a sync every member pulls what it needs from the others'
 *    symmetric source with dart_get, then a second sync keeps the sources
 *    alive until everyone has read them. No PE writes another PE's dest.
 * collect also publishes each member's size in its pSync[2] for the sync.
 *
 * An active set of every PE (PE_start 0, stride 1, all PEs: what most
 * programs and OSU's benchmarks pass) is DART_TEAM_ALL: those calls go to
 * DART's collectives on it (one MPI collective each, the collective wait
 * policy of dart_init) and leave pSync untouched, so it stays at
 * SHMEM_SYNC_VALUE as the spec requires on return. Every member sees the
 * same set, so all take the same path.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shmem_coll.h"

void shmemi_backoff(unsigned *round)
{
  unsigned r = (*round)++;
  if (r < 32) return;
  if (r < 256) {
    sched_yield();
    return;
  }
  unsigned shift = (r - 256) / 64;
  long ns = 1000L << (shift > 7 ? 7 : shift); /* 1 us .. 128 us */
  struct timespec ts = {0, ns};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static dart_gptr_t sym_gptr(const char *func, const void *sym, int pe)
{
  dart_gptr_t g;
  if (shmemi_gptr(sym, pe, &g) != 0)
    shmemi_fatal(func, "address %p is not symmetric", sym);
  return g;
}

static long amo(const char *func, long *sym, int pe, long val,
                dart_operation_t op)
{
  dart_gptr_t g = sym_gptr(func, sym, pe);
  long old = 0;
  if (dart_fetch_and_op(g, &val, &old, DART_TYPE_LONG, op) != DART_OK ||
      dart_flush(g) != DART_OK)
    shmemi_fatal(func, "atomic on pSync of PE %d failed", pe);
  return old;
}

void shmemi_coll_get(const char *func, void *dest, const void *sym,
                     size_t nbytes, int pe)
{
  if (nbytes == 0) return;
  if (pe == shmemi_my_pe()) {
    memmove(dest, sym, nbytes);
    return;
  }
  dart_gptr_t g = sym_gptr(func, sym, pe);
  if (dart_get_blocking(dest, g, nbytes, DART_TYPE_BYTE, DART_TYPE_BYTE) !=
      DART_OK)
    shmemi_fatal(func, "get of %zu bytes from PE %d failed", nbytes, pe);
}

shmemi_aset_t shmemi_aset_make(const char *func, int PE_start, int logPE_stride,
                               int PE_size, const long *pSync)
{
  shmemi_aset_t as = {PE_start, 0, PE_size, -1};
  int n = shmemi_n_pes(), me = shmemi_my_pe();
  shmemi_check_init(func);
  if (logPE_stride < 0 || logPE_stride > 30)
    shmemi_fatal(func, "logPE_stride %d out of range", logPE_stride);
  as.stride = 1 << logPE_stride;
  if (PE_start < 0 || PE_start >= n || PE_size < 1 ||
      (long)PE_start + (long)as.stride * (PE_size - 1) >= n)
    shmemi_fatal(func,
                 "active set (PE_start %d, logPE_stride %d, PE_size %d) "
                 "out of range for %d PEs",
                 PE_start, logPE_stride, PE_size, n);
  if (pSync == NULL) shmemi_fatal(func, "pSync is NULL");
  if (me >= PE_start && (me - PE_start) % as.stride == 0 &&
      (me - PE_start) / as.stride < PE_size)
    as.me = (me - PE_start) / as.stride;
  if (as.me < 0)
    shmemi_fatal(func, "PE %d is not in the active set (%d, %d, %d)", me,
                 PE_start, logPE_stride, PE_size);
  return as;
}

static int aset_pe(const shmemi_aset_t *as, int i)
{
  return as->start + i * as->stride;
}

/* The set of every PE (its range check leaves start 0, stride 1). */
static int aset_world(const shmemi_aset_t *as)
{
  return as->size == shmemi_n_pes();
}

static void dart_ok(const char *func, dart_ret_t ret, const char *what)
{
  if (ret != DART_OK) shmemi_fatal(func, "%s failed", what);
}

/* Waits until the own pSync[slot] exceeds SHMEM_SYNC_VALUE by at least
 * count, then takes count away. */
static void consume(const char *func, long *word, long count)
{
  int me = shmemi_my_pe();
  unsigned round = 0;
  while (amo(func, word, me, 0, DART_OP_NO_OP) - SHMEM_SYNC_VALUE < count)
    shmemi_backoff(&round);
  amo(func, word, me, -count, DART_OP_SUM);
}

void shmemi_aset_sync(const char *func, const shmemi_aset_t *as, long *pSync)
{
  if (as->size == 1) return;
  if (aset_world(as)) {
    dart_ok(func, dart_barrier(DART_TEAM_ALL), "dart_barrier");
    return;
  }
  if (as->me != 0) {
    amo(func, &pSync[0], aset_pe(as, 0), 1, DART_OP_SUM);
    consume(func, &pSync[1], 1);
    return;
  }
  consume(func, &pSync[0], as->size - 1);
  for (int i = 1; i < as->size; i++)
    amo(func, &pSync[1], aset_pe(as, i), 1, DART_OP_SUM);
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
  static const char *fn = "shmem_barrier";
  shmemi_aset_t as =
      shmemi_aset_make(fn, PE_start, logPE_stride, PE_size, pSync);
  shmemi_quiet_all();
  shmemi_aset_sync(fn, &as, pSync);
}
SHMEMI_ALIAS(shmem_barrier);

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
  static const char *fn = "shmem_sync";
  shmemi_aset_t as =
      shmemi_aset_make(fn, PE_start, logPE_stride, PE_size, pSync);
  shmemi_aset_sync(fn, &as, pSync);
}
SHMEMI_ALIAS(shmem_sync);

static void check_ptrs(const char *func, const void *dest, const void *source,
                       size_t nbytes)
{
  if (nbytes > 0 && (dest == NULL || source == NULL))
    shmemi_fatal(func, "%s is NULL", dest == NULL ? "dest" : "source");
}

static void active_bcast(const char *fn, void *dest, const void *source,
                         size_t nbytes, int PE_root, int PE_start,
                         int logPE_stride, int PE_size, long *pSync)
{
  shmemi_aset_t as =
      shmemi_aset_make(fn, PE_start, logPE_stride, PE_size, pSync);
  if (PE_root < 0 || PE_root >= PE_size)
    shmemi_fatal(fn, "PE_root %d out of range for an active set of %d PEs",
                 PE_root, PE_size);
  check_ptrs(fn, dest, source, nbytes);
  if (aset_world(&as)) { /* the root's dest stays as it is (1.4) */
    if (nbytes > 0 &&
        !shmemi_direct_bcast(fn, dest, source, nbytes, PE_root, 0))
      dart_ok(fn,
              dart_bcast(as.me == PE_root ? (void *)source : dest, nbytes,
                         DART_TYPE_BYTE, DART_TEAM_UNIT_ID(PE_root),
                         DART_TEAM_ALL),
              "dart_bcast");
    return;
  }
  shmemi_aset_sync(fn, &as, pSync);
  if (as.me != PE_root)
    shmemi_coll_get(fn, dest, source, nbytes, aset_pe(&as, PE_root));
  shmemi_aset_sync(fn, &as, pSync);
}

void shmem_broadcast32(void *dest, const void *source, size_t nelems,
                       int PE_root, int PE_start, int logPE_stride, int PE_size,
                       long *pSync)
{
  active_bcast("shmem_broadcast32", dest, source, nelems * 4, PE_root, PE_start,
               logPE_stride, PE_size, pSync);
}
SHMEMI_ALIAS(shmem_broadcast32);

void shmem_broadcast64(void *dest, const void *source, size_t nelems,
                       int PE_root, int PE_start, int logPE_stride, int PE_size,
                       long *pSync)
{
  active_bcast("shmem_broadcast64", dest, source, nelems * 8, PE_root, PE_start,
               logPE_stride, PE_size, pSync);
}
SHMEMI_ALIAS(shmem_broadcast64);

/* collect/fcollect over every PE: DART's allgather(v) (collect first
 * gathers the sizes). */
static void world_collect(const char *fn, void *dest, const void *source,
                          size_t nbytes, int fixed, int n)
{
  if (fixed) {
    if (nbytes > 0 && !shmemi_direct_fcollect(fn, dest, source, nbytes))
      dart_ok(
          fn,
          dart_allgather(source, dest, nbytes, DART_TYPE_BYTE, DART_TEAM_ALL),
          "dart_allgather");
    return;
  }
  size_t *cnt = malloc(2 * (size_t)n * sizeof *cnt);
  if (cnt == NULL) shmemi_fatal(fn, "out of memory (%d PEs)", n);
  size_t *displ = cnt + n;
  int done = shmemi_direct_collect(fn, dest, source, nbytes, cnt, displ);
  if (done < 0) shmemi_fatal(fn, "gathering the sizes failed");
  size_t off = displ[n - 1] + cnt[n - 1];
  static const char none; /* a PE with nothing to add may pass NULL */
  if (!done && off > 0)
    dart_ok(fn,
            dart_allgatherv(nbytes > 0 ? source : &none, nbytes, DART_TYPE_BYTE,
                            dest, cnt, displ, DART_TEAM_ALL),
            "dart_allgatherv");
  free(cnt);
}

/* fcollect when sizes == NULL (every block nbytes), collect otherwise. */
static void active_collect(const char *fn, void *dest, const void *source,
                           size_t nbytes, int fixed, int PE_start,
                           int logPE_stride, int PE_size, long *pSync)
{
  shmemi_aset_t as =
      shmemi_aset_make(fn, PE_start, logPE_stride, PE_size, pSync);
  int me = shmemi_my_pe();
  check_ptrs(fn, dest, source, nbytes);
  if (aset_world(&as)) {
    world_collect(fn, dest, source, nbytes, fixed, as.size);
    return;
  }
  if (!fixed) amo(fn, &pSync[2], me, (long)nbytes, DART_OP_SUM);
  shmemi_aset_sync(fn, &as, pSync);
  size_t off = 0;
  for (int i = 0; i < as.size; i++) {
    int pe = aset_pe(&as, i);
    size_t n = nbytes;
    if (!fixed)
      n = (size_t)(amo(fn, &pSync[2], pe, 0, DART_OP_NO_OP) - SHMEM_SYNC_VALUE);
    shmemi_coll_get(fn, (char *)dest + off, source, n, pe);
    off += n;
  }
  shmemi_aset_sync(fn, &as, pSync);
  if (!fixed) amo(fn, &pSync[2], me, -(long)nbytes, DART_OP_SUM);
}

void shmem_collect32(void *dest, const void *source, size_t nelems,
                     int PE_start, int logPE_stride, int PE_size, long *pSync)
{
  active_collect("shmem_collect32", dest, source, nelems * 4, 0, PE_start,
                 logPE_stride, PE_size, pSync);
}
SHMEMI_ALIAS(shmem_collect32);

void shmem_collect64(void *dest, const void *source, size_t nelems,
                     int PE_start, int logPE_stride, int PE_size, long *pSync)
{
  active_collect("shmem_collect64", dest, source, nelems * 8, 0, PE_start,
                 logPE_stride, PE_size, pSync);
}
SHMEMI_ALIAS(shmem_collect64);

void shmem_fcollect32(void *dest, const void *source, size_t nelems,
                      int PE_start, int logPE_stride, int PE_size, long *pSync)
{
  active_collect("shmem_fcollect32", dest, source, nelems * 4, 1, PE_start,
                 logPE_stride, PE_size, pSync);
}
SHMEMI_ALIAS(shmem_fcollect32);

void shmem_fcollect64(void *dest, const void *source, size_t nelems,
                      int PE_start, int logPE_stride, int PE_size, long *pSync)
{
  active_collect("shmem_fcollect64", dest, source, nelems * 8, 1, PE_start,
                 logPE_stride, PE_size, pSync);
}
SHMEMI_ALIAS(shmem_fcollect64);

/* Block me of member i's source (nelems elements sst apart) goes to block i
 * of dest (dst apart). dst == sst == 1 is alltoall. */
static void active_alltoalls(const char *fn, void *dest, const void *source,
                             ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                             size_t esize, int PE_start, int logPE_stride,
                             int PE_size, long *pSync)
{
  shmemi_aset_t as =
      shmemi_aset_make(fn, PE_start, logPE_stride, PE_size, pSync);
  if (dst < 1 || sst < 1)
    shmemi_fatal(fn, "stride %td is not positive", dst < 1 ? dst : sst);
  check_ptrs(fn, dest, source, nelems);
  size_t span = nelems == 0 ? 0 : ((nelems - 1) * (size_t)sst + 1) * esize;
  char *tmp = NULL;
  if (aset_world(&as) && sst == 1 && dst == 1) {
    if (nelems > 0)
      dart_ok(fn,
              dart_alltoall(source, dest, nelems * esize, DART_TYPE_BYTE,
                            DART_TEAM_ALL),
              "dart_alltoall");
    return;
  }
  if (nelems > 0 && (sst != 1 || dst != 1) && (tmp = malloc(span)) == NULL)
    shmemi_fatal(fn, "out of memory (%zu bytes)", span);
  shmemi_aset_sync(fn, &as, pSync);
  for (int i = 0; i < as.size && nelems > 0; i++) {
    const char *src = (const char *)source + as.me * nelems * sst * esize;
    char *d = (char *)dest + (size_t)i * nelems * (size_t)dst * esize;
    if (tmp == NULL) {
      shmemi_coll_get(fn, d, src, nelems * esize, aset_pe(&as, i));
      continue;
    }
    shmemi_coll_get(fn, tmp, src, span, aset_pe(&as, i));
    for (size_t k = 0; k < nelems; k++)
      memcpy(d + k * (size_t)dst * esize, tmp + k * (size_t)sst * esize, esize);
  }
  shmemi_aset_sync(fn, &as, pSync);
  free(tmp);
}

void shmem_alltoall32(void *dest, const void *source, size_t nelems,
                      int PE_start, int logPE_stride, int PE_size, long *pSync)
{
  active_alltoalls("shmem_alltoall32", dest, source, 1, 1, nelems, 4, PE_start,
                   logPE_stride, PE_size, pSync);
}
SHMEMI_ALIAS(shmem_alltoall32);

void shmem_alltoall64(void *dest, const void *source, size_t nelems,
                      int PE_start, int logPE_stride, int PE_size, long *pSync)
{
  active_alltoalls("shmem_alltoall64", dest, source, 1, 1, nelems, 8, PE_start,
                   logPE_stride, PE_size, pSync);
}
SHMEMI_ALIAS(shmem_alltoall64);

void shmem_alltoalls32(void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, int PE_start,
                       int logPE_stride, int PE_size, long *pSync)
{
  active_alltoalls("shmem_alltoalls32", dest, source, dst, sst, nelems, 4,
                   PE_start, logPE_stride, PE_size, pSync);
}
SHMEMI_ALIAS(shmem_alltoalls32);

void shmem_alltoalls64(void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, int PE_start,
                       int logPE_stride, int PE_size, long *pSync)
{
  active_alltoalls("shmem_alltoalls64", dest, source, dst, sst, nelems, 8,
                   PE_start, logPE_stride, PE_size, pSync);
}
SHMEMI_ALIAS(shmem_alltoalls64);

/* Over every PE, up to this many bytes of gathered sources: one
 * allgather of all sources, then the same member-order combination. */
#define WORLD_REDUCE_MAX ((size_t)16 << 20)

static void world_reduce(const char *fn, void *dest, const void *source,
                         int nreduce, size_t nbytes, int n, shmemi_dtype_t dt,
                         shmemi_op_t op)
{
  char *all = malloc(nbytes * (size_t)n);
  if (all == NULL) shmemi_fatal(fn, "out of memory (%zu bytes)", nbytes * n);
  dart_ok(fn,
          dart_allgather(source, all, nbytes, DART_TYPE_BYTE, DART_TEAM_ALL),
          "dart_allgather");
  for (int i = 1; i < n; i++)
    if (shmemi_reduce_apply(dt, op, all, all + (size_t)i * nbytes,
                            (size_t)nreduce) != 0)
      shmemi_fatal(fn, "no reduction %d on type %s", (int)op,
                   shmemi_dtype_name(dt));
  memcpy(dest, all, nbytes);
  free(all);
}

/* Every member combines the sources in member order (so all get the same
 * bits for floating point), then a sync before dest is written, since dest
 * may be the source others are still reading. */
void shmemi_active_reduce(void *dest, const void *source, int nreduce,
                          int PE_start, int logPE_stride, int PE_size,
                          void *pWrk, long *pSync, shmemi_dtype_t dt,
                          shmemi_op_t op)
{
  static const char *fn = "shmem_TYPE_OP_to_all";
  (void)pWrk;
  shmemi_aset_t as =
      shmemi_aset_make(fn, PE_start, logPE_stride, PE_size, pSync);
  if (nreduce < 0) shmemi_fatal(fn, "nreduce %d is negative", nreduce);
  size_t esz = shmemi_dtype_size(dt), nbytes = (size_t)nreduce * esz;
  check_ptrs(fn, dest, source, nbytes);
  if (aset_world(&as) && nbytes > 0 &&
      shmemi_direct_reduce(fn, dest, source, (size_t)nreduce, dt, op))
    return;
  if (aset_world(&as) && nbytes > 0 &&
      nbytes <= WORLD_REDUCE_MAX / (size_t)as.size) {
    world_reduce(fn, dest, source, nreduce, nbytes, as.size, dt, op);
    return;
  }
  char *acc = malloc(nbytes + 1), *in = malloc(nbytes + 1);
  if (acc == NULL || in == NULL)
    shmemi_fatal(fn, "out of memory (%zu bytes)", 2 * nbytes);
  shmemi_aset_sync(fn, &as, pSync);
  shmemi_coll_get(fn, acc, source, nbytes, aset_pe(&as, 0));
  for (int i = 1; i < as.size; i++) {
    shmemi_coll_get(fn, in, source, nbytes, aset_pe(&as, i));
    if (shmemi_reduce_apply(dt, op, acc, in, (size_t)nreduce) != 0)
      shmemi_fatal(fn, "no reduction %d on type %s", (int)op,
                   shmemi_dtype_name(dt));
  }
  shmemi_aset_sync(fn, &as, pSync);
  memcpy(dest, acc, nbytes);
  free(acc);
  free(in);
}
