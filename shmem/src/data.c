/*
 * Load/store access to node peers' static and global variables.
 *
 * The program's data+BSS is registered with DART (an MPI window over
 * private memory), which every PE reaches through MPI RMA: on one node that
 * is an MPI round trip per access (Open MPI's osc/ucx emulates it with
 * active messages over shared memory, 10-30 us per 8-byte get when cores
 * are shared), where heap memory is a load. So at shmem_init, before the
 * registration, each PE that has node peers moves its data+BSS pages into
 * a memfd: it copies their contents into the memfd and maps the memfd over
 * them (MAP_FIXED, same address, same contents, now shared memory). Each
 * node peer maps that memfd too (/proc/<pid>/fd/<fd>), so shmem_ptr, puts,
 * gets and atomics on another PE's static variable are loads, stores and
 * CPU atomics, as on the heap.
 *
 * Atomics on data+BSS then use CPU atomics if every PE maps every other
 * PE's data (all on one node, every mapping succeeded), else MPI atomics
 * for all PEs (one mechanism per location, as DART does for the heap).
 * Where the pages cannot be moved (data not page-aligned, no memfd, /proc
 * not readable, the libraries linked statically into the executable) the
 * PE stays on the MPI path; nothing else changes.
 *
 * Caveat: the data segment is MAP_SHARED from shmem_init on, so a child
 * made by fork() shares the parent's static variables until it execs.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shmem_internal.h"

static size_t map_len; /* page-rounded length of every mapping */

/* Moves [base, base + len) into a memfd mapped at the same address;
 * returns the memfd or -1 (nothing changed). */
/* Copies the pages of [base, base + len) that are not all zero into fd
 * (a fresh memfd reads as zeros: a large BSS costs no memory). */
static int copy_pages(int fd, const char *base, size_t len, size_t pg)
{
  for (size_t off = 0; off < len; off += pg) {
    const char *p = base + off;
    size_t i = 0;
    while (i < pg && p[i] == 0) i++;
    if (i < pg && pwrite(fd, p, pg, (off_t)off) != (ssize_t)pg) return -1;
  }
  return 0;
}

static int share_own(char *base, size_t len, size_t pg, const char *fn)
{
  int fd = memfd_create("shmem-data", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (ftruncate(fd, (off_t)len) != 0 || copy_pages(fd, base, len, pg) != 0) {
    close(fd);
    return -1;
  }
  /* No thread of this process writes to the executable's data between
   * the copy and the remap: shmem_init is running, MPI's threads keep
   * their state in their libraries. */
  void *p =
      mmap(base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  if (p == MAP_FAILED)
    shmemi_fatal(fn, "remapping data+BSS (%zu bytes at %p) failed", len,
                 (void *)base);
  return fd;
}

/* Maps PE pe's memfd (pid, fd) or returns NULL. */
static char *map_peer(long pid, long fd)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/fd/%ld", pid, fd);
  int pfd = open(path, O_RDWR | O_CLOEXEC);
  if (pfd < 0) return NULL;
  void *p = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
  close(pfd);
  return p == MAP_FAILED ? NULL : p;
}

/* Whether [base, base + len) holds this library's own variables: linked
 * statically (libdart-shmem-static, and then DART's and maybe the MPI's
 * variables too), the executable's data is written by DART's progress
 * thread and the MPI's threads, whose writes between the copy and the
 * remap would be lost. Such programs keep their statics on the MPI path. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHMEMI_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SHMEMI_ASAN 1
#endif

static int holds_libraries(const char *base, size_t len)
{
#ifdef SHMEMI_ASAN
  /* AddressSanitizer: the redzones between globals must not be read (the
   * page copy would be reported); statics stay on the MPI path. */
  (void)base;
  (void)len;
  return 1;
#endif
  const char *p = (const char *)&map_len;
  return p >= base && p < base + len;
}

void shmemi_data_map(char *base, size_t len, const char *fn)
{
  int n = shmemi_g.n_pes, me = shmemi_g.my_pe;
  long pg = sysconf(_SC_PAGESIZE);
  int peers = 0;
  for (int pe = 0; pe < n; pe++)
    peers += pe != me && shmemi_g.heap_peer[pe] != NULL;
  map_len = (len + (size_t)pg - 1) & ~((size_t)pg - 1);
  int fd = -1;
  if (peers > 0 && (uintptr_t)base % (uintptr_t)pg == 0 &&
      !holds_libraries(base, map_len))
    fd = share_own(base, map_len, (size_t)pg, fn);
  long mine[2] = {(long)getpid(), fd}, *all = malloc(2 * sizeof(long) * n);
  shmemi_g.data_peer = calloc((size_t)n, sizeof(char *));
  if (all == NULL || shmemi_g.data_peer == NULL)
    shmemi_fatal(fn, "out of memory");
  if (dart_allgather(mine, all, 2, DART_TYPE_LONG, DART_TEAM_ALL) != DART_OK)
    shmemi_fatal(fn, "allgather of the data+BSS mappings failed");
  int mapped_all = 1;
  for (int pe = 0; pe < n; pe++) {
    if (pe == me) {
      shmemi_g.data_peer[pe] = base;
      continue;
    }
    if (shmemi_g.heap_peer[pe] != NULL && all[2 * pe + 1] >= 0)
      shmemi_g.data_peer[pe] = map_peer(all[2 * pe], all[2 * pe + 1]);
    mapped_all &= shmemi_g.data_peer[pe] != NULL;
  }
  free(all);
  /* Every peer opened this memfd (its mapping keeps it) before it closes;
   * the same collective decides the atomics' mechanism. */
  int in[1] = {mapped_all}, out[1];
  if (dart_allreduce(in, out, 1, DART_TYPE_INT, DART_OP_MIN, DART_TEAM_ALL) !=
      DART_OK)
    shmemi_fatal(fn, "allreduce of the data+BSS mappings failed");
  if (fd >= 0) close(fd);
  shmemi_g.data_cpu_atomics = out[0];
}

void shmemi_data_unmap(void)
{
  if (shmemi_g.data_peer == NULL) return;
  for (int pe = 0; pe < shmemi_g.n_pes; pe++)
    if (pe != shmemi_g.my_pe && shmemi_g.data_peer[pe] != NULL)
      munmap(shmemi_g.data_peer[pe], map_len);
  free(shmemi_g.data_peer);
  shmemi_g.data_peer = NULL;
  shmemi_g.data_cpu_atomics = 0;
}
