/*
 * Collectives over every PE by load/store on the peers' symmetric memory.
 *
 * Where every PE maps every other PE's symmetric memory (all on one node:
 * shmemi_g.single_node) and a PE's block is larger than DART's
 * shared-memory slots take (SHMEMI_DIRECT_MIN), the world forms of
 * broadcast, collect, fcollect and the reductions move the data themselves
 * instead of through DART's collectives over MPI:
 *   1. an agreement that is also the entry barrier: after it every source
 *      is ready and every dest free;
 *   2. each PE copies (or combines) straight from the peers' sources;
 *   3. a barrier: nobody changes a source or uses a dest before all are
 *      done.
 *  - broadcast: every other PE copies the root's source into its dest;
 *  - fcollect and collect: every PE copies every PE's block into its dest;
 *  - reductions: PE p combines element block p of all sources in PE order
 *    and writes it into every PE's dest, so each element is combined once,
 *    in the same order for all (bit-identical floating point), and in
 *    place (dest == source) works: no other PE touches block p.
 * The agreement is a dart_allreduce (MIN) of "the buffers the peers touch
 * are symmetric and mapped by every PE" (collect: a column of its size
 * gather), so a PE with a private buffer sends every PE to the general
 * path together, never some here and some there. Its inputs otherwise
 * (single_node, the sizes) are the same on every PE.
 */
#include <stdlib.h>
#include <string.h>

#include "shmem_coll.h"

/* Blocks of at most this many bytes per PE go through DART's collectives
 * (its shared-memory slots take up to 4 KiB per unit on one node). */
#ifndef SHMEMI_DIRECT_MIN
#define SHMEMI_DIRECT_MIN ((size_t)4096)
#endif
/* Bytes combined per step of a reduction (the accumulator stays in L1). */
#define DIRECT_CHUNK 4096

int shmemi_direct_eligible(size_t nbytes)
{
  return shmemi_g.single_node && nbytes > SHMEMI_DIRECT_MIN;
}

/* [buf, buf + nbytes) is symmetric memory every PE maps. */
int shmemi_direct_mapped(const void *buf, size_t nbytes)
{
  shmemi_tgt_t t;
  int s = shmemi_resolve_range(buf, nbytes, shmemi_g.my_pe, &t);
  return s == 0 || (s == 1 && shmemi_g.data_cpu_atomics);
}

/* [a, a + alen) and [b, b + blen) share a byte. */
static int overlap(const void *a, size_t alen, const void *b, size_t blen)
{
  const char *x = a, *y = b;
  return x < y + blen && y < x + alen;
}

/* The load/store address of symmetric buf on world PE pe (mapped). */
static char *peer(const void *buf, int pe)
{
  shmemi_tgt_t t;
  size_t off;
  if (shmemi_resolve(buf, pe, &t, &off) < 0 || t.local == NULL)
    shmemi_fatal("shmemi_direct", "%p is not mapped for PE %d", buf, pe);
  return t.local;
}

static int agree(const char *fn, int ok)
{
  int out = 0;
  if (dart_allreduce(&ok, &out, 1, DART_TYPE_INT, DART_OP_MIN, DART_TEAM_ALL) !=
      DART_OK)
    shmemi_fatal(fn, "dart_allreduce failed");
  return out;
}

static void barrier(const char *fn)
{
  if (dart_barrier(DART_TEAM_ALL) != DART_OK)
    shmemi_fatal(fn, "dart_barrier failed");
}

int shmemi_direct_bcast(const char *fn, void *dest, const void *source,
                        size_t nbytes, int root, int root_dest)
{
  int me = shmemi_g.my_pe;
  if (!shmemi_direct_eligible(nbytes)) return 0;
  int ok = me != root || (shmemi_direct_mapped(source, nbytes) &&
                          (!root_dest || dest == source ||
                           !overlap(dest, nbytes, source, nbytes)));
  if (!agree(fn, ok)) return 0;
  if (me != root)
    memcpy(dest, peer(source, root), nbytes);
  else if (root_dest && dest != source)
    memmove(dest, source, nbytes);
  barrier(fn);
  return 1;
}

