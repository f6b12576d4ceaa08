/*
 * Registration directory and displacement cache (issue 23: no state per
 * registration that grows with the number of units).
 *
 * User memory registered on a team with a dynamic window (MPICH) is
 * reached at its address on the owning unit, which differs from unit to
 * unit. Instead of gathering every unit's address into every record, each
 * unit publishes its own in the team's directory: a small window created
 * with MPI_Win_allocate per DIR_CHUNK registration ids, where unit u's
 * slot for registration id -(i + 1) is word i % DIR_CHUNK of its portion of
 * chunk i / DIR_CHUNK. The slot is written before the agreement step that
 * ends the registration, so a peer that has returned from the call can
 * read it. Peers read it with one MPI_Get on their first access to that
 * unit's portion (through the transport) and keep it in a process-wide
 * direct-mapped cache of DART__DISPCACHE_SLOTS entries keyed by (segment
 * serial, unit): fixed memory whatever the number of units and
 * registrations, and a hit costs a hash and a few loads. A miss (first
 * access, or an entry taken by another (segment, unit)) costs one round
 * trip to the owner.
 *
 * Directory memory per team and unit: a table of DIR_NCHUNKS handles and
 * node_size NULL bases (the mapped bases of every registration record)
 * from the first registration on, and 2 KiB per chunk in use.
 */
#include <pthread.h>
#include <stdlib.h>

#include "dart_watch.h"
#include "globmem/globmem_internal.h"
#include "transport/transport.h"
#include "transport/wait.h"

enum { DIR_CHUNK = 256, DIR_NCHUNKS = DART__SEG_MAX_REG_ID / DIR_CHUNK };

struct dart__regdir {
  MPI_Win win[DIR_NCHUNKS];
  MPI_Aint *mem[DIR_NCHUNKS]; /* the caller's portion of each chunk */
  /* Mapped bases of every registration of several units: node_size
   * entries, all NULL (only the owner maps user memory, and it reaches
   * its own through own_base), shared by all such records. */
  char **none;
};

dart__dispcache_entry_t dart__dispcache[DART__DISPCACHE_SLOTS];

/* Writers of the cache (misses) take turns under DART_THREAD_MULTIPLE. */
static pthread_mutex_t cache_mutex = PTHREAD_MUTEX_INITIALIZER;

static uint32_t last_serial;

uint32_t dart__regdir_serial(void)
{
  uint32_t s;
  do /* 0 means "empty" in the cache and "not lazy" in a record */
    s = __atomic_add_fetch(&last_serial, 1, __ATOMIC_RELAXED);
  while (s == 0);
  return s;
}

/* Slot index of registration id segid (-1 .. -DART__SEG_MAX_REG_ID). */
static int dir_index(int16_t segid)
{
  return -(int)segid - 1;
}

/* Creates chunk k of team's directory (collective over the team). */
static dart_ret_t chunk_create(const char *func, dart__team_t *team,
                               struct dart__regdir *dir, int k)
{
  DART__WATCH(func, "MPI_Win_allocate (registration directory)", (int)team->id,
              DART__WATCH_NONE, DART__WATCH_NONE, ++team->coll_seq);
  MPI_Aint *mem = NULL;
  dart__ompi_shm_names_before_window(team->size);
  dart_ret_t ret = dart__watch_end_mpi(
      func, "MPI_Win_allocate",
      MPI_Win_allocate((MPI_Aint)(DIR_CHUNK * sizeof *mem), 1, MPI_INFO_NULL,
                       team->comm, &mem, &dir->win[k]));
  if (ret != DART_OK) {
    dir->win[k] = MPI_WIN_NULL;
    return ret;
  }
  dart__mpi_objects_add(1);
  dir->mem[k] = mem;
  DART__MPI(MPI_Win_set_errhandler(dir->win[k], MPI_ERRORS_RETURN));
  DART__MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, dir->win[k]));
  return DART_OK;
}

dart_ret_t dart__regdir_prepare(const char *func, dart__team_t *team)
{
  dart__segtable_t *tab = team->segs;
  if (tab->regdir != NULL) return DART_OK;
  struct dart__regdir *dir = calloc(1, sizeof *dir);
  if (dir == NULL) {
    dart__log(DART__LOG_ERROR, func,
              "out of memory for the registration directory of team %d",
              team->id);
    return DART_ERR_NOMEM;
  }
  dir->none = calloc((size_t)team->node_size, sizeof *dir->none);
  if (dir->none == NULL) {
    free(dir);
    dart__log(DART__LOG_ERROR, func, "out of memory for team %d", team->id);
    return DART_ERR_NOMEM;
  }
  for (int k = 0; k < DIR_NCHUNKS; k++) dir->win[k] = MPI_WIN_NULL;
  tab->regdir = dir;
  return DART_OK;
}

