/*
 * Internal: the transport layer. The only part of DART that makes MPI RMA
 * calls (put, get, accumulate, fetch-and-op, compare-and-swap, flush),
 * completes them, waits for other units and drives MPI progress (the
 * progress thread lives here too: transport/progress.h). It knows nothing
 * of the layers above it: every call is typed on the transport's own
 * target record (dart__rma_target_t: window, rank, displacement, mapped
 * address, the owner's "MPI was used" word and the names the watchdog
 * prints) and layout record (dart__rma_layout_t: MPI datatypes and
 * counts), which the memory layer fills from a segment
 * (dart__segment_rma_target, globmem/dart_segment.h) and the operations
 * from a datatype. The memory layer (src/globmem) owns the windows and
 * calls in here to complete RMA before it frees one.
 *
 * Which mechanism each atomic takes on the MPI path is decided from the
 * capabilities probed at dart_init (transport/probe.h).
 */
#ifndef DART__TRANSPORT_H
#define DART__TRANSPORT_H

#include <dash/dart/if/dart_communication.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "dart_watch.h"
#include "team/dart_team.h"
#include "transport/wait.h"

/*
 * Full fence: orders direct stores/loads on shared memory with the
 * owner's accesses across a later barrier or flag. DART__WEAK_FENCE is
 * the same on weakly ordered CPUs and nothing on x86-64, whose loads are
 * not reordered with later loads or stores and whose locked instructions
 * (every CPU atomic but a NO_OP load) are full fences.
 */
#if defined(__x86_64__)
#define DART__FENCE()                                                          \
  __asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc")
#define DART__WEAK_FENCE() ((void)0)
#else
#define DART__FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define DART__WEAK_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

/* Model of DART's thread-local words: initial-exec (one load; uses a few
 * bytes of the C library's static TLS reserve when DART is dlopen'ed) or,
 * with -DDART_TLS_INITIAL_EXEC=OFF, the compiler's default. */
#ifdef DART__TLS_DEFAULT_MODEL
#define DART__TLS_MODEL
#else
#define DART__TLS_MODEL __attribute__((tls_model("initial-exec")))
#endif

/* One-sided component behind a window, where it matters for atomics
 * (detected by the memory layer when it creates the window). */
typedef enum {
  DART__OSC_OTHER = 0, /* MPICH, Open MPI osc/sm, no window            */
  DART__OSC_OMPI_UCX,  /* Open MPI osc/ucx                             */
  DART__OSC_OMPI_RDMA  /* Open MPI osc/rdma                            */
} dart__osc_t;

/*
 * Where an operation on the MPI path goes: the transport's own record,
 * filled by the memory layer from its segment (dart__segment_rma_target,
 * dart__segment_rma_win). The transport marks *mpi_used and notes
 * (team, segid) for the thread's next lock release; it reads nothing else
 * of the segment.
 */
typedef struct {
  MPI_Win win;     /* window, in a lock_all epoch for its whole life   */
  int unit;        /* target rank in win (= team unit)                 */
  MPI_Aint disp;   /* target displacement in win (disp unit 1)         */
  char *local;     /* load/store address of the target bytes, or NULL  */
  int *mpi_used;   /* the owner's sticky "MPI RMA issued on win" word  */
  int16_t team;    /* team id and segment id: names in the watchdog's  */
  int16_t segid;   /* records, key of the thread's noted windows       */
  dart__osc_t osc; /* component carrying win (atomics choose by it)    */
} dart__rma_target_t;

/* One side of a transfer as MPI sees it (filled by the operations layer
 * from a datatype descriptor, onesided.h). */
typedef struct {
  MPI_Datatype elem; /* MPI type of one basic element                   */
  MPI_Datatype inst; /* MPI type of one instance (non-contiguous only)  */
  size_t num_elem;   /* basic elements per instance                     */
  size_t base_size;  /* bytes per basic element                         */
  bool contiguous;   /* elements back to back (basic or custom type)    */
} dart__rma_layout_t;

/* The two layouts of a transfer on the MPI path and its element count. */
typedef struct {
  dart__rma_layout_t src, dst;
  size_t nelem;
} dart__rma_xfer_t;

/* Locks the calling thread holds (dart__rma_noting_add, by the lock
 * module): only then are its MPI operations noted, for the release that
 * completes the critical section. Initial-exec: one int, read on every
 * MPI transfer. */
