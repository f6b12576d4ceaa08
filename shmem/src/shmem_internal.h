/*
 * Internal interface of libdart-shmem (the OpenSHMEM layer over DART).
 *
 * Only DART's public API (<dash/dart/if/...>) and the extension interface
 * <dash/dart/ext/dartx.h> are used; nothing from DART's src/.
 *
 * Profiling names: every library source is compiled with the generated
 * shmemi_rename.h forced in (-include), which renames each API function
 * shmem_x to pshmem_x. A source that DEFINES an API function writes it with
 * its public name and puts SHMEMI_ALIAS(shmem_x); after the definition,
 * which makes shmem_x a weak alias of pshmem_x (as DART's pdart_/dart_).
 * Calls between API functions inside the library go to pshmem_x.
 *
 * Internal symbols are shmemi_* and hidden (SHMEMI_HIDDEN).
 */
#ifndef SHMEM_INTERNAL_H
#define SHMEM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dash/dart/if/dart.h>
#include <shmem.h>

#include "shmem_track.h"
#include "shmemi_types_gen.h"

#define SHMEMI_HIDDEN __attribute__((visibility("hidden")))

/* Makes shmem_x a weak alias of the (renamed) definition pshmem_x. The
 * argument is stringified, so the rename macro does not apply to it. */
#define SHMEMI_ALIAS(f) __asm__(".weak " #f "\n\t.set " #f ", p" #f "\n\t")

/* ---- State --------------------------------------------------------------
 */
typedef struct {
  int initialized; /* 1 between shmem_init and shmem_finalize      */
  int finalized;
  int my_pe, n_pes;
  int thread_level;      /* SHMEM_THREAD_* provided                      */
  int dart_owned;        /* shmem_init started DART (finalize stops it)  */
  dart_gptr_t heap_gptr; /* the symmetric heap: one DART_TEAM_ALL segment */
  char *heap_base;       /* the caller's heap origin (in its portion)     */
  size_t heap_size;      /* usable bytes from the origin                  */
  char **heap_peer;   /* [n_pes] load/store origin of each PE's heap, or NULL */
  uint64_t *heap_pad; /* [n_pes] pad of each PE's heap origin in its DART
                         portion (heap.c)                                */
  dart_gptr_t data_gptr; /* data+BSS registration (DART_TEAM_ALL)        */
  char *data_base;
  size_t data_size;
  char **data_peer;     /* [n_pes] load/store origin of each PE's data+BSS,
                           or NULL (data.c) */
  int data_cpu_atomics; /* atomics on data+BSS are CPU atomics (every PE
                           maps every PE's data+BSS) */
  int single_node;      /* every PE on the caller's node                   */
} shmemi_state_t;

extern shmemi_state_t shmemi_g SHMEMI_HIDDEN;

/* ---- The core (init.c, heap.c, ctx.c, rma.c, amo.c, sync.c) -------------
 */
SHMEMI_HIDDEN int shmemi_my_pe(void);
SHMEMI_HIDDEN int shmemi_n_pes(void);
/* Global pointer (DART_TEAM_ALL, unit world_pe) of a symmetric address:
 * 0 ok, -1 not a symmetric address (heap or data/BSS). */
SHMEMI_HIDDEN int shmemi_gptr(const void *sym_addr, int world_pe,
                              dart_gptr_t *out);
/* Load/store address of sym_addr on world_pe, or NULL. */
SHMEMI_HIDDEN void *shmemi_local_ptr(const void *sym_addr, int world_pe);
/* data.c: moves the caller's data+BSS [base, base + len) into shared
 * memory and maps node peers' (collective; before the registration). */
SHMEMI_HIDDEN void shmemi_data_map(char *base, size_t len, const char *fn);
SHMEMI_HIDDEN void shmemi_data_unmap(void);
/* Completes every context's outstanding operations. */
SHMEMI_HIDDEN void shmemi_quiet_all(void);
/* One line "shmem: <func>: <message>" on stderr, then the job aborts. */
SHMEMI_HIDDEN _Noreturn void shmemi_fatal(const char *func, const char *fmt,
                                          ...)
    __attribute__((format(printf, 2, 3)));