char *const *dart__regdir_no_bases(const dart__team_t *team)
{
  return team->segs->regdir->none;
}

dart_ret_t dart__regdir_publish(const char *func, dart__segment_t *seg)
{
  /* Prepared before the agreement on every member, and every member gets
   * here with the same id: chunks are created alike everywhere. */
  struct dart__regdir *dir = seg->team->segs->regdir;
  int i = dir_index(seg->segid), k = i / DIR_CHUNK;
  if (dir->win[k] == MPI_WIN_NULL) {
    dart_ret_t ret = chunk_create(func, seg->team, dir, k);
    if (ret != DART_OK) return ret;
  }
  __atomic_store_n(&dir->mem[k][i % DIR_CHUNK], seg->disp_pad,
                   __ATOMIC_RELEASE);
  /* visible before the collective that follows */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return DART_OK;
}

/* Sequence-lock write of one entry. */
void dart__dispcache_put(uint32_t serial, int u, MPI_Aint disp, uint64_t bound)
{
  dart__dispcache_entry_t *e =
      &dart__dispcache[dart__dispcache_slot(serial, u)];
  if (dart__g.multithreaded) pthread_mutex_lock(&cache_mutex);
  uint32_t s = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
  __atomic_store_n(&e->seq, s + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  __atomic_store_n(&e->serial, serial, __ATOMIC_RELAXED);
  __atomic_store_n(&e->unit, (int32_t)u, __ATOMIC_RELAXED);
  __atomic_store_n(&e->disp, disp, __ATOMIC_RELAXED);
  __atomic_store_n(&e->bound, bound, __ATOMIC_RELAXED);
  __atomic_store_n(&e->seq, s + 2, __ATOMIC_RELEASE);
  if (dart__g.multithreaded) pthread_mutex_unlock(&cache_mutex);
}

dart_ret_t dart__regdir_fetch(const char *func, const dart__segment_t *seg,
                              int u, MPI_Aint *disp)
{
  if (u == seg->myid) {
    *disp = seg->disp_pad;
    return DART_OK;
  }
  /* The growth segment publishes in the pool page instead. */
  if (seg->kind == DART__SEG_POOL) return dart__pool_grow_fetch(func, u, disp);
  struct dart__regdir *dir = seg->team->segs->regdir;
  int i = dir_index(seg->segid), k = i / DIR_CHUNK;
  MPI_Aint d = 0;
  dart_ret_t ret =
      dir == NULL || dir->win[k] == MPI_WIN_NULL
          ? DART_ERR_OTHER
          : dart__mpi_get_word(func, dir->win[k], u,
                               (MPI_Aint)((i % DIR_CHUNK) * sizeof d), &d,
                               MPI_AINT);
  if (ret != DART_OK) {
    dart__log(DART__LOG_ERROR, func,
              "cannot read the displacement of unit %d in registration %d of "
              "team %d",
              u, seg->segid, seg->team->id);
    *disp = seg->disp_pad;
    return DART_ERR_OTHER;
  }
  dart__dispcache_put(seg->disp_serial, u, d, UINT64_MAX);
  *disp = d;
  return DART_OK;
}

dart_ret_t dart__regdir_fini(const char *func, dart__team_t *team)
{
  struct dart__regdir *dir = team->segs->regdir;
  if (dir == NULL) return DART_OK;
  dart_ret_t ret = DART_OK;
  /* Chunks exist on every member alike: freed in the same order. */
  for (int k = 0; k < DIR_NCHUNKS; k++) {
    if (dir->win[k] == MPI_WIN_NULL) continue;
    DART__MPI_LOG(MPI_Win_unlock_all(dir->win[k]));
    DART__WATCH(func, "MPI_Win_free (registration directory)", (int)team->id,
                DART__WATCH_NONE, DART__WATCH_NONE, ++team->coll_seq);
    dart_ret_t r =
        dart__watch_end_mpi(func, "MPI_Win_free", MPI_Win_free(&dir->win[k]));
    if (r != DART_OK) ret = r;
    dart__mpi_objects_add(-1);
  }
  free(dir->none);
  free(dir);
  team->segs->regdir = NULL;
  return ret;
}
