/*
 * Symmetric memory: the symmetric heap (one collective DART allocation of
 * SHMEM_SYMMETRIC_SIZE bytes per PE at init, carved by a deterministic
 * first-fit allocator, so every PE gets the same offsets from the same
 * sequence of calls), the program's data and BSS (registered with DART at
 * init), address -> global pointer, and the malloc family.
 */
#include <ctype.h>
#include <link.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dash/dart/ext/dartx.h>

#include "shmem_internal.h"

#define HEAP_DEFAULT_SIZE ((size_t)128 << 20)
#define HEAP_MIN_ALIGN 64
/* Every PE's heap starts at an address aligned to HEAP_ORIGIN_ALIGN (its
 * own pad into its DART portion), so that an offset aligned to at most
 * this is an aligned address on every PE (shmem_align). */
#define HEAP_ORIGIN_ALIGN ((size_t)16 << 20)

/* The executable's writable PT_LOAD segment (data and BSS), without its
 * RELRO part (read-only after relocation): the first object
 * dl_iterate_phdr reports is the program itself. */
static int find_data(struct dl_phdr_info *info, size_t sz, void *arg)
{
  (void)sz;
  char **range = arg;
  uintptr_t relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO)
      relro_end = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr +
                  info->dlpi_phdr[i].p_memsz;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)) continue;
    uintptr_t b = info->dlpi_addr + ph->p_vaddr, e = b + ph->p_memsz;
    if (relro_end > b && relro_end < e) b = relro_end;
    range[0] = (char *)b;
    range[1] = (char *)e;
  }
  return 1; /* the program only */
}

typedef struct {
  size_t off, size;
} block_t;

/* Allocated blocks sorted by offset (private bookkeeping, not in the heap). */
static block_t *blocks;
static size_t nblocks, cap_blocks;
static pthread_mutex_t heap_mu = PTHREAD_MUTEX_INITIALIZER;

static size_t parse_size(const char *s, const char *fn)
{
  char *end;
  double v = strtod(s, &end);
  while (isspace((unsigned char)*end)) end++;
  double m = 1;
  switch (toupper((unsigned char)*end)) {
  case 'K':
    m = 1024.0;
    end++;
    break;
  case 'M':
    m = 1024.0 * 1024;
    end++;
    break;
  case 'G':
    m = 1024.0 * 1024 * 1024;
    end++;
    break;
  case 'T':
    m = 1024.0 * 1024 * 1024 * 1024;
    end++;
    break;
  default: break;
  }
  if (toupper((unsigned char)*end) == 'B') end++;
  if (end == s || *end != '\0' || v <= 0 || v * m > 1e15)
    shmemi_fatal(fn, "SHMEM_SYMMETRIC_SIZE=\"%s\" is not a size", s);
  return (size_t)(v * m);
}

static void register_data(const char *fn)
{
  shmemi_g.data_gptr = DART_GPTR_NULL;
  char *range[2] = {NULL, NULL};
  dl_iterate_phdr(find_data, range);
  if (range[0] == NULL || range[1] <= range[0]) return;
  size_t len = (size_t)(range[1] - range[0]);
  /* Every PE runs the same executable: agree on the size anyway. */
  long in[2] = {(long)len, -(long)len}, out[2];
  if (dart_allreduce(in, out, 2, DART_TYPE_LONG, DART_OP_MAX, DART_TEAM_ALL) !=
      DART_OK)
    shmemi_fatal(fn, "allreduce of the data segment size failed");
  if (out[0] != -out[1]) {
    shmemi_warn(fn,
                "data+BSS differ between PEs (%zu bytes here): static "
                "variables are not symmetric",
                len);
    return;
  }
  shmemi_data_map(range[0], len, fn);
  if (dart_team_memregister(DART_TEAM_ALL, len, DART_TYPE_BYTE, range[0],
                            &shmemi_g.data_gptr) != DART_OK)
    shmemi_fatal(fn, "registering data+BSS (%zu bytes) failed", len);
  shmemi_g.data_base = range[0];
  shmemi_g.data_size = len;
}