/* One line "shmem: <func>: <message>" on stderr (error with return code). */
SHMEMI_HIDDEN void shmemi_warn(const char *func, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Fatal (one line naming func) outside shmem_init .. shmem_finalize. */
SHMEMI_HIDDEN __attribute__((cold, noreturn)) void
shmemi_not_init(const char *func);
static inline void shmemi_check_init(const char *func)
{
  if (__builtin_expect(!shmemi_g.initialized, 0)) shmemi_not_init(func);
}
/* Collective symmetric allocation without user-visible barrier semantics
 * (NULL if it does not fit; size 0 gives NULL). */
SHMEMI_HIDDEN void *shmemi_sym_alloc(size_t size, size_t align);
SHMEMI_HIDDEN void shmemi_sym_free(void *ptr);

/* ---- Teams and collectives (team.c, coll*.c): what the core and the
 * generated wrappers call; shmem_team.h and shmem_coll.h add what only the
 * team and collective files share. */
SHMEMI_HIDDEN int shmemi_team_init(void);
SHMEMI_HIDDEN void shmemi_team_fini(void);
/* World PE of team PE team_pe, -1 if out of range or team invalid. */
SHMEMI_HIDDEN int shmemi_team_world_pe(shmem_team_t team, int team_pe);
/* The DART team of a valid team, DART_TEAM_NULL otherwise. */
SHMEMI_HIDDEN dart_team_t shmemi_team_dart(shmem_team_t team);
/* 1 if team is a live team handle (not INVALID, not destroyed). */
SHMEMI_HIDDEN int shmemi_team_valid(shmem_team_t team);
SHMEMI_HIDDEN int shmemi_team_reduce(shmem_team_t team, void *dest,
                                     const void *source, size_t nreduce,
                                     shmemi_dtype_t dt, shmemi_op_t op);
SHMEMI_HIDDEN void shmemi_active_reduce(void *dest, const void *source,
                                        int nreduce, int PE_start,
                                        int logPE_stride, int PE_size,
                                        void *pWrk, long *pSync,
                                        shmemi_dtype_t dt, shmemi_op_t op);
SHMEMI_HIDDEN int shmemi_team_broadcast(shmem_team_t team, void *dest,
                                        const void *src, size_t nbytes,
                                        int root);
SHMEMI_HIDDEN int shmemi_team_collect(shmem_team_t team, void *dest,
                                      const void *src, size_t nbytes);
SHMEMI_HIDDEN int shmemi_team_fcollect(shmem_team_t team, void *dest,
                                       const void *src, size_t nbytes);
SHMEMI_HIDDEN int shmemi_team_alltoall(shmem_team_t team, void *dest,
                                       const void *src, size_t nbytes);
SHMEMI_HIDDEN int shmemi_team_alltoalls(shmem_team_t team, void *dest,
                                        const void *src, ptrdiff_t dst,
                                        ptrdiff_t sst, size_t nelems,
                                        size_t elem_size);

/* ---- Types ---------------------------------------------------------------
 */
typedef struct {
  size_t size;
  dart_datatype_t dart; /* DART_TYPE_UNDEFINED: no DART atomics  */
  const char *name;
} shmemi_dtinfo_t;
extern const shmemi_dtinfo_t shmemi_dtinfo[SHMEMI_DT_COUNT] SHMEMI_HIDDEN;

/* ---- Contexts ------------------------------------------------------------
 */
struct shmemi_ctx {
  uint32_t magic; /* SHMEMI_CTX_MAGIC while alive, else 0         */
  long options;
  shmem_team_t team;
  /* Completion domain: the targets (segment 0 heap / 1 data, world PE)
   * of the operations it issued through DART's MPI path since its last
   * quiet (shmem_track.h: fixed size, whatever the number of PEs). */
  shmemi_track_t track;
  /* Threads may share it (SHMEM_THREAD_MULTIPLE, neither PRIVATE nor
   * SERIALIZED): marks and the quiet's take go under mu; else no lock. */
  int shared;
  pthread_mutex_t mu;
};
#define SHMEMI_CTX_MAGIC 0x5c7c7a11u

SHMEMI_HIDDEN void shmemi_ctx_init_default(void);
SHMEMI_HIDDEN void shmemi_ctx_fini_all(void);
SHMEMI_HIDDEN void shmemi_ctx_quiet(struct shmemi_ctx *c);
/* The fatal ends of the two checks below (cold, out of line). */
SHMEMI_HIDDEN __attribute__((cold, noreturn)) void
shmemi_ctx_bad(shmem_ctx_t ctx, const char *fn);
SHMEMI_HIDDEN __attribute__((cold, noreturn)) void
shmemi_pe_bad(int pe, const char *fn);
/* PE number of a context's (non-world) team translated to the world. */
SHMEMI_HIDDEN int shmemi_ctx_team_pe(struct shmemi_ctx *c, int pe,
                                     const char *fn);

/* Validates ctx (SHMEM_CTX_DEFAULT, a live context); fatal otherwise. */
static inline struct shmemi_ctx *shmemi_ctx_check(shmem_ctx_t ctx,
                                                  const char *fn)
{
  shmemi_check_init(fn);
  if (__builtin_expect(ctx == NULL ||
                           __atomic_load_n(&ctx->magic, __ATOMIC_ACQUIRE) !=
                               SHMEMI_CTX_MAGIC,
                       0))
    shmemi_ctx_bad(ctx, fn);
  return ctx;
}

/* PE number of the context's team translated to the world. */
static inline int shmemi_ctx_pe(struct shmemi_ctx *c, int pe, const char *fn)
{
  if (__builtin_expect(c->team == NULL, 1)) {
    if (__builtin_expect((unsigned)pe >= (unsigned)shmemi_g.n_pes, 0))
      shmemi_pe_bad(pe, fn);
    return pe;
  }
  return shmemi_ctx_team_pe(c, pe, fn);
}

/* A resolved target: segment, PE and offset (its global pointer:
 * shmemi_tgt_gptr) and the load/store address if the caller maps it (else
 * NULL). */
typedef struct {
  int seg;      /* 0 heap, 1 data+BSS                                   */
  int pe;       /* world PE (the DART unit)                             */
  uint64_t off; /* offset in the PE's DART portion                      */
  char *local;
} shmemi_tgt_t;

/* The global pointer of a resolved target, built in registers: filling a
 * dart_gptr_t in memory field by field (a 16-byte copy, then the 24-bit
 * unit) and passing it on by value made the next load wait for the
 * stores (a store-forwarding stall, half of shmemi_amo's time). */
static inline dart_gptr_t shmemi_tgt_gptr(const shmemi_tgt_t *t)
{
  dart_gptr_t g = t->seg == 0 ? shmemi_g.heap_gptr : shmemi_g.data_gptr;
  g.unitid = t->pe;
  g.addr_or_offs.offset = t->off;
  return g;
}

/* Segment of a symmetric address: 0 heap, 1 data, -1 none; *off. */
static inline int shmemi_seg_of(const void *a, size_t *off)
{
  const char *p = a;
  if (p >= shmemi_g.heap_base && p < shmemi_g.heap_base + shmemi_g.heap_size) {
    *off = (size_t)(p - shmemi_g.heap_base);
    return 0;
  }
  if (shmemi_g.data_size != 0 && p >= shmemi_g.data_base &&
      p < shmemi_g.data_base + shmemi_g.data_size) {
    *off = (size_t)(p - shmemi_g.data_base);
    return 1;
  }
  return -1;
}

/* Resolves addr on world PE pe (in range) into *t and its offset from the
 * segment's origin (*off): the segment (0 heap, 1 data+BSS), -1 (t
 * untouched) if addr is not symmetric. No bounds check. */
static inline int shmemi_resolve(const void *addr, int pe, shmemi_tgt_t *t,
                                 size_t *off)
{
  int s = shmemi_seg_of(addr, off);
  if (s < 0) return -1;
  t->seg = s;
  t->pe = pe;
  t->off = *off + (s == 0 ? shmemi_g.heap_pad[pe] : 0);
  char **peer = s == 0 ? shmemi_g.heap_peer : shmemi_g.data_peer;
  if (pe == shmemi_g.my_pe)
    t->local = (char *)addr;
  else
    t->local = peer != NULL && peer[pe] != NULL ? peer[pe] + *off : NULL;
  return s;
}

/* The fatal ends of shmemi_target (cold, out of line). */
SHMEMI_HIDDEN __attribute__((cold, noreturn)) void
shmemi_target_bad(const void *addr, size_t nbytes, int pe, int seg,
                  const char *fn);

/* Resolves [addr, addr + nbytes) on world PE pe (in range): its segment
 * (0 heap, 1 data+BSS), or -1 if addr is not symmetric memory, or -2 if
 * the range runs past the end of its segment. */
static inline int shmemi_resolve_range(const void *addr, size_t nbytes, int pe,
                                       shmemi_tgt_t *t)
{
  size_t off;
  int s = shmemi_resolve(addr, pe, t, &off);
  if (__builtin_expect(s < 0, 0)) return -1;
  size_t lim = s == 0 ? shmemi_g.heap_size : shmemi_g.data_size;
  return __builtin_expect(nbytes > lim - off, 0) ? -2 : s;
}

/* shmemi_resolve_range, fatal (one line naming fn, the address and the
 * PE) if the range is not symmetric memory. */
static inline void shmemi_target(const void *addr, size_t nbytes, int pe,
                                 const char *fn, shmemi_tgt_t *t)
{
  int s = shmemi_resolve_range(addr, nbytes, pe, t);
  if (__builtin_expect(s < 0, 0))
    shmemi_target_bad(addr, nbytes, pe, s == -1 ? -1 : t->seg, fn);
}

/* Notes t in c's completion domain (after an operation on DART's MPI
 * path that the quiet must complete). */
SHMEMI_HIDDEN void shmemi_mark_shared(struct shmemi_ctx *c, uint32_t key);
static inline void shmemi_mark(struct shmemi_ctx *c, const shmemi_tgt_t *t)
{
  uint32_t key = shmemi_track_key(t->seg, t->pe);
  if (__builtin_expect(c->shared, 0))
    shmemi_mark_shared(c, key);
  else
    shmemi_track_add(&c->track, key);
}

/* ---- RMA -----------------------------------------------------------------
 */
SHMEMI_HIDDEN void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src,
                              size_t nbytes, int pe, int nbi, const char *fn);
