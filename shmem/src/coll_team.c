/*
 * Team collectives over DART's collectives on the team's DART team.
 *
 * DART numbers a team's units by ascending world id; a team made with a
 * negative stride numbers its PEs the other way, so where block order
 * matters (fcollect, alltoall, alltoalls) the blocks are permuted between
 * team order and DART order (team->dart_unit / team_of_dart); collect
 * places each block at its team-order offset through allgatherv's
 * displacements.
 */
#include <stdlib.h>
#include <string.h>

#include "shmem_coll.h"

void shmem_barrier_all(void)
{
  shmemi_check_init("shmem_barrier_all");
  shmemi_quiet_all();
  if (dart_barrier(DART_TEAM_ALL) != DART_OK)
    shmemi_fatal("shmem_barrier_all", "dart_barrier failed");
}
SHMEMI_ALIAS(shmem_barrier_all);

void shmem_sync_all(void)
{
  shmemi_check_init("shmem_sync_all");
  if (dart_barrier(DART_TEAM_ALL) != DART_OK)
    shmemi_fatal("shmem_sync_all", "dart_barrier failed");
}
SHMEMI_ALIAS(shmem_sync_all);

int shmem_team_sync(shmem_team_t team)
{
  shmemi_check_init("shmem_team_sync");
  if (!shmemi_team_check("shmem_team_sync", team)) return -1;
  return dart_barrier(team->dteam) == DART_OK ? 0 : -1;
}
SHMEMI_ALIAS(shmem_team_sync);

/* Common checks of the team forms; 0 = go on. */
static int team_args(const char *fn, shmem_team_t team, const void *dest,
                     const void *source, size_t nbytes)
{
  shmemi_check_init(fn);
  if (!shmemi_team_check(fn, team)) return -1;
  if (nbytes > 0 && (dest == NULL || source == NULL)) {
    shmemi_warn(fn, "%s is NULL", dest == NULL ? "dest" : "source");
    return -1;
  }
  return 0;
}

static int dart_fail(const char *fn, const char *what, dart_ret_t r)
{
  shmemi_warn(fn, "%s failed (%d)", what, (int)r);
  return -1;
}

static void *scratch(const char *fn, size_t nbytes)
{
  void *p = malloc(nbytes ? nbytes : 1);
  if (p == NULL) shmemi_warn(fn, "out of memory (%zu bytes)", nbytes);
  return p;
}

int shmemi_team_broadcast(shmem_team_t team, void *dest, const void *source,
                          size_t nbytes, int root)
{
  static const char *fn = "shmem_broadcast";
  if (team_args(fn, team, dest, source, nbytes) != 0) return -1;
  if (root < 0 || root >= team->size) {
    shmemi_warn(fn, "PE_root %d out of range for a team of %d PEs", root,
                team->size);
    return -1;
  }
  if (nbytes == 0) return 0;
  if (shmemi_team_is_world(team) &&
      shmemi_direct_bcast(fn, dest, source, nbytes, root, 1))
    return 0;
  if (team->my_pe == root && dest != source) memmove(dest, source, nbytes);
  dart_ret_t r =
      dart_bcast(dest, nbytes, DART_TYPE_BYTE,
                 DART_TEAM_UNIT_ID(team->dart_unit[root]), team->dteam);
  return r == DART_OK ? 0 : dart_fail(fn, "dart_bcast", r);
}

/* Copies of source when it overlaps dest (DART's in-place convention is not
 * OpenSHMEM's). Returns source itself otherwise, NULL when out of memory. */
static const void *unaliased(const char *fn, const void *dest,
                             size_t dest_bytes, const void *source,
                             size_t nbytes, void **copy)
{
  const char *s = source, *d = dest;
  *copy = NULL;
  if (nbytes == 0 || s >= d + dest_bytes || d >= s + nbytes) return source;
  if ((*copy = scratch(fn, nbytes)) == NULL) return NULL;
  memcpy(*copy, source, nbytes);
  return *copy;
}

int shmemi_team_fcollect(shmem_team_t team, void *dest, const void *source,
                         size_t nbytes)
{
  static const char *fn = "shmem_fcollect";
  if (team_args(fn, team, dest, source, nbytes) != 0) return -1;
  if (nbytes == 0) return 0;
  if (shmemi_team_is_world(team) &&
      shmemi_direct_fcollect(fn, dest, source, nbytes))
    return 0;
  size_t total = nbytes * (size_t)team->size;
  void *copy, *tmp = dest;
  const void *in = unaliased(fn, dest, total, source, nbytes, &copy);
  if (in == NULL) return -1;
  if (!team->ordered && (tmp = scratch(fn, total)) == NULL) {
    free(copy);
    return -1;
  }
  dart_ret_t r = dart_allgather(in, tmp, nbytes, DART_TYPE_BYTE, team->dteam);
  if (r == DART_OK && tmp != dest)
    for (int i = 0; i < team->size; i++)
      memcpy((char *)dest + (size_t)i * nbytes,
             (char *)tmp + (size_t)team->dart_unit[i] * nbytes, nbytes);
  if (tmp != dest) free(tmp);
  free(copy);
  return r == DART_OK ? 0 : dart_fail(fn, "dart_allgather", r);
}