extern __thread int dart__rma_noting __attribute__((tls_model("initial-exec")))
DART__HIDDEN;
static inline void dart__rma_noting_add(int d)
{
  dart__rma_noting += d;
}
DART__HIDDEN void dart__rma_note_slow(int16_t team, int16_t segid);
/* Notes that the calling thread, holding a lock, issued an MPI operation
 * on the window of (team, segid); dart__rma_complete_noted completes all
 * it noted (pending.c; dart_lock_release). */
static inline void dart__rma_note(int16_t team, int16_t segid)
{
  if (__builtin_expect(dart__rma_noting != 0, 0))
    dart__rma_note_slow(team, segid);
}
/* How the transport finds a noted (team, segment id) again: fills *w
 * (win, mpi_used, team, segid) and returns true, or false if it is gone.
 * The memory layer owns the segment tables and hands its lookup to the
 * transport when it starts, so the transport never calls up into it. */
typedef bool (*dart__rma_finder_t)(int16_t team, int16_t segid,
                                   dart__rma_target_t *w);
DART__HIDDEN void dart__rma_set_finder(dart__rma_finder_t find);
DART__HIDDEN dart_ret_t dart__rma_complete_noted(const char *func);

/* Marks that MPI RMA operations were issued on t's window (sticky) and
 * notes it for the calling thread's next lock release. */
static inline void dart__rma_mark(const dart__rma_target_t *t)
{
  if (!__atomic_load_n(t->mpi_used, __ATOMIC_RELAXED))
    __atomic_store_n(t->mpi_used, 1, __ATOMIC_RELAXED);
  dart__rma_note(t->team, t->segid);
}
/*
 * Plain loads/stores of non-blocking operations on mapped memory issued by
 * this thread since its last fence. A flush fences only if it is set: the
 * fence orders those accesses with the caller's later ones (a flag, a
 * barrier), and is not needed when nothing was issued or after CPU
 * atomics on x86-64 (locked instructions; elsewhere the atomics set the
 * mark, see dart__shm_mark_atomic). Per thread, because a fence orders
 * only the calling thread's accesses.
 */
extern __thread int dart__shm_pending DART__TLS_MODEL DART__HIDDEN;

static inline void dart__shm_mark_pending(void)
{
  dart__shm_pending = 1;
}

/* After a CPU atomic: on weakly ordered CPUs a seq_cst read-modify-write
 * is not a full fence, so the next flush must fence. */
static inline void dart__shm_mark_atomic(void)
{
#if !defined(__x86_64__)
  dart__shm_pending = 1;
#endif
}

/* Fences if this thread has pending mapped accesses; clears the mark. */
static inline void dart__shm_complete(void)
{
  if (dart__shm_pending) {
    DART__FENCE();
    dart__shm_pending = 0;
  }
}

static inline bool dart__rma_xfer_contiguous(const dart__rma_xfer_t *x)
{
  return x->src.contiguous && x->dst.contiguous;
}

/*
 * Largest element count of one MPI call (INT_MAX); larger contiguous
 * transfers and accumulates are split. A variable only so that tests can
 * exercise the splitting with small buffers.
 */
extern size_t dart__rma_max_count DART__HIDDEN;

/*
 * Issues a transfer on the MPI path. put: origin = local buffer laid out
 * as x->src, target = t laid out as x->dst; get: origin = local buffer
 * laid out as x->dst, target laid out as x->src. With req != NULL and a
 * transfer that fits one MPI call, a request-based call is used and *req
 * set; otherwise *req (if given) is MPI_REQUEST_NULL and completion is by
 * flush (chunked transfers, and gets with a non-contiguous layout).
 * Contiguous transfers of more than INT_MAX elements are chunked.
 */
DART__HIDDEN dart_ret_t dart__mpi_xfer(const char *func, bool put, void *buf,
                                       const dart__rma_target_t *t,
                                       const dart__rma_xfer_t *x,
                                       MPI_Request *req);

/*
 * Reads one element of `type` at (unit, disp) of win into buf and
 * completes it (a watched flush): the memory layer's reads of its own
 * control words (e.g. a peer's published pool growth).
 */
DART__HIDDEN dart_ret_t dart__mpi_get_word(const char *func, MPI_Win win,
                                           int unit, MPI_Aint disp, void *buf,
                                           MPI_Datatype type);

