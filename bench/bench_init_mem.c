/*
 * bench_init_mem: the heap that dart_init itself takes, per process
 * (issue 23: dart_init's memory model). The program starts MPI first
 * (MPI_Init_thread), so what MPI allocates for its own start-up is not
 * counted; then only the dart_init call is measured.
 *
 * How: malloc, calloc, realloc, free, posix_memalign, aligned_alloc and
 * memalign are defined here and forward to glibc's __libc_* entry points.
 * While dart_init runs, every block handed out is recorded in a fixed
 * hash table (no heap of its own) with its requested size and whether the
 * caller's return address lies in the executable segment of the shared
 * libdart-mpi (found with dl_iterate_phdr). A free of a recorded block
 * removes it. Two accounts result:
 *
 *   dart  blocks DART's own code asked for (not what a library it calls,
 *         MPI or hwloc, allocates on its behalf; also not blocks that
 *         glibc functions such as strdup allocate for it)
 *   all   every block allocated during the call, by any code and thread
 *         (DART, the MPI calls it makes, MPI's progress threads)
 *
 * For each: peak = most bytes live at once during the call, kept = bytes
 * still live when dart_init returns. Rank 0 prints the maximum over the
 * units:
 *
 *   SCALE init P=<n> dart_peak=<b> dart_kept=<b> all_peak=<b> all_kept=<b>
 *         dart_freed=<b>
 *
 * (dart_freed: bytes DART allocated and freed again within the call; kept
 * + freed bounds the peak at any P, also where a transient per-unit block
 * would outgrow what is kept)
 *
 * and, after dart_exit, the bytes of DART's dart_init blocks that
 * dart_exit did not free (0 unless something leaks):
 *
 *   SCALE init_exit P=<n> dart_left=<b>
 *
 * Sizes are the requested ones (not glibc's chunk sizes), so DART's
 * numbers are the same from run to run. Not for sanitizer builds: ASan
 * owns malloc.
 *
 *   bench_init_mem [--quick] [--check] [--trace]
 *
 *   --quick  accepted (scripts/bench.sh passes it), changes nothing
 *   --check  exit status 1 unless DART's peak and kept bytes are > 0 and
 *            dart_left is 0 (the CTest smoke test)
 *   --trace  unit 0 lists DART's blocks live after dart_init (size, caller
 *            offset in libdart-mpi.so for addr2line)
 */
#include <dash/dart/if/dart.h>
#include <errno.h>
#include <link.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

/* ---- the block table --------------------------------------------------- */

#define TABLE_BITS 18
#define TABLE_SIZE (1u << TABLE_BITS)
#define TOMBSTONE ((uintptr_t)1)

typedef struct {
  uintptr_t ptr;  /* 0: empty, TOMBSTONE: removed */
  uint64_t size2; /* requested size << 1 | (1 if DART's) */
  uintptr_t ra;   /* the caller's address */
} block_t;

typedef struct {
  long long now, peak, total; /* total: every byte ever recorded */
} account_t;

static block_t table[TABLE_SIZE];
static account_t acc_dart, acc_all;
static long live_blocks;           /* recorded and not yet freed */
static int armed;                  /* record new blocks (during dart_init) */
static int table_full;             /* a block could not be recorded */
static int table_lock;             /* spin lock over all of the above */
static uintptr_t text_lo, text_hi; /* libdart-mpi's executable segment */
static uintptr_t lib_base;         /* its load address (for addr2line) */

static void lock(void)
{
  while (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
    while (__atomic_load_n(&table_lock, __ATOMIC_RELAXED)) {
    }
}

static void unlock(void)
{
  __atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
}

static unsigned slot_of(uintptr_t p)
{
  uint64_t h = (uint64_t)p * 0x9E3779B97F4A7C15ull;
  return (unsigned)(h >> (64 - TABLE_BITS));
}

static void account(account_t *a, long long delta)
{
  a->now += delta;
  if (delta > 0) a->total += delta;
  if (a->now > a->peak) a->peak = a->now;
}

static void note_alloc(void *p, size_t n, void *ra)
{
  if (p == NULL || !__atomic_load_n(&armed, __ATOMIC_RELAXED)) return;
  uintptr_t at = (uintptr_t)ra;
  int dart = at >= text_lo && at < text_hi;
  lock();
  unsigned i = slot_of((uintptr_t)p), probes = 0;
  while (table[i].ptr > TOMBSTONE && probes < TABLE_SIZE) {
    i = (i + 1) & (TABLE_SIZE - 1);
    probes++;
  }
  if (probes == TABLE_SIZE) {
    table_full = 1;
  } else {
    table[i].ptr = (uintptr_t)p;
    table[i].size2 = (uint64_t)n << 1 | (uint64_t)dart;
    table[i].ra = at;
    live_blocks++;
    account(&acc_all, (long long)n);
    if (dart) account(&acc_dart, (long long)n);
  }
  unlock();
}

static void note_free(void *p)
{
  if (p == NULL || __atomic_load_n(&live_blocks, __ATOMIC_RELAXED) == 0) return;
  lock();
  unsigned i = slot_of((uintptr_t)p), probes = 0;
  while (table[i].ptr != 0 && probes < TABLE_SIZE) {
    if (table[i].ptr == (uintptr_t)p) {
      long long n = (long long)(table[i].size2 >> 1);
      account(&acc_all, -n);
      if (table[i].size2 & 1) account(&acc_dart, -n);
      table[i].ptr = TOMBSTONE;
      live_blocks--;
      break;
    }
    i = (i + 1) & (TABLE_SIZE - 1);
    probes++;
  }
  unlock();
}

/* ---- the interposed allocator ----------------------------------------- */

void *malloc(size_t n)
{
  void *p = __libc_malloc(n);
  note_alloc(p, n, __builtin_return_address(0));
  return p;
}

void *calloc(size_t m, size_t n)
{
  void *p = __libc_calloc(m, n);
  note_alloc(p, m * n, __builtin_return_address(0));
  return p;
}

void *realloc(void *old, size_t n)
{
  void *ra = __builtin_return_address(0);
  void *p = __libc_realloc(old, n);
  if (p != NULL || n == 0) note_free(old);
  note_alloc(p, n, ra);
  return p;
}

void free(void *p)
{
  note_free(p);
  __libc_free(p);
}

void *memalign(size_t align, size_t n)
{
  void *p = __libc_memalign(align, n);
  note_alloc(p, n, __builtin_return_address(0));
  return p;
}

void *aligned_alloc(size_t align, size_t n)
{
  void *p = __libc_memalign(align, n);
  note_alloc(p, n, __builtin_return_address(0));
  return p;
}

int posix_memalign(void **out, size_t align, size_t n)
{
  if (align < sizeof(void *) || (align & (align - 1)) != 0) return EINVAL;
  void *p = __libc_memalign(align, n);
  if (p == NULL) return ENOMEM;
  note_alloc(p, n, __builtin_return_address(0));
  *out = p;
  return 0;
}

/* ---- libdart-mpi's code ----------------------------------------------- */

static int find_text(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size;
  (void)data;
  if (info->dlpi_name == NULL || strstr(info->dlpi_name, "libdart-mpi") == NULL)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      lib_base = info->dlpi_addr;
      text_lo = info->dlpi_addr + ph->p_vaddr;
      text_hi = text_lo + ph->p_memsz;
      return 1;
    }
  }
  return 0;
}