int shmemi_team_collect(shmem_team_t team, void *dest, const void *source,
                        size_t nbytes)
{
  static const char *fn = "shmem_collect";
  if (team_args(fn, team, dest, source, nbytes) != 0) return -1;
  int n = team->size;
  size_t *cnt = calloc((size_t)n * 2, sizeof(size_t));
  if (cnt == NULL) return dart_fail(fn, "calloc", DART_ERR_NOMEM);
  size_t *displ = cnt + n, off = 0;
  dart_ret_t r = DART_OK;
  if (shmemi_team_is_world(team)) { /* team order is world order */
    int done = shmemi_direct_collect(fn, dest, source, nbytes, cnt, displ);
    if (done != 0) {
      free(cnt);
      return done > 0 ? 0 : dart_fail(fn, "the size gather", DART_ERR_OTHER);
    }
    off = displ[n - 1] + cnt[n - 1];
  } else {
    r = dart_allgather(&nbytes, cnt, 1, DART_TYPE_SIZET, team->dteam);
    if (r != DART_OK) {
      free(cnt);
      return dart_fail(fn, "dart_allgather", r);
    }
    for (int i = 0; i < n; i++) { /* team order */
      displ[team->dart_unit[i]] = off;
      off += cnt[team->dart_unit[i]];
    }
  }
  void *copy;
  const void *in = unaliased(fn, dest, off, source, nbytes, &copy);
  if (in == NULL) {
    free(cnt);
    return -1;
  }
  if (off > 0)
    r = dart_allgatherv(in, nbytes, DART_TYPE_BYTE, dest, cnt, displ,
                        team->dteam);
  free(copy);
  free(cnt);
  return r == DART_OK ? 0 : dart_fail(fn, "dart_allgatherv", r);
}

/* alltoalls: block for team PE j is nelems elements sst apart from
 * source + j*nelems*sst, block from team PE i lands dst apart at
 * dest + i*nelems*dst. Packed into DART order, exchanged, unpacked. */
int shmemi_team_alltoalls(shmem_team_t team, void *dest, const void *source,
                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                          size_t esize)
{
  static const char *fn = "shmem_alltoalls";
  if (team_args(fn, team, dest, source, nelems) != 0) return -1;
  if (dst < 1 || sst < 1) {
    shmemi_warn(fn, "stride %td is not positive", dst < 1 ? dst : sst);
    return -1;
  }
  if (nelems == 0) return 0;
  size_t n = (size_t)team->size, blk = nelems * esize;
  char *sb = scratch(fn, n * blk), *rb = scratch(fn, n * blk);
  if (sb == NULL || rb == NULL) {
    free(sb);
    free(rb);
    return -1;
  }
  for (size_t j = 0; j < n; j++) {
    const char *s = (const char *)source + j * nelems * (size_t)sst * esize;
    char *d = sb + (size_t)team->dart_unit[j] * blk;
    for (size_t k = 0; k < nelems; k++)
      memcpy(d + k * esize, s + k * (size_t)sst * esize, esize);
  }
  dart_ret_t r = dart_alltoall(sb, rb, blk, DART_TYPE_BYTE, team->dteam);
  for (size_t i = 0; i < n && r == DART_OK; i++) {
    const char *s = rb + (size_t)team->dart_unit[i] * blk;
    char *d = (char *)dest + i * nelems * (size_t)dst * esize;
    for (size_t k = 0; k < nelems; k++)
      memcpy(d + k * (size_t)dst * esize, s + k * esize, esize);
  }
  free(sb);
  free(rb);
  return r == DART_OK ? 0 : dart_fail(fn, "dart_alltoall", r);
}

int shmemi_team_alltoall(shmem_team_t team, void *dest, const void *source,
                         size_t nbytes)
{
  static const char *fn = "shmem_alltoall";
  if (team_args(fn, team, dest, source, nbytes) != 0) return -1;
  if (nbytes == 0) return 0;
  if (!team->ordered)
    return shmemi_team_alltoalls(team, dest, source, 1, 1, nbytes, 1);
  size_t total = nbytes * (size_t)team->size;
  void *copy;
  const void *in = unaliased(fn, dest, total, source, total, &copy);
  if (in == NULL) return -1;
  dart_ret_t r = dart_alltoall(in, dest, nbytes, DART_TYPE_BYTE, team->dteam);
  free(copy);
  return r == DART_OK ? 0 : dart_fail(fn, "dart_alltoall", r);
}

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source,
                       size_t nelems, int PE_root)
{
  return shmemi_team_broadcast(team, dest, source, nelems, PE_root);
}
SHMEMI_ALIAS(shmem_broadcastmem);

int shmem_collectmem(shmem_team_t team, void *dest, const void *source,
                     size_t nelems)
{
  return shmemi_team_collect(team, dest, source, nelems);
}
SHMEMI_ALIAS(shmem_collectmem);

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source,
                      size_t nelems)
{
  return shmemi_team_fcollect(team, dest, source, nelems);
}
SHMEMI_ALIAS(shmem_fcollectmem);

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source,
                      size_t nelems)
{
  return shmemi_team_alltoall(team, dest, source, nelems);
}
SHMEMI_ALIAS(shmem_alltoallmem);

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source,
                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems)
{
  return shmemi_team_alltoalls(team, dest, source, dst, sst, nelems, 1);
}
SHMEMI_ALIAS(shmem_alltoallsmem);