int shmemi_heap_init(void)
{
  const char *fn = "shmem_init";
  const char *env = getenv("SHMEM_SYMMETRIC_SIZE");
  size_t size = env ? parse_size(env, fn) : HEAP_DEFAULT_SIZE;
  size = (size + 4095) & ~(size_t)4095;
  dart_gptr_t g;
  if (dart_team_memalloc_aligned(DART_TEAM_ALL, size + HEAP_ORIGIN_ALIGN,
                                 DART_TYPE_BYTE, &g) != DART_OK)
    shmemi_fatal(fn,
                 "cannot allocate a symmetric heap of %zu bytes "
                 "(SHMEM_SYMMETRIC_SIZE)",
                 size);
  shmemi_g.heap_gptr = g;
  shmemi_g.heap_size = size;
  shmemi_g.heap_peer = calloc((size_t)shmemi_g.n_pes, sizeof(char *));
  if (shmemi_g.heap_peer == NULL) shmemi_fatal(fn, "out of memory");
  int mapped = 0;
  for (int pe = 0; pe < shmemi_g.n_pes; pe++) {
    void *a = NULL;
    g.unitid = pe;
    g.addr_or_offs.offset = 0;
    if (dartx_gptr_mapped(g, size + HEAP_ORIGIN_ALIGN, &a) != DART_OK)
      shmemi_fatal(fn, "heap of PE %d does not resolve", pe);
    shmemi_g.heap_peer[pe] = a;
    mapped += a != NULL;
  }
  /* Where peers reach the caller's portion through MPI, DART does not
   * report it as mapped: the owner's address comes from getaddr. */
  void *own = NULL;
  g.unitid = shmemi_g.my_pe;
  if (dart_gptr_getaddr(g, &own) != DART_OK || own == NULL)
    shmemi_fatal(fn, "own heap has no address");
  mapped += shmemi_g.heap_peer[shmemi_g.my_pe] == NULL;
  shmemi_g.heap_peer[shmemi_g.my_pe] = own;
  shmemi_g.heap_pad = calloc((size_t)shmemi_g.n_pes, sizeof *shmemi_g.heap_pad);
  if (shmemi_g.heap_pad == NULL) shmemi_fatal(fn, "out of memory");
  uint64_t pad = (HEAP_ORIGIN_ALIGN - (uintptr_t)own % HEAP_ORIGIN_ALIGN) %
                 HEAP_ORIGIN_ALIGN;
  if (dart_allgather(&pad, shmemi_g.heap_pad, 1, DART_TYPE_ULONG,
                     DART_TEAM_ALL) != DART_OK)
    shmemi_fatal(fn, "allgather of the heap origins failed");
  for (int pe = 0; pe < shmemi_g.n_pes; pe++)
    if (shmemi_g.heap_peer[pe] != NULL)
      shmemi_g.heap_peer[pe] += shmemi_g.heap_pad[pe];
  shmemi_g.heap_base = shmemi_g.heap_peer[shmemi_g.my_pe];
  shmemi_g.single_node = mapped == shmemi_g.n_pes;
  register_data(fn);
  nblocks = 0;
  return 0;
}

void shmemi_heap_fini(void)
{
  if (!DART_GPTR_ISNULL(shmemi_g.data_gptr))
    dart_team_memderegister(shmemi_g.data_gptr);
  shmemi_data_unmap();
  dart_team_memfree(shmemi_g.heap_gptr);
  free(shmemi_g.heap_peer);
  shmemi_g.heap_peer = NULL;
  free(shmemi_g.heap_pad);
  shmemi_g.heap_pad = NULL;
  shmemi_g.heap_base = NULL;
  free(blocks);
  blocks = NULL;
  nblocks = cap_blocks = 0;
}

int shmemi_gptr(const void *sym_addr, int world_pe, dart_gptr_t *out)
{
  shmemi_tgt_t t;
  size_t off;
  if (shmemi_resolve(sym_addr, world_pe, &t, &off) < 0) return -1;
  *out = shmemi_tgt_gptr(&t);
  return 0;
}