SHMEMI_HIDDEN void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src,
                              size_t nbytes, int pe, int nbi, const char *fn);
SHMEMI_HIDDEN void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src,
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                               size_t esz, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src,
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                               size_t esz, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_put_signal(shmem_ctx_t ctx, void *dest,
                                     const void *src, size_t nbytes,
                                     uint64_t *sig_addr, uint64_t signal,
                                     int sig_op, int pe, int nbi,
                                     const char *fn);

/* ---- Atomics -------------------------------------------------------------
 */
typedef enum {
  SHMEMI_AMO_FETCH,
  SHMEMI_AMO_SET,
  SHMEMI_AMO_SWAP,
  SHMEMI_AMO_CSWAP,
  SHMEMI_AMO_FADD,
  SHMEMI_AMO_ADD,
  SHMEMI_AMO_FAND,
  SHMEMI_AMO_AND,
  SHMEMI_AMO_FOR,
  SHMEMI_AMO_OR,
  SHMEMI_AMO_FXOR,
  SHMEMI_AMO_XOR
} shmemi_amo_t;
/* One atomic on dest at pe: value/cond operands, *fetch receives the old
 * value (fetching ops). nbi: *fetch is valid after the next quiet. */
SHMEMI_HIDDEN void shmemi_amo(shmem_ctx_t ctx, shmemi_amo_t op,
                              shmemi_dtype_t dt, void *dest, const void *value,
                              const void *cond, void *fetch, int pe, int nbi,
                              const char *fn);

