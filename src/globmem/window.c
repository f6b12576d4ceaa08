/*
 * Segment creation and destruction: the MPI window scheme.
 *
 * Allocated memory (team allocations, allocator pools, the dart_memalloc
 * pool) always comes from MPI_Win_allocate_shared so that the units of a
 * node can reach each other's portions by load/store:
 *
 *   team on one node    one shared window on the team communicator; it is
 *                       also the RMA window (1 window)
 *   one unit per node   (every unit alone on its node) memory mapped by
 *                       DART (mmap) and MPI_Win_create on the team
 *                       communicator; the only node peer is the caller
 *                       itself (1 window)
 *   otherwise           shared window on the team's node communicator plus
 *                       MPI_Win_create over the same memory on the team
 *                       communicator for RMA between nodes (2 windows)
 *
 * Registered user memory cannot be mapped by other processes, so node
 * peers reach it through MPI (only the owner by load/store): it is
 * attached to the team's dynamic window where the MPI holds many
 * attachments, else it gets an MPI_Win_create window of its own on the
 * team communicator (register.c).
 *
 * Every RMA window lives in a lock_all epoch (MPI_MODE_NOCHECK) from
 * creation to destruction, the passive-target model of DART.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "globmem/dart_segment.h"
#include "globmem/globmem_internal.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "transport/probe.h"
#include "transport/progress.h"

/* Windows the window scheme creates for an allocation on team. */
static int windows_needed(const dart__team_t *team)
{
  return (team->single_node || team->num_nodes == team->size) ? 1 : 2;
}

/*
 * Info hint of every window, created once by dart__window_hints_init.
 * alloc_shared_noncontig is deliberately not set: it costs MPICH 4.0 about
 * 16 us per shared-window allocation (a mapping per rank), while the page
 * alignment of every portion already keeps units off each other's pages
 * (docs/design.md).
 */
static MPI_Info hints = MPI_INFO_NULL;

/*
 * Portions start on a page boundary (see align_up). MPI only guarantees
 * 8 bytes: Open MPI returns bases at 264 mod 4096, and MPICH packs the
 * portions of a shared window back to back, so a unit's portion starts
 * wherever the previous one ended. Page alignment gives every unit's
 * portion the same offset within a page (0) under every MPI, its own pages
 * (first-touch placement, no page shared between units) and
 * max_align_t / cache-line alignment. Copies between portions, and
 * between a portion and a page-aligned buffer, run between equal offsets
 * within a page, which avoids 4K aliasing (loads that match an earlier
 * store in address bits 0-11, as when the destination lies a few bytes
 * past the source's offset within a page: a few percent of a large copy;
 * docs/design.md).
 */
static size_t seg_align = 4096;

dart_ret_t dart__window_hints_init(void)
{
  long page = sysconf(_SC_PAGESIZE);
  /* A power of two in every mapping; keep 4096 as the floor. */
  if (page > 4096 && (page & (page - 1)) == 0) seg_align = (size_t)page;
  DART__MPI(MPI_Info_create(&hints));
  DART__MPI(MPI_Info_set(hints, "same_disp_unit", "true"));
  return DART_OK;
}

void dart__window_hints_fini(void)
{
  if (hints != MPI_INFO_NULL) MPI_Info_free(&hints);
}

/* Segment id for the watchdog: the bare records of heap chunks and of
 * the dynamic window have none (id 0 is the dart_memalloc pool's). */
static int watch_segid(const dart__segment_t *seg)
{
  if (seg->segid == 0 && seg->kind != DART__SEG_POOL) return DART__WATCH_NONE;
  return seg->segid;
}

/* Begins the wait of a collective window call on seg's team (WINDOW_CALL). */
static void watch_window(const char *func, const char *what,
                         dart__segment_t *seg)
{
  dart__team_t *team = seg->team;
  DART__WATCH(func, what, (int)team->id, watch_segid(seg), DART__WATCH_NONE,
              ++team->coll_seq);
}

/*
 * The result of a collective MPI window call (creation or free) on seg's
 * team, made inside a wait published for the watchdog: DART_OK, or
 * DART_ERR_OTHER after logging the failure under func. The wait takes the
 * next number in the team's sequence of collectives; every member makes
 * the same window calls in the same order (the scheme depends on
 * team-wide facts only), so the numbers agree between units.
 */