void *shmemi_local_ptr(const void *sym_addr, int world_pe)
{
  shmemi_tgt_t t;
  size_t off;
  if (world_pe < 0 || world_pe >= shmemi_g.n_pes ||
      shmemi_resolve(sym_addr, world_pe, &t, &off) < 0)
    return NULL;
  return t.local;
}

/* ---- Deterministic first-fit allocator ----------------------------------
 */
static int heap_alloc_locked(size_t size, size_t align, size_t *off)
{
  size_t pos = 0;
  size_t i;
  for (i = 0; i <= nblocks; i++) {
    size_t start = (pos + align - 1) & ~(align - 1);
    size_t limit = i < nblocks ? blocks[i].off : shmemi_g.heap_size;
    if (start <= limit && limit - start >= size) break;
    if (i < nblocks) pos = blocks[i].off + blocks[i].size;
  }
  if (i > nblocks) return -1;
  if (nblocks == cap_blocks) {
    size_t nc = cap_blocks ? 2 * cap_blocks : 64;
    block_t *nb = realloc(blocks, nc * sizeof *nb);
    if (nb == NULL) return -1;
    blocks = nb;
    cap_blocks = nc;
  }
  memmove(&blocks[i + 1], &blocks[i], (nblocks - i) * sizeof *blocks);
  blocks[i].off = (pos + align - 1) & ~(align - 1);
  blocks[i].size = size;
  nblocks++;
  *off = blocks[i].off;
  return 0;
}

static long find_block(size_t off)
{
  size_t lo = 0, hi = nblocks;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (blocks[mid].off < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < nblocks && blocks[lo].off == off ? (long)lo : -1;
}

static void *heap_alloc(size_t size, size_t align)
{
  size_t off;
  if (size == 0) size = 1;
  if (align < HEAP_MIN_ALIGN) align = HEAP_MIN_ALIGN;
  if (align > HEAP_ORIGIN_ALIGN) return NULL;
  pthread_mutex_lock(&heap_mu);
  int r = size > shmemi_g.heap_size ? -1 : heap_alloc_locked(size, align, &off);
  pthread_mutex_unlock(&heap_mu);
  return r == 0 ? shmemi_g.heap_base + off : NULL;
}

/* Frees a heap block: 0, or -1 if ptr is not the start of one. */
static int heap_free(void *ptr)
{
  size_t off;
  if (shmemi_seg_of(ptr, &off) != 0) return -1;
  pthread_mutex_lock(&heap_mu);
  long i = find_block(off);
  if (i >= 0) {
    memmove(&blocks[i], &blocks[i + 1],
            (nblocks - (size_t)i - 1) * sizeof *blocks);
    nblocks--;
  }
  pthread_mutex_unlock(&heap_mu);
  return i >= 0 ? 0 : -1;
}

/* Collective agreement on an allocation result; fatal if PEs differ (they
 * passed different sizes: their offsets would not be symmetric). Also the
 * synchronization point of the routine (every PE has entered it). */
static void agree(const void *p, const char *fn)
{
  long v = p == NULL ? -1 : (long)((const char *)p - shmemi_g.heap_base);
  long in[2] = {v, -v}, out[2];
  if (dart_allreduce(in, out, 2, DART_TYPE_LONG, DART_OP_MAX, DART_TEAM_ALL) !=
      DART_OK)
    shmemi_fatal(fn, "allreduce failed");
  if (out[0] != -out[1])
    shmemi_fatal(fn,
                 "PEs got different heap offsets (%ld here): the "
                 "routine was called with different arguments",
                 v);
}

void *shmemi_sym_alloc(size_t size, size_t align)
{
  if (size == 0) return NULL;
  return heap_alloc(size, align == 0 ? HEAP_MIN_ALIGN : align);
}

void shmemi_sym_free(void *ptr)
{
  if (ptr != NULL && heap_free(ptr) != 0)
    shmemi_fatal("shmem (internal free)", "%p is not a heap block", ptr);
}

static void *user_alloc(size_t size, size_t align, int zero, const char *fn)
{
  shmemi_check_init(fn);
  void *p = NULL;
  if (size != 0) {
    p = heap_alloc(size, align);
    if (p == NULL)
      shmemi_warn(fn,
                  "%zu bytes do not fit the symmetric heap "
                  "(SHMEM_SYMMETRIC_SIZE = %zu)",
                  size, shmemi_g.heap_size);
    else if (zero)
      memset(p, 0, size);
  }
  shmemi_quiet_all();
  agree(p, fn);
  return p;
}

void *shmem_malloc(size_t size)
{
  return user_alloc(size, 0, 0, __func__);
}
SHMEMI_ALIAS(shmem_malloc);

void *shmem_malloc_with_hints(size_t size, long hints)
{
  (void)hints; /* every hint is a performance hint: one heap serves all */
  return user_alloc(size, 0, 0, __func__);
}
SHMEMI_ALIAS(shmem_malloc_with_hints);

void *shmem_calloc(size_t count, size_t size)
{
  if (size != 0 && count > SIZE_MAX / size) {
    shmemi_warn(__func__, "count %zu * size %zu overflows", count, size);
    count = 0;
  }
  return user_alloc(count * size, 0, 1, __func__);
}
SHMEMI_ALIAS(shmem_calloc);

void *shmem_align(size_t alignment, size_t size)
{
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    shmemi_warn(__func__, "alignment %zu is not a power of two", alignment);
    size = 0;
  }
  return user_alloc(size, alignment, 0, __func__);
}
SHMEMI_ALIAS(shmem_align);