int shmemi_direct_fcollect(const char *fn, void *dest, const void *source,
                           size_t nbytes)
{
  int n = shmemi_g.n_pes, me = shmemi_g.my_pe;
  if (!shmemi_direct_eligible(nbytes)) return 0;
  size_t total = nbytes * (size_t)n;
  if (!agree(fn, shmemi_direct_mapped(source, nbytes) &&
                     !overlap(dest, total, source, nbytes)))
    return 0;
  /* Starting at the own block spreads the readers over the sources. */
  for (int i = 0; i < n; i++) {
    int pe = (me + i) % n;
    memmove((char *)dest + (size_t)pe * nbytes, peer(source, pe), nbytes);
  }
  barrier(fn);
  return 1;
}

int shmemi_direct_collect(const char *fn, void *dest, const void *source,
                          size_t nbytes, size_t *cnt, size_t *displ)
{
  int n = shmemi_g.n_pes, me = shmemi_g.my_pe;
  /* Each PE's size, whether its source can be read by load/store (every
   * PE reads the others' blocks at its own source address, so a PE adding
   * nothing still needs one) and where its dest lies from its source, so
   * that every PE judges every PE's overlap alike. */
  int64_t mine[3] = {(int64_t)nbytes,
                     source != NULL && shmemi_direct_mapped(source, nbytes),
                     (int64_t)((uintptr_t)dest - (uintptr_t)source)};
  int64_t *all = malloc(3 * (size_t)n * sizeof *all);
  if (all == NULL) /* the others would wait in the gather */
    shmemi_fatal(fn, "out of memory (%d PEs)", n);
  if (dart_allgather(mine, all, sizeof mine, DART_TYPE_BYTE, DART_TEAM_ALL) !=
      DART_OK) {
    free(all);
    return -1;
  }
  size_t off = 0, most = 0;
  for (int i = 0; i < n; i++) {
    cnt[i] = (size_t)all[3 * i];
    most = cnt[i] > most ? cnt[i] : most;
    displ[i] = off;
    off += cnt[i];
  }
  int direct = shmemi_direct_eligible(most);
  for (int i = 0; i < n && direct; i++) /* mapped, source apart from dest */
    direct =
        all[3 * i + 1] && (cnt[i] == 0 || all[3 * i + 2] >= (int64_t)cnt[i] ||
                           -all[3 * i + 2] >= (int64_t)off);
  free(all);
  if (!direct) return 0;
  for (int i = 0; i < n; i++) {
    int pe = (me + i) % n;
    if (cnt[pe] > 0)
      memmove((char *)dest + displ[pe], peer(source, pe), cnt[pe]);
  }
  barrier(fn);
  return 1;
}

int shmemi_direct_reduce(const char *fn, void *dest, const void *source,
                         size_t nreduce, shmemi_dtype_t dt, shmemi_op_t op)
{
  int n = shmemi_g.n_pes, me = shmemi_g.my_pe;
  size_t esz = shmemi_dtype_size(dt), nbytes = nreduce * esz;
  char probe[1] = {0};
  if (!shmemi_direct_eligible(nbytes) ||
      shmemi_reduce_apply(dt, op, probe, probe, 0) != 0)
    return 0; /* an unsupported pair: the general path reports it */
  if (!agree(fn,
             shmemi_direct_mapped(source, nbytes) &&
                 shmemi_direct_mapped(dest, nbytes) &&
                 (dest == source || !overlap(dest, nbytes, source, nbytes))))
    return 0;
  size_t per = (nreduce + (size_t)n - 1) / (size_t)n;
  size_t lo = (size_t)me * per < nreduce ? (size_t)me * per : nreduce;
  size_t hi = nreduce - lo < per ? nreduce : lo + per;
  size_t step = DIRECT_CHUNK / esz;
  _Alignas(64) char acc[DIRECT_CHUNK];
  for (size_t i = lo; i < hi; i += step) {
    size_t k = hi - i < step ? hi - i : step, off = i * esz, len = k * esz;
    memcpy(acc, peer(source, 0) + off, len);
    for (int pe = 1; pe < n; pe++)
      shmemi_reduce_apply(dt, op, acc, peer(source, pe) + off, k);
    for (int j = 0; j < n; j++) {
      int pe = (me + j) % n;
      memcpy(peer(dest, pe) + off, acc, len);
    }
  }
  barrier(fn);
  return 1;
}
