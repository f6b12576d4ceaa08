/*
 * Atomics on the MPI path. The mechanism follows the capabilities probed
 * at dart_init (transport/probe.c, dart__caps.atomics):
 *
 * DART__ATOMICS_NATIVE: the MPI carried out every probed accumulate,
 * fetch-and-op and compare-and-swap correctly (MPICH, Open MPI's
 * osc/pt2pt), so DART uses MPI_Accumulate / MPI_Fetch_and_op /
 * MPI_Compare_and_swap directly.
 *
 * DART__ATOMICS_RESTRICTED: it got some wrong. Open MPI 4.1's osc/ucx is
 * the case at hand (checked with raw MPI): 1- and 2-byte types return
 * garbage, float/double SUM adds the bit patterns as integers, long
 * double fails, and ops UCX lacks (MIN, MAX, PROD, logical) are done
 * under a lock that the native ops (SUM, bitwise, REPLACE, NO_OP,
 * compare-and-swap on 4/8-byte integers) ignore. That last fault gives
 * right answers one at a time and cannot be probed, so an MPI that fails
 * any probe is trusted with the hardware-native set only: DART issues
 * those ops and builds everything else from them, per basic type, so
 * that all atomic ops on a location of one type use one mechanism:
 *   4/8-byte integers: native ops; MIN/MAX/PROD/logical by a
 *     compare-and-swap loop on the element;
 *   float/double: REPLACE/NO_OP as native swap/fetch of the bit pattern,
 *     all others by a compare-and-swap loop on the bit pattern;
 *   1/2-byte integers and long double (no native atomic of that size):
 *     get-compute-put under a per-target lock word (a 4-byte word in the
 *     reserved prefix just before the target's dart_memalloc pool, taken
 *     by compare-and-swap).
 *
 * DART__ATOMICS_LOCKED: even the native set failed; every atomic takes
 * the lock-word path.
 *
 * Open MPI's osc/rdma (the component Open MPI picks for windows over
 * private memory when the application initialized MPI with the default
 * settings; DART itself starts Open MPI without it) crashes in
 * MPI_Compare_and_swap of 8-byte types over btl/vader's emulated atomics
 * (open-mpi/ompi#7967, still in 4.1.4); 4-byte compare-and-swap, put and
 * get work. On such windows every atomic takes the lock-word path, whose
 * lock word is 4 bytes. A crash cannot be probed: the component is read
 * per window from its name (src/globmem/sidewin.c, transport/probe.h).
 * Emulated operations complete before they return.
 */
#include "transport/cpu_atomic.h"
#include "transport/probe.h"
#include "transport/transport.h"

typedef enum { ATOMIC_NATIVE, ATOMIC_CAS_LOOP, ATOMIC_LOCKED } atomic_path_t;

static bool native_op(dart_operation_t op)
{
  return op == DART_OP_SUM || op == DART_OP_BAND || op == DART_OP_BOR ||
         op == DART_OP_BXOR || op == DART_OP_REPLACE || op == DART_OP_NO_OP;
}

/* How an op on a basic type is carried out on the MPI path of t. */
static atomic_path_t atomic_path(const dart__rma_target_t *tg,
                                 dart_datatype_t t, size_t esz,
                                 dart_operation_t op)
{
  if (tg->osc == DART__OSC_OMPI_RDMA) return ATOMIC_LOCKED;
  if (dart__caps.atomics == DART__ATOMICS_NATIVE) return ATOMIC_NATIVE;
  if (dart__caps.atomics == DART__ATOMICS_LOCKED) return ATOMIC_LOCKED;
  if (esz != 4 && esz != 8) return ATOMIC_LOCKED;
  bool fp = (t == DART_TYPE_FLOAT || t == DART_TYPE_DOUBLE);
  if (native_op(op) && (!fp || op == DART_OP_REPLACE || op == DART_OP_NO_OP))
    return ATOMIC_NATIVE;
  return ATOMIC_CAS_LOOP;
}

/* Same-sized integer MPI type carrying a 4/8-byte element's bits. */
static MPI_Datatype bits_type(size_t esz)
{
  return esz == 4 ? MPI_INT32_T : MPI_INT64_T;
}

/*
 * MPI type of every MPI atomic on an element of type ty. MPI makes
 * atomics atomic with each other only for the same datatype: in restricted
 * mode the native ops, the compare-and-swap loops and compare-and-swap itself
 * all carry a 4/8-byte element as the same-sized integer (the native ops
 * are bitwise or two's complement, so the result is the same).
 */