/* ---- Point-to-point synchronization --------------------------------------
 */
typedef enum { SHMEMI_SET_ALL, SHMEMI_SET_ANY, SHMEMI_SET_SOME } shmemi_set_t;
SHMEMI_HIDDEN int shmemi_compare(const void *ivar, shmemi_dtype_t dt, int cmp,
                                 const void *value);
SHMEMI_HIDDEN void shmemi_wait_until(void *ivar, shmemi_dtype_t dt, int cmp,
                                     const void *value, const char *fn);
SHMEMI_HIDDEN int shmemi_test(void *ivar, shmemi_dtype_t dt, int cmp,
                              const void *value, const char *fn);
/* ALL: 1 if all selected satisfied (wait: after waiting); ANY: index or
 * SIZE_MAX; SOME: number of indices stored. vector: values is an array. */
SHMEMI_HIDDEN size_t shmemi_wait_set(shmemi_set_t kind, int block, void *ivars,
                                     size_t nelems, size_t *indices,
                                     const int *status, shmemi_dtype_t dt,
                                     int cmp, const void *values, int vector,
                                     const char *fn);
/* One step of a polling loop: drives DART's progress, yields if asked. */
SHMEMI_HIDDEN void shmemi_poll(unsigned *spins);

#endif /* SHMEM_INTERNAL_H */