#define WINDOW_CALL(func, seg, call)                                           \
  (watch_window((func), #call, (seg)),                                         \
   dart__watch_end_mpi((func), #call, (call)))

dart_ret_t dart__window_create(const char *func, dart__segment_t *seg,
                               void *base, MPI_Aint size)
{
  dart__ompi_shm_names_before_window(seg->team->size);
  dart_ret_t ret = WINDOW_CALL(
      func, seg,
      MPI_Win_create(base, size, 1, hints, seg->team->comm, &seg->win));
  if (ret == DART_OK) dart__window_count_add(1);
  return ret;
}

dart_ret_t dart__window_dynamic(const char *func, dart__segment_t *seg)
{
  dart__ompi_shm_names_before_window(seg->team->size);
  dart_ret_t ret = WINDOW_CALL(
      func, seg, MPI_Win_create_dynamic(hints, seg->team->comm, &seg->win));
  if (ret != DART_OK) return ret;
  dart__window_count_add(1);
  return dart__window_open_epoch(seg);
}

/* Rounds p up to the portion alignment (seg_align). */
static char *align_up(char *p)
{
  uintptr_t a = ((uintptr_t)p + seg_align - 1) & ~(uintptr_t)(seg_align - 1);
  return (char *)a;
}

/*
 * Bytes asked from MPI for a portion of size bytes (at most max_portion()):
 * size rounded up to whole pages, one page for aligning the base and
 * 64 bytes so that the request is never a whole number of pages. MPICH 4.0
 * allocates a shared window whose portions are all whole pages on a slow
 * path (apparently its symmetric heap) that costs time proportional to the
 * size (2 units: 880 us for 1 MiB per unit vs 23 us for 1 MiB + 64 B;
 * 4 KiB: 38 vs 24 us).
 * MPICH lays the portions out back to back, so they start at different
 * offsets within a page and get different padding (disp_pads); Open MPI
 * offsets every base by its header (264 mod 4096). The padding is address
 * space only: never touched, so never backed by memory.
 */
static size_t max_portion(void)
{
  return (size_t)PTRDIFF_MAX - 3 * seg_align;
}

static MPI_Aint padded_size(size_t size)
{
  size_t pages = (size + seg_align - 1) & ~(seg_align - 1);
  return (MPI_Aint)(pages + seg_align + 64);
}

/*
 * Aligned portion start of rank r of a shared window, as mapped here. The
 * padding in front of it is the same in every process mapping the memory
 * (mappings are page-aligned), so every unit computes the same portion
 * start; *pad (if not NULL) receives it: the window displacement of the
 * portion start.
 */
static dart_ret_t shared_base(MPI_Win shm, int r, char **base, MPI_Aint *pad)
{
  MPI_Aint sz;
  int du;
  char *ptr = NULL;
  DART__MPI(MPI_Win_shared_query(shm, r, &sz, &du, &ptr));
  *base = align_up(ptr);
  if (pad != NULL) *pad = *base - ptr;
  return DART_OK;
}

dart_ret_t dart__segment_own_bases(dart__segment_t *seg)
{
  if (seg->own_bases != NULL) return DART_OK;
  seg->own_bases = calloc((size_t)seg->team->node_size, sizeof(char *));
  if (seg->own_bases == NULL) return DART_ERR_NOMEM;
  seg->node_base = seg->own_bases;
  return DART_OK;
}

/* The padding rule of a window where rank 0's raw base is raw0 and every
 * rank asked for msize bytes: uniform (step 0) or contiguous layout. */
static MPI_Aint rule_pad(MPI_Aint neg0, MPI_Aint step, int u)
{
  return (neg0 - (MPI_Aint)u * step) & (MPI_Aint)(seg_align - 1);
}

/*
 * Mapped bases and RMA displacements of a shared window on the team
 * communicator (rank = team unit = node rank). Displacements skip each
 * unit's alignment padding, which is kept as a rule rather than per unit:
 * the same pad for every unit (Open MPI), or the pad of a contiguous
 * layout, where rank u's memory starts u * msize bytes after rank 0's
 * (the MPI default without alloc_shared_noncontig; MPICH). The rule is
 * checked against every unit's actual pad; only if neither holds (unequal
 * sizes, another layout) is a per-unit array kept.
 */
static dart_ret_t single_node_layout(dart__segment_t *seg, MPI_Aint msize)
{
  char *raw0;
  MPI_Aint sz, mask = (MPI_Aint)seg_align - 1;
  int du;
  DART__MPI(MPI_Win_shared_query(seg->win, 0, &sz, &du, &raw0));
  MPI_Aint neg0 = (MPI_Aint)(-(uintptr_t)raw0) & mask, step = msize & mask;
  bool uniform = true, contiguous = true;
  for (int u = 0; u < seg->nunits; u++) {
    MPI_Aint pad;
    dart_ret_t ret =
        shared_base(seg->win, u, &seg->own_bases[seg->node_idx[u]], &pad);
    if (ret != DART_OK) return ret;
    uniform = uniform && pad == neg0;
    contiguous = contiguous && pad == rule_pad(neg0, step, u);
  }
  seg->disp_pad = 0;
  if (uniform || contiguous) {
    seg->disp_neg0 = neg0;
    seg->disp_step = uniform ? 0 : step;
    seg->disp_mask = mask;
    return DART_OK;
  }
  seg->disp_pads = malloc((size_t)seg->nunits * sizeof *seg->disp_pads);
  if (seg->disp_pads == NULL) return DART_ERR_NOMEM;
  for (int u = 0; u < seg->nunits; u++) {
    char *b;
    dart_ret_t ret = shared_base(seg->win, u, &b, &seg->disp_pads[u]);
    if (ret != DART_OK) return ret;
  }
  return DART_OK;
}

/* One shared window on the team communicator, also the RMA window; every
 * unit is mapped. */
static dart_ret_t alloc_single_node(const char *func, dart__segment_t *seg,
                                    MPI_Aint msize)
{
  dart__team_t *team = seg->team;
  void *raw;
  dart_ret_t ret = WINDOW_CALL(
      func, seg,
      MPI_Win_allocate_shared(msize, 1, hints, team->comm, &raw, &seg->win));
  if (ret != DART_OK) return ret;
  dart__window_count_add(1);
  ret = dart__window_open_epoch(seg);
  if (ret == DART_OK) ret = single_node_layout(seg, msize);
  if (ret != DART_OK) return ret;
  seg->base = seg->own_bases[team->node_rank];
  return DART_OK;
}

/* Shared window on the node communicator (node peers mapped), RMA window
 * over the team. */
static dart_ret_t alloc_hybrid(const char *func, dart__segment_t *seg,
                               MPI_Aint msize, size_t size)
{
  dart__team_t *team = seg->team;
  void *raw;
  /* On the node communicator, but every member takes part at this point:
   * numbered in the team's sequence all the same. */
  dart_ret_t ret =
      WINDOW_CALL(func, seg,
                  MPI_Win_allocate_shared(msize, 1, hints, team->node_comm,
                                          &raw, &seg->shm_win));
  if (ret != DART_OK) return ret;
  dart__window_count_add(1);
  DART__MPI(MPI_Win_set_errhandler(seg->shm_win, MPI_ERRORS_RETURN));
  ret = dart__window_require_unified(seg->shm_win);
  if (ret != DART_OK) return ret;
  /* node peers by node rank: no walk over the team */
  for (int r = 0; r < team->node_size; r++) {
    ret = shared_base(seg->shm_win, r, &seg->own_bases[r], NULL);
    if (ret != DART_OK) return ret;
  }
  seg->base = seg->own_bases[team->node_rank];
  ret = dart__window_create(func, seg, seg->base, (MPI_Aint)size);
  return ret != DART_OK ? ret : dart__window_open_epoch(seg);
}

/* Every unit alone on its node: a private mapping (made and agreed on by
 * dart__window_alloc before) and one RMA window. */
static dart_ret_t alloc_private(const char *func, dart__segment_t *seg,
                                size_t size)
{
  seg->base = seg->priv_mem;
  seg->own_bases[seg->team->node_rank] = seg->base;
  dart_ret_t ret = dart__window_create(func, seg, seg->base, (MPI_Aint)size);
  return ret != DART_OK ? ret : dart__window_open_epoch(seg);
}

/* The window layouts of the scheme (top of the file). */
typedef enum { SCHEME_SINGLE, SCHEME_PRIVATE, SCHEME_HYBRID } scheme_t;

static scheme_t scheme_of(const dart__team_t *team)
{
  /* Team-wide facts only: all members agree. Without shared windows
   * (probed) every unit is its own node, so a single-node team is a
   * one-unit team: private memory, as for every unit alone. */
  if (team->single_node && dart__caps.cap[DART__CAP_WIN_SHARED])
    return SCHEME_SINGLE;
  if (team->num_nodes == team->size) return SCHEME_PRIVATE;
  return SCHEME_HYBRID;
}

/* Where MPICH and Open MPI (osc_sm_backing_directory) keep the files
 * behind shared windows. */
static const char shm_dir[] = "/dev/shm";

/* Adds without wrapping around (sums of portion sizes near the limit). */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Bytes the caller's node is asked for: the padded portions of the team's
 * units on it (of every unit if all is set). size: the caller's portion,
 * which is every unit's unless the agreement gathered sizes. */
static uint64_t node_request(const dart__segment_t *seg, size_t size, bool all)
{
  if (seg->sizes == NULL && seg->odd_unit1 == 0) { /* equal: no walk */
    uint64_t n = (uint64_t)(all ? seg->nunits : seg->team->node_size);
    uint64_t one = (uint64_t)padded_size(size);
    return one != 0 && n > UINT64_MAX / one ? UINT64_MAX : n * one;
  }
  uint64_t sum = 0;
  for (int u = 0; u < seg->nunits; u++) {
    if (!all && !dart__team_unit_is_local_node(seg->team, u)) continue;
    sum = add_sat(sum, (uint64_t)padded_size(dart__segment_portion(seg, u)));
  }
  return sum;
}

/* Memory that can back a private portion at all: RAM and swap. */
static uint64_t private_limit(void)
{
  struct sysinfo si;
  if (sysinfo(&si) != 0) return UINT64_MAX;
  uint64_t unit = si.mem_unit ? si.mem_unit : 1;
  return add_sat((uint64_t)si.totalram * unit, (uint64_t)si.totalswap * unit);
}

/*
 * Does the caller's node have room for its part of the allocation? Shared
 * windows are files in a tmpfs: MPICH maps them sparse (and raises SIGBUS
 * at the first touch past the file system's size), while Open MPI fails
 * on the one rank that creates the file and leaves its node peers waiting
 * inside MPI_Win_allocate_shared. So the free space is checked here and
 * the verdict agreed on before any window call. A page per unit and
 * 1 MiB more leave room for MPI's own headers.
 */
static dart_ret_t check_capacity(const char *func, const dart__segment_t *seg,
                                 size_t size, scheme_t scheme)
{
  if (scheme == SCHEME_PRIVATE) {
    uint64_t need = (uint64_t)padded_size(size), have = private_limit();
    if (need <= have) return DART_OK;
    dart__log(DART__LOG_ERROR, func,
              "%zu bytes per unit exceed the %llu bytes of memory and swap "
              "of this node",
              size, (unsigned long long)have);
    return DART_ERR_NOMEM;
  }
  struct statvfs fs;
  if (statvfs(shm_dir, &fs) != 0) return DART_OK; /* MPI decides */
  uint64_t have = (uint64_t)fs.f_bavail * fs.f_frsize;
  uint64_t need = add_sat(node_request(seg, size, scheme == SCHEME_SINGLE),
                          (uint64_t)seg->nunits * seg_align + (1u << 20));
  if (need <= have) return DART_OK;
  dart__log(DART__LOG_ERROR, func,
            "%zu bytes per unit (%llu on this node) exceed the %llu bytes "
            "free in %s",
            size, (unsigned long long)need, (unsigned long long)have, shm_dir);
  return DART_ERR_NOMEM;
}

/* Maps the caller's private portion (pages, at least one); the kernel
 * refuses what it cannot commit, and the refusal is returned. */
static dart_ret_t map_private(const char *func, dart__segment_t *seg,
                              size_t size)
{
  size_t len = (size + seg_align - 1) & ~(seg_align - 1);
  if (len == 0) len = seg_align;
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (p == MAP_FAILED) {
    dart__log(DART__LOG_ERROR, func,
              "cannot map %zu bytes of private memory for the portion", len);
    return DART_ERR_NOMEM;
  }
  seg->priv_mem = p;
  seg->priv_len = len;
  return DART_OK;
}

/* Windows of seg that exist on this unit, in the order they are made. */
static int windows_made(const dart__segment_t *seg)
{
  return (seg->shm_win != MPI_WIN_NULL) + (seg->win != MPI_WIN_NULL);
}

/*
 * After the window calls: the result agreed by all members. If some
 * failed, the windows that not every member holds cannot be freed (the
 * free is collective): they are left to MPI, so that the caller's
 * collective cleanup frees only windows every member has.
 */
static dart_ret_t agree_created(const char *func, dart__segment_t *seg,
                                size_t size, dart_ret_t mine)
{
  int common = 0;
  dart_ret_t all =
      dart__segment_agree_step(func, seg, mine, windows_made(seg), &common);
  if (all == DART_OK) return DART_OK;
  if (mine == DART_OK)
    dart__log(DART__LOG_ERROR, func,
              "%zu bytes per unit: the windows failed on another unit of "
              "team %d (%s)",
              size, seg->team->id, dart__strerror(all));
  if (windows_made(seg) > common) {
    DART_LOG_ERROR("leaving %d window(s) of team %d to MPI: not every unit "
                   "created them",
                   windows_made(seg) - common, seg->team->id);
    dart__window_count_add(-(windows_made(seg) - common));
    seg->win = MPI_WIN_NULL; /* always the later one */
    seg->locked = false;
    if (common == 0) seg->shm_win = MPI_WIN_NULL;
  }
  return all;
}

dart_ret_t dart__window_alloc(const char *func, dart__segment_t *seg,
                              size_t size)
{
  scheme_t scheme = scheme_of(seg->team);
  /* Everything that can fail on some units only happens before the window
   * calls, and its outcome is agreed: nobody is left waiting in one. */
  dart_ret_t ret = check_capacity(func, seg, size, scheme);
  if (ret == DART_OK) ret = dart__segment_own_bases(seg);
  if (ret == DART_OK && scheme == SCHEME_PRIVATE)
    ret = map_private(func, seg, size);
  dart_ret_t all = dart__segment_agree_step(func, seg, ret, 0, NULL);
  if (all != DART_OK) {
    if (ret == DART_OK)
      dart__log(DART__LOG_ERROR, func,
                "%zu bytes per unit: out of memory on another unit of "
                "team %d",
                size, seg->team->id);
    return all; /* the private mapping goes with free_windows */
  }
  MPI_Aint msize = padded_size(size);
  if (scheme == SCHEME_SINGLE)
    ret = alloc_single_node(func, seg, msize);
  else if (scheme == SCHEME_PRIVATE)
    ret = alloc_private(func, seg, size);
  else
    ret = alloc_hybrid(func, seg, msize, size);
  return agree_created(func, seg, size, ret);
}

/*
 * Releases the windows of seg (collective over the team; a teardown path:
 * goes on after a failure). func names the waits and the failures.
 */
static dart_ret_t free_windows(const char *func, dart__segment_t *seg)
{
  dart_ret_t ret = DART_OK, r;
  if (seg->win != MPI_WIN_NULL && seg->locked) {
    /* completes this unit's RMA on the window, not collective */
    DART__WATCH(func, "MPI_Win_unlock_all", (int)seg->team->id,
                watch_segid(seg), DART__WATCH_NONE, -1);
    ret = dart__watch_end_mpi(func, "MPI_Win_unlock_all",
                              MPI_Win_unlock_all(seg->win));
  }
  if (seg->win != MPI_WIN_NULL) {
    if ((r = WINDOW_CALL(func, seg, MPI_Win_free(&seg->win))) != DART_OK)
      ret = r;
    dart__window_count_add(-1);
  }
  if (seg->shm_win != MPI_WIN_NULL) {
    if ((r = WINDOW_CALL(func, seg, MPI_Win_free(&seg->shm_win))) != DART_OK)
      ret = r;
    dart__window_count_add(-1);
  }
  if (seg->priv_mem != NULL) {
    /* After the window over it is gone; munmap fails only on bad input. */
    if (munmap(seg->priv_mem, seg->priv_len) != 0) {
      dart__log(DART__LOG_ERROR, func, "munmap of a private portion failed");
      ret = DART_ERR_OTHER;
    }
    seg->priv_mem = NULL;
  }
  return ret;
}

static void segment_free_memory(dart__segment_t *seg)
{
  free(seg->sizes);
  free(seg->disp_pads);
  free(seg->own_bases); /* a heap chunk's node_base is the chunk's */
  dart__segtable_t *tab = seg->team->segs;
  dart__segment_t *none = NULL;
  /* Keep the record for the team's next segment if the slot is empty. */
  if (tab == NULL ||
      !__atomic_compare_exchange_n(&tab->spare, &none, seg, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    free(seg);
}

/* Frees the team's kept segment record (team destruction). */
void dart__segment_spare_free(dart__segtable_t *tab)
{
  free(__atomic_exchange_n(&tab->spare, NULL, __ATOMIC_ACQ_REL));
}

dart_ret_t dart__segment_dispose(const char *func, dart__segment_t *seg)
{
  dart_ret_t ret = free_windows(func, seg);
  segment_free_memory(seg);
  return ret;
}

dart__segment_t *dart__segment_record(dart__team_t *team, dart__seg_kind_t kind,
                                      size_t size)
{
  /* A record of constant size: the mapped bases come with the memory
   * (own_bases, or the heap chunk's). */
  dart__segment_t *seg = NULL;
  if (team->segs != NULL)
    seg = __atomic_exchange_n(&team->segs->spare, NULL, __ATOMIC_ACQ_REL);
  if (seg != NULL)
    memset(seg, 0, sizeof *seg);
  else if ((seg = calloc(1, sizeof *seg)) == NULL)
    return NULL;
  seg->kind = kind;
  seg->team = team;
  seg->nunits = team->size;
  seg->myid = team->myid;
  seg->node_idx = team->node_idx;
  seg->win = MPI_WIN_NULL;
  seg->shm_win = MPI_WIN_NULL;
  seg->size = size;
  seg->sym_size = size;
  return seg;
}

void dart__segment_set_atomics(dart__segment_t *seg)
{
  /* Atomics on the shared mapping need every unit's memory mapped here
   * (a one-unit team maps all of its memory). */
  seg->cpu_atomics =
      (seg->kind != DART__SEG_REGISTER && seg->team->single_node) ||
      seg->team->size == 1;
}

/* Largest portion of any unit (sizes agreed). */
static size_t max_portion_size(const dart__segment_t *seg)
{
  if (seg->sizes == NULL)
    return seg->odd_unit1 != 0 && seg->odd_size > seg->sym_size ? seg->odd_size
                                                                : seg->sym_size;
  size_t m = 0;
  for (int u = 0; u < seg->nunits; u++)
    if (seg->sizes[u] > m) m = seg->sizes[u];
  return m;
}

/* Memory and windows of a segment whose sizes are agreed. */
static dart_ret_t segment_memory(const char *func, dart__segment_t *seg,
                                 void *addr)
{
  /* seg->mpi_left: the team's minimum, so all units decide alike. */
  if (seg->kind == DART__SEG_REGISTER) {
    if (seg->nunits > 1 && !seg->reg_dynamic && seg->mpi_left < 1)
      return dart__mpi_objects_refuse(func, 1);
    return dart__register_window(func, seg, addr, seg->size);
  }
  size_t max = max_portion_size(seg);
  if (seg->kind != DART__SEG_POOL && dart__heap_takes(max))
    return dart__heap_alloc(func, seg, max);
  if (seg->mpi_left < windows_needed(seg->team))
    return dart__mpi_objects_refuse(func, windows_needed(seg->team));
  return dart__window_alloc(func, seg, seg->size);
}

int dart__window_count(const dart__team_t *team)
{
  return windows_needed(team);
}

static dart__segid_kind_t id_kind(dart__seg_kind_t kind)
{
  return kind == DART__SEG_REGISTER ? DART__SEGID_REG : DART__SEGID_ALLOC;
}

dart_ret_t dart__segment_create(const char *func, dart__team_t *team,
                                dart__seg_kind_t kind, size_t size, void *addr,
                                dart_ret_t status, dart__segment_t **out)
{
  *out = NULL;
  dart__segment_t *seg = dart__segment_record(team, kind, size);
  if (seg == NULL) return DART_ERR_NOMEM; /* unrecoverable: peers hang */
  /* This unit's window displacement of its portion, exchanged by agree. */
  if (kind == DART__SEG_REGISTER && status == DART_OK)
    status = dart__register_disp(func, seg, addr, size);
  /* Its mapped base; allocations get theirs with their memory (before an
   * agreement, as here: a unit out of memory fails the call on all). */
  /* With peers, nobody maps the registered memory but its owner, which
   * reaches it through own_base: the team's NULL bases, nothing per
   * record. The directory is where displacements go if they differ
   * (decided by the agreement). */
  if (kind == DART__SEG_REGISTER && status == DART_OK && team->size > 1)
    status = dart__regdir_prepare(func, team);
  if (kind == DART__SEG_REGISTER && status == DART_OK)
    status = team->size > 1
                 ? (seg->node_base = dart__regdir_no_bases(team), DART_OK)
                 : dart__segment_own_bases(seg);
  if (kind != DART__SEG_REGISTER && size > max_portion() && status == DART_OK) {
    dart__log(DART__LOG_ERROR, func, "%zu bytes exceed the largest portion",
              size);
    status = DART_ERR_INVAL;
  }
  /* Reserve on every member, even after a failed local check, so that the
   * id bookkeeping stays identical across the team. */
  seg->segid = (kind == DART__SEG_POOL)
                   ? 0
                   : dart__segtable_reserve(team->segs, id_kind(kind));
  if (kind != DART__SEG_POOL && seg->segid == 0 && status == DART_OK) {
    dart__log(DART__LOG_ERROR, func, "no free segment id left on team %d",
              team->id);
    status = DART_ERR_NOMEM;
  }
  int32_t collect = 0;
  dart_ret_t ret = dart__segment_agree(func, seg, status, &collect);
  if (collect != 0) {
    int32_t freed = 0;
    dart_ret_t r = dart__segment_collect(func, team, collect, &freed);
    if (ret == DART_OK) ret = r;
    /* The ids just freed are reused at once, the lowest first: a free
     * followed by an allocation gets the freed id back, as DASH expects
     * (DARTMemAllocTest.SegmentReuseTest). Every member freed the same. */
    if (freed > 0 && seg->segid != 0 && kind != DART__SEG_POOL) {
      dart__segtable_release(team->segs, seg->segid);
      seg->segid = dart__segtable_reserve(team->segs, id_kind(kind));
    }
  }
  if (ret == DART_OK) {
    ret = segment_memory(func, seg, addr);
    dart__segment_set_atomics(seg);
  }
  if (ret == DART_OK && !seg->cpu_atomics) {
    /* Peers reach the caller's portion through MPI: its own accesses take
     * the out-of-line path, which drives MPI progress (onesided/rma.c). */
    seg->own_base = seg->base;
    /* A carved block shares its chunk's array, where heap.c did this. */
    if (seg->own_bases != NULL) seg->own_bases[seg->team->node_rank] = NULL;
    dart__progress_require(kind == DART__SEG_REGISTER
                               ? "registration reached through MPI"
                               : "memory on several nodes");
  }
  if (ret != DART_OK) {
    if (seg->borrowed) dart__register_detach(func, seg);
    free_windows(func, seg);
    if (seg->segid != 0) dart__segtable_release(team->segs, seg->segid);
    segment_free_memory(seg);
    return ret;
  }
  dart__segtable_publish(team->segs, seg->segid, seg);
  *out = seg;
  return DART_OK;
}

dart_ret_t dart__segment_destroy(const char *func, dart__segment_t *seg)
{
  dart__team_t *team = seg->team;
  dart__handles_segment_freed(func, seg);
  /* Unpublish first: concurrent resolvers stop finding it. */
  dart__segtable_release(team->segs, seg->segid);
  dart_ret_t ret = DART_OK;
  if (seg->chunk != 0) ret = dart__heap_free(func, seg);
  if (seg->borrowed) ret = dart__register_detach(func, seg);
  dart_ret_t r = dart__segment_dispose(func, seg);
  return ret != DART_OK ? ret : r;
}

dart_ret_t dart__segment_retire(const char *func, dart__segment_t *seg)
{
  /* A one-unit team has no window and nobody to agree with: free now. */
  if (seg->nunits == 1) return dart__segment_destroy(func, seg);
  dart__handles_segment_freed(func, seg);
  dart_ret_t ret = DART_OK;
  /* the team's dynamic window; only dart_team_memderegister retires */
  if (seg->borrowed) ret = dart__register_detach(func, seg);
  if (dart__segtable_retire(seg->team->segs, seg->segid, seg) != 0) {
    DART_LOG_ERROR("out of memory retiring segment %d of team %d", seg->segid,
                   seg->team->id);
    return DART_ERR_NOMEM;
  }
  return ret;
}

dart_ret_t dart__segment_release(const char *func, dart__segment_t *seg)
{
  return seg->chunk != 0 ? dart__segment_retire(func, seg)
                         : dart__segment_destroy(func, seg);
}

int16_t dart__segment_id(dart__segment_t *seg)
{
  return seg->segid;
}