static MPI_Datatype atomic_mpi_type(MPI_Datatype elem, size_t esz)
{
  return dart__caps.atomics != DART__ATOMICS_NATIVE && (esz == 4 || esz == 8)
             ? bits_type(esz)
             : elem;
}

static dart_ret_t mpi_fail(const char *func, const char *call, int rc)
{
  dart__mpi_log_error(func, call, rc);
  return DART_ERR_OTHER;
}

#define MPI_OR_FAIL(func, call)                                                \
  do {                                                                         \
    int rc_ = (call);                                                          \
    if (rc_ != MPI_SUCCESS) return mpi_fail(func, #call, rc_);                 \
  } while (0)

/* A flush that failed was logged by dart__flush_target. */
#define FLUSH_OR_FAIL(call)                                                    \
  do {                                                                         \
    dart_ret_t r_ = (call);                                                    \
    if (r_ != DART_OK) return r_;                                              \
  } while (0)

/* Compare-and-swap loop: old = *target; *target = old op val. */
static dart_ret_t cas_loop(const char *func, MPI_Win win, int unit,
                           MPI_Aint disp, size_t esz, const void *val,
                           void *old, dart_datatype_t t, dart_operation_t op)
{
  MPI_Datatype bt = bits_type(esz);
  _Alignas(16) char cur[8], next[8], prev[8];
  /* origin ignored by NO_OP, but must not overlap the result */
  MPI_OR_FAIL(func,
              MPI_Fetch_and_op(next, cur, bt, unit, disp, MPI_NO_OP, win));
  FLUSH_OR_FAIL(dart__flush_target(func, win, unit));
  for (uint64_t it = 0;; it++) {
    dart__atomic_combine(next, cur, val, t, op);
    MPI_OR_FAIL(func,
                MPI_Compare_and_swap(next, cur, prev, bt, unit, disp, win));
    FLUSH_OR_FAIL(dart__flush_target(func, win, unit));
    if (memcmp(prev, cur, esz) == 0) break;
    memcpy(cur, prev, esz);
    dart__backoff(it);
  }
  if (old != NULL) memcpy(old, cur, esz);
  return DART_OK;
}

/* Where the lock words are: set by the memory layer (dart_memalloc pool). */
static dart__rma_locate_t lock_locate;

void dart__atomic_set_lock_words(dart__rma_locate_t locate)
{
  lock_locate = locate;
}

/* Lock word of emulated atomics on team unit t->unit's memory (found by
 * the memory layer from the unit's global id). */
static dart_ret_t lock_target(const char *func, const dart__rma_target_t *t,
                              dart__rma_target_t *lock)
{
  const dart__team_t *team = dart__team_get(t->team);
  int u = team != NULL ? team->l2g[t->unit] : -1;
  dart__rma_locate_t locate = lock_locate;
  if (locate == NULL || u < 0 || !locate(u, lock)) {
    dart__log(DART__LOG_ERROR, func, "no lock word for unit %d", u);
    return DART_ERR_INVAL;
  }
  return DART_OK;
}

/* Get-compute-put of one element; the caller holds the lock word. */
static dart_ret_t locked_body(const char *func, const dart__rma_target_t *t,
                              size_t esz, const void *val, const void *cmp,
                              void *old, dart_datatype_t dt,
                              dart_operation_t op)
{
  MPI_Win w = t->win;
  _Alignas(16) char cur[16], next[16];
  MPI_OR_FAIL(func, MPI_Get(cur, (int)esz, MPI_BYTE, t->unit, t->disp, (int)esz,
                            MPI_BYTE, w));
  FLUSH_OR_FAIL(dart__flush_target(func, w, t->unit));
  bool write = true;
  if (cmp != NULL) { /* compare-and-swap */
    write = memcmp(cur, cmp, esz) == 0;
    memcpy(next, val, esz);
  } else if (op == DART_OP_NO_OP) {
    write = false;
  } else {
    dart__atomic_combine(next, cur, val, dt, op);
  }
  if (write) {
    MPI_OR_FAIL(func, MPI_Put(next, (int)esz, MPI_BYTE, t->unit, t->disp,
                              (int)esz, MPI_BYTE, w));
    FLUSH_OR_FAIL(dart__flush_target(func, w, t->unit));
  }
  if (old != NULL) memcpy(old, cur, esz);
  return DART_OK;
}

/*
 * Get-compute-put of one element under the target's lock word (4 bytes,
 * 0 = free, else the holder's global id + 1). The lock is released on
 * every path, failures included.
 */
static dart_ret_t locked_op(const char *func, const dart__rma_target_t *t,
                            size_t esz, const void *val, const void *cmp,
                            void *old, dart_datatype_t dt, dart_operation_t op)
{
  dart__rma_target_t lk = {0};
  dart_ret_t ret = lock_target(func, t, &lk);
  if (ret != DART_OK) return ret;
  dart__rma_mark(&lk);
  MPI_Win lw = lk.win;
  int32_t zero = 0, mine = dart__g.myid + 1, seen = -1;
  DART__WATCH(func, "the lock word of emulated atomics", (int)DART_TEAM_ALL, 0,
              lk.unit, -1);
  for (uint64_t it = 0; seen != 0; it++) {
    /* The holder may need this unit's MPI engine for its get or put (the
     * lock word may sit in shared memory, whose CAS never enters MPI). */
    if (it > 0) dart__wait_poll(it);
    int rc = MPI_Compare_and_swap(&mine, &zero, &seen, MPI_INT32_T, lk.unit,
                                  lk.disp, lw);
    if (rc == MPI_SUCCESS) rc = MPI_Win_flush(lk.unit, lw);
    if (rc != MPI_SUCCESS) {
      dart__watch_end();
      return mpi_fail(func, "MPI_Compare_and_swap on the lock word", rc);
    }
  }
  dart__watch_end();
  ret = locked_body(func, t, esz, val, cmp, old, dt, op);
  MPI_OR_FAIL(func, MPI_Fetch_and_op(&zero, &seen, MPI_INT32_T, lk.unit,
                                     lk.disp, MPI_REPLACE, lw));
  FLUSH_OR_FAIL(dart__flush_target(func, lw, lk.unit));
  return ret;
}

dart_ret_t dart__mpi_atomic(const char *func, const dart__rma_target_t *t,
                            const void *vals, void *old, size_t nelem,
                            MPI_Datatype elem, size_t esz, dart_datatype_t dt,
                            dart_operation_t op, MPI_Op mop)
{
  MPI_Win win = t->win;
  atomic_path_t path = atomic_path(t, dt, esz, op);
  dart__rma_mark(t);
  if (path == ATOMIC_NATIVE && old != NULL) {
    MPI_Datatype mt = atomic_mpi_type(elem, esz);
    MPI_OR_FAIL(func,
                MPI_Fetch_and_op(vals, old, mt, t->unit, t->disp, mop, win));
    return dart__flush_target(func, win, t->unit);
  }
  if (path == ATOMIC_NATIVE) { /* accumulate: MPI does not take NO_OP */
    if (op == DART_OP_NO_OP) return DART_OK;
    MPI_Datatype mt = atomic_mpi_type(elem, esz);
    for (size_t done = 0; done < nelem;) {
      size_t n = nelem - done;
      if (n > dart__rma_max_count) n = dart__rma_max_count;
      MPI_OR_FAIL(func,
                  MPI_Accumulate((const char *)vals + done * esz, (int)n, mt,
                                 t->unit, t->disp + (MPI_Aint)(done * esz),
                                 (int)n, mt, mop, win));
      done += n;
    }
    return DART_OK;
  }
  /* Emulations: one element at a time, each complete on return. */
  for (size_t i = 0; i < nelem; i++) {
    dart__rma_target_t ti = *t;
    ti.disp += (MPI_Aint)(i * esz);
    const char *v = (const char *)vals + i * esz;
    char *o = old ? (char *)old + i * esz : NULL;
    dart_ret_t ret =
        path == ATOMIC_CAS_LOOP
            ? cas_loop(func, win, t->unit, ti.disp, esz, v, o, dt, op)
            : locked_op(func, &ti, esz, v, NULL, o, dt, op);
    if (ret != DART_OK) return ret;
  }
  return DART_OK;
}

dart_ret_t dart__mpi_cas(const char *func, const dart__rma_target_t *t,
                         const void *val, const void *cmp, void *old,
                         MPI_Datatype elem, size_t esz, dart_datatype_t dt)
{
  dart__rma_mark(t);
  if ((dart__caps.atomics != DART__ATOMICS_NATIVE && esz != 4 && esz != 8) ||
      dart__caps.atomics == DART__ATOMICS_LOCKED ||
      t->osc == DART__OSC_OMPI_RDMA)
    return locked_op(func, t, esz, val, cmp, old, dt, DART_OP_REPLACE);
  MPI_OR_FAIL(func,
              MPI_Compare_and_swap(val, cmp, old, atomic_mpi_type(elem, esz),
                                   t->unit, t->disp, t->win));
  return dart__flush_target(func, t->win, t->unit);
}