void shmem_free(void *ptr)
{
  shmemi_check_init(__func__);
  shmemi_quiet_all();
  agree(NULL, __func__);
  if (ptr != NULL && heap_free(ptr) != 0)
    shmemi_fatal(__func__, "%p is not a block of the symmetric heap", ptr);
}
SHMEMI_ALIAS(shmem_free);

void *shmem_realloc(void *ptr, size_t size)
{
  shmemi_check_init(__func__);
  if (ptr == NULL) return user_alloc(size, 0, 0, __func__);
  size_t off;
  shmemi_quiet_all();
  agree(NULL, __func__); /* everybody's accesses to ptr are done */
  if (shmemi_seg_of(ptr, &off) != 0)
    shmemi_fatal(__func__, "%p is not a block of the symmetric heap", ptr);
  pthread_mutex_lock(&heap_mu);
  long i = find_block(off);
  if (i < 0) {
    pthread_mutex_unlock(&heap_mu);
    shmemi_fatal(__func__, "%p is not a block of the symmetric heap", ptr);
  }
  size_t old = blocks[i].size;
  void *p = NULL;
  if (size == 0) {
    memmove(&blocks[i], &blocks[i + 1],
            (nblocks - (size_t)i - 1) * sizeof *blocks);
    nblocks--;
  } else {
    size_t limit =
        (size_t)i + 1 < nblocks ? blocks[i + 1].off : shmemi_g.heap_size;
    if (limit - off >= size) {
      blocks[i].size = size; /* grows or shrinks in place */
      p = ptr;
    } else {
      size_t noff;
      block_t keep = blocks[i];
      memmove(&blocks[i], &blocks[i + 1],
              (nblocks - (size_t)i - 1) * sizeof *blocks);
      nblocks--;
      if (heap_alloc_locked(size, HEAP_MIN_ALIGN, &noff) == 0) {
        p = shmemi_g.heap_base + noff;
        memmove(p, ptr, old < size ? old : size);
      } else { /* put the old block back: ptr stays valid */
        memmove(&blocks[i + 1], &blocks[i],
                (nblocks - (size_t)i) * sizeof *blocks);
        blocks[i] = keep;
        nblocks++;
      }
    }
  }
  pthread_mutex_unlock(&heap_mu);
  if (p == NULL && size != 0)
    shmemi_warn(__func__, "%zu bytes do not fit the symmetric heap", size);
  agree(p, __func__);
  return p;
}
SHMEMI_ALIAS(shmem_realloc);

void *shmalloc(size_t size)
{
  return shmem_malloc(size);
}
void *shmemalign(size_t alignment, size_t size)
{
  return shmem_align(alignment, size);
}
void *shrealloc(void *ptr, size_t size)
{
  return shmem_realloc(ptr, size);
}
void shfree(void *ptr)
{
  shmem_free(ptr);
}