/*
 * 64-bit control words of a window that is not a segment's (e.g. the
 * collectives' flag window): an atomic read (MPI_NO_OP fetch) into *out,
 * or an atomic replace, of the word at (rank, disp). Issued only: complete
 * them with dart__mpi_flush_win (MPI_Win_flush_all, watched under func).
 * All return the MPI error code.
 */
DART__HIDDEN int dart__mpi_word_fetch(MPI_Win win, int rank, MPI_Aint disp,
                                      uint64_t *out);
DART__HIDDEN int dart__mpi_word_replace(MPI_Win win, int rank, MPI_Aint disp,
                                        uint64_t val);
DART__HIDDEN int dart__mpi_flush_win(const char *func, MPI_Win win);

/*
 * Reads `bytes` bytes at (rank, disp) of win into buf (MPI_Get of
 * MPI_BYTE): a window that is not a segment's, e.g. the locality module's
 * window of hardware records. Issued only: complete it with
 * dart__mpi_flush_win. Returns the MPI error code.
 */
DART__HIDDEN int dart__mpi_get_bytes(MPI_Win win, int rank, MPI_Aint disp,
                                     void *buf, int bytes);

/*
 * Atomic op on nelem elements of the basic type dt (MPI type elem, esz
 * bytes each) on the MPI path (old == NULL: accumulate, else fetch-and-op
 * of one element, flushed). Chooses native MPI atomics or an emulation
 * per basic type (see transport/atomic.c). Marks t (dart__rma_mark).
 */
DART__HIDDEN dart_ret_t dart__mpi_atomic(const char *func,
                                         const dart__rma_target_t *t,
                                         const void *vals, void *old,
                                         size_t nelem, MPI_Datatype elem,
                                         size_t esz, dart_datatype_t dt,
                                         dart_operation_t op, MPI_Op mop);

/*
 * Where the lock words of emulated atomics are, set by the memory layer:
 * locate(g, &t) fills t with the lock word of global unit g (the
 * dart_memalloc pool, segment 0 of DART_TEAM_ALL, has a page of DART's in
 * front of every unit's portion, out of reach of global pointers: an
 * int32 word, 0 = free; docs/design.md 3) and returns false if there is
 * none. NULL when the pool is gone.
 */
typedef bool (*dart__rma_locate_t)(int g, dart__rma_target_t *t);
DART__HIDDEN void dart__atomic_set_lock_words(dart__rma_locate_t locate);

/*
 * Where the accumulate gates are (transport/cpu_gate.h), set by the
 * memory layer: in the same page of `back` bytes in front of every
 * unit's portion of the dart_memalloc pool of team (DART_TEAM_ALL), after
 * the lock word. own: the caller's portion; peer[r]: node rank r's portion
 * as the caller maps it, or NULL (team->node_size entries). Clears the
 * caller's own gate and slots; a barrier must follow before any atomic.
 * team NULL when the pool is gone (atomics on mapped memory are then per
 * element, without the gate). DART_ERR_NOMEM if out of memory.
 */
DART__HIDDEN dart_ret_t dart__cpu_gate_set(const dart__team_t *team, char *own,
                                           char *const *peer, size_t back);

/* Compare-and-swap of one integer element (MPI type elem, esz bytes) on
 * the MPI path, flushed. Marks t. */
DART__HIDDEN dart_ret_t dart__mpi_cas(const char *func,
                                      const dart__rma_target_t *t,
                                      const void *val, const void *cmp,
                                      void *old, MPI_Datatype elem, size_t esz,
                                      dart_datatype_t dt);

/*
 * Handle of a transfer on the MPI path. Every handle whose operation may
 * still be pending is on a process-wide list (handles.c), so that freeing
 * its segment completes it first: a handle never touches a freed window.
 */