/* ---- the measurement -------------------------------------------------- */

/* Prints DART's live blocks: size and caller as an offset into
 * libdart-mpi.so (addr2line -f -e libdart-mpi.so <offset>). */
static void trace_blocks(void)
{
  for (unsigned i = 0; i < TABLE_SIZE; i++)
    if (table[i].ptr > TOMBSTONE && (table[i].size2 & 1))
      printf("block size=%llu caller=0x%lx\n",
             (unsigned long long)(table[i].size2 >> 1),
             (unsigned long)(table[i].ra - lib_base));
}

/* Bytes of DART's recorded blocks still live. */
static long long live_bytes(void)
{
  long long sum = 0;
  lock();
  for (unsigned i = 0; i < TABLE_SIZE; i++)
    if (table[i].ptr > TOMBSTONE && (table[i].size2 & 1))
      sum += (long long)(table[i].size2 >> 1);
  unlock();
  return sum;
}

int main(int argc, char **argv)
{
  int provided, me, nunits, check = 0, trace = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--check") == 0) {
      check = 1;
    } else if (strcmp(argv[i], "--trace") == 0) {
      trace = 1;
    } else if (strcmp(argv[i], "--quick") != 0) {
      fprintf(stderr, "usage: %s [--quick] [--check] [--trace]\n", argv[0]);
      return 2;
    }
  }
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) !=
      MPI_SUCCESS) {
    fprintf(stderr, "bench_init_mem: MPI_Init_thread failed\n");
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &nunits);
  dl_iterate_phdr(find_text, NULL);
  if (text_hi == 0) {
    fprintf(stderr,
            "bench_init_mem: libdart-mpi is not loaded (static link?)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  __atomic_store_n(&armed, 1, __ATOMIC_SEQ_CST);
  dart_ret_t rc = dart_init(&argc, &argv);
  __atomic_store_n(&armed, 0, __ATOMIC_SEQ_CST);
  if (rc != DART_OK) {
    fprintf(stderr, "bench_init_mem: dart_init failed (%d)\n", (int)rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (trace && me == 0) trace_blocks();
  lock();
  long long mine[6] = {acc_dart.peak,
                       acc_dart.now,
                       acc_all.peak,
                       acc_all.now,
                       acc_dart.total - acc_dart.now,
                       table_full};
  unlock();
  long long max[6];
  if (MPI_Allreduce(mine, max, 6, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD) !=
      MPI_SUCCESS) {
    fprintf(stderr, "bench_init_mem: MPI_Allreduce failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (me == 0) {
    if (max[5]) fprintf(stderr, "bench_init_mem: block table full\n");
    printf("SCALE init P=%d dart_peak=%lld dart_kept=%lld all_peak=%lld "
           "all_kept=%lld dart_freed=%lld\n",
           nunits, max[0], max[1], max[2], max[3], max[4]);
    fflush(stdout);
  }

  if (dart_exit() != DART_OK) {
    fprintf(stderr, "bench_init_mem: dart_exit failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long long left = live_bytes(), left_max;
  if (MPI_Allreduce(&left, &left_max, 1, MPI_LONG_LONG, MPI_MAX,
                    MPI_COMM_WORLD) != MPI_SUCCESS) {
    fprintf(stderr, "bench_init_mem: MPI_Allreduce failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (me == 0)
    printf("SCALE init_exit P=%d dart_left=%lld\n", nunits, left_max);
  int bad = max[5] != 0;
  if (check && me == 0 && (max[0] <= 0 || max[1] <= 0 || left_max != 0)) {
    fprintf(stderr,
            "bench_init_mem: check failed: dart_peak=%lld "
            "dart_kept=%lld dart_left=%lld\n",
            max[0], max[1], left_max);
    bad = 1;
  }
  MPI_Finalize();
  return bad;
}