struct dart_handle_struct {
  MPI_Request req;   /* request of the transfer, MPI_REQUEST_NULL once done */
  MPI_Request probe; /* the tests' 1-byte get ahead of a flush (handles.c)  */
  MPI_Win win;       /* MPI_WIN_NULL once completed by its segment's free   */
  MPI_Aint disp;     /* target displacement of the transfer in win          */
  int unit;          /* target rank in win                                  */
  bool put;          /* remote completion needs a flush                     */
  bool by_flush;     /* chunked transfer without request: complete locally
                        by MPI_Win_flush_local                              */
  bool probed;       /* the probe is done: the flush may follow             */
  bool flushed;      /* the flush the handle needs was made                 */
  char probe_buf;    /* target of the probe                                 */
  bool orphan;       /* released by dart_handle_free, still pending         */
  bool linked;       /* on the list of pending handles                      */
  const void *seg;   /* segment of the target (the memory layer's record:
                        identity only, to find a freed segment's handles) */
  int16_t team;      /* team and segment id of the target, for the       */
  int16_t segid;     /* watchdog's record of a completion                */
  struct dart_handle_struct *prev, *next;
};

/* Puts a new handle on the list of pending handles. */
DART__HIDDEN void dart__handles_track(dart_handle_t h);

/* Module hook (runtime/modules.c): completes the requests of released
 * handles at exit. */
DART__HIDDEN void dart__handles_fini(void);

/* Completes every handle on seg (its memory is about to be freed);
 * released ones are freed, the user's are marked complete. */
DART__HIDDEN void dart__handles_segment_freed(const char *func,
                                              const void *seg);

/*
 * Where the capability probe found that a request-based get does not move
 * unless its request is called on (Open MPI's osc/ucx), completes every
 * pending get handle with a request on memory of team (the user's are
 * marked complete, released ones freed); elsewhere returns at once.
 * dart_barrier calls it before the barrier, when every target in team is
 * on its way into the same barrier.
 */
DART__HIDDEN void dart__handles_settle_gets(const char *func, int team);

/* The MPI completion calls on a segment's window (dart__rma_complete). */
typedef enum {
  DART__RMA_FLUSH,          /* MPI_Win_flush: one target, remotely       */
  DART__RMA_FLUSH_ALL,      /* MPI_Win_flush_all                         */
  DART__RMA_FLUSH_LOCAL,    /* MPI_Win_flush_local: one target, locally  */
  DART__RMA_FLUSH_LOCAL_ALL /* MPI_Win_flush_local_all                   */
} dart__rma_flush_t;

/*
 * Completes the calling thread's MPI RMA on w's window as kind says
 * (unit: the target team unit of the one-target kinds, ignored by the
 * others), then its pending accesses to mapped memory (dart__shm_complete:
 * a fence only if there are any). The wait is published for the watchdog
 * under func, w's team and segment id; a failed call is logged under
 * func and gives DART_ERR_OTHER. The caller decides whether MPI was used
 * at all (*w->mpi_used). Out of line: the public flushes reach it only
 * when MPI is involved. Not through here: the flushes inside a transfer
 * or an atomic (dart__flush_target, the emulations in transport/atomic.c).
 */
DART__HIDDEN __attribute__((noinline)) dart_ret_t
dart__rma_complete(const char *func, const dart__rma_target_t *w, int unit,
                   dart__rma_flush_t kind);

/* The common transfer on the MPI path, inline in onesided's fast path:
 * count (<= dart__rma_max_count) contiguous elements of one basic MPI type
 * on both sides, to or from unit's window at disp; non-blocking (complete
 * at the next flush). A failed call is logged under func. */
static inline __attribute__((always_inline)) dart_ret_t
dart__mpi_xfer_basic(const char *func, bool put, void *buf, int count,
                     MPI_Datatype type, int unit, MPI_Aint disp, MPI_Win win)
{
  int rc = put ? MPI_Put(buf, count, type, unit, disp, count, type, win)
               : MPI_Get(buf, count, type, unit, disp, count, type, win);
  if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
    dart__mpi_log_error(func, put ? "MPI_Put" : "MPI_Get", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* Flush of one target of an MPI window after an atomic or a transfer
 * (marks nothing). Its watch names no team or segment, so a wait it is
 * nested in (a lock acquisition) keeps its own. */
static inline dart_ret_t dart__flush_target(const char *func, MPI_Win win,
                                            int unit)
{
  DART__WATCH(func, "MPI_Win_flush", DART__WATCH_NONE, DART__WATCH_NONE, unit,
              -1);
  int rc = MPI_Win_flush(unit, win);
  dart__watch_end();
  if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
    dart__mpi_log_error(func, "MPI_Win_flush", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

#endif /* DART__TRANSPORT_H */
