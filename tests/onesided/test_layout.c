/*
 * Strided and indexed layouts on either side of put/get, in both
 * directions and mixed, to self and to the neighbour, with all completion
 * forms; a type destroyed while its operation is pending still completes.
 */
#include "os_common.h"

enum { NELEM = 12, SPAN = 64 }; /* elements moved; ints per buffer */

typedef struct {
  dart_datatype_t t;
  int kind; /* 0 contiguous, 1 strided, 2 indexed */
  size_t stride, blocklen;
  size_t nblk, lens[3], offs[3], extent;
} layout_t;

/* Position (in elements) of the k-th moved element in a buffer. */
static size_t pos(const layout_t *l, size_t k)
{
  if (l->kind == 0) return k;
  if (l->kind == 1) return (k / l->blocklen) * l->stride + k % l->blocklen;
  size_t per = 0;
  for (size_t b = 0; b < l->nblk; b++) per += l->lens[b];
  size_t inst = k / per, r = k % per;
  for (size_t b = 0; b < l->nblk; b++) {
    if (r < l->lens[b]) return inst * l->extent + l->offs[b] + r;
    r -= l->lens[b];
  }
  return SIZE_MAX;
}

static void make_layouts(layout_t *l)
{
  l[0] = (layout_t){.t = DART_TYPE_INT, .kind = 0};
  l[1] = (layout_t){.kind = 1, .stride = 3, .blocklen = 2};
  TEST_OK(dart_type_create_strided(DART_TYPE_INT, 3, 2, &l[1].t));
  l[2] = (layout_t){
      .kind = 2, .nblk = 3, .lens = {2, 1, 3}, .offs = {0, 4, 6}, .extent = 9};
  TEST_OK(dart_type_create_indexed(DART_TYPE_INT, 3, l[2].lens, l[2].offs,
                                   &l[2].t));
}

/* Runs one transfer src layout -> dst layout, put (to target) or get. */
static void one(dart_gptr_t g, int *mine, const layout_t *ls,
                const layout_t *ld, int put, int mode, int target, int round)
{
  int local[SPAN], expect[SPAN];
  dart_gptr_t gt = os_at(g, target, 0);
  /* put: local holds the source; the target portion (zeroed by the owner
   * before the barrier) receives. get: the target holds the source. */
  for (int i = 0; i < SPAN; i++) local[i] = put ? 1000 * round + i : -1;
  if (!put)
    for (int i = 0; i < SPAN; i++) mine[i] = 1000 * round + i + 500;
  if (put) memset(mine, 0, SPAN * sizeof(int));
  os_barrier();
  dart_handle_t h = DART_HANDLE_NULL;
  if (put) {
    if (mode == 0) TEST_OK(dart_put_blocking(gt, local, NELEM, ls->t, ld->t));
    if (mode == 1) {
      TEST_OK(dart_put(gt, local, NELEM, ls->t, ld->t));
      TEST_OK(dart_flush(gt));
    }
    if (mode == 2) {
      TEST_OK(dart_put_handle(gt, local, NELEM, ls->t, ld->t, &h));
      TEST_OK(dart_wait(&h));
    }
  } else {
    if (mode == 0) TEST_OK(dart_get_blocking(local, gt, NELEM, ls->t, ld->t));
    if (mode == 1) {
      TEST_OK(dart_get(local, gt, NELEM, ls->t, ld->t));
      TEST_OK(dart_flush_local(gt));
    }
    if (mode == 2) {
      TEST_OK(dart_get_handle(local, gt, NELEM, ls->t, ld->t, &h));
      TEST_OK(dart_wait_local(&h));
    }
  }
  os_barrier();
  /* The receiving buffer: the owner's portion (put) or local (get). */
  int writer = (target == me) ? me : (me - (target - me) + nunits) % nunits;
  int *recv = put ? mine : local;
  int src_round = round;
  int base = put ? 0 : 500;
  (void)writer;
  for (int i = 0; i < SPAN; i++) expect[i] = put ? 0 : -1;
  for (size_t k = 0; k < NELEM; k++)
    expect[pos(ld, k)] = 1000 * src_round + (int)pos(ls, k) + base;
  for (int i = 0; i < SPAN; i++)
    TEST_CHECK_MSG(recv[i] == expect[i],
                   "%s %d->%d mode %d: [%d] = %d, want %d", put ? "put" : "get",
                   ls->kind, ld->kind, mode, i, recv[i], expect[i]);
  os_barrier();
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, SPAN, DART_TYPE_INT, &g));
  int *mine = os_local(g);
  layout_t l[3];
  make_layouts(l);
  int round = 0;
  /* Each unit's partner is its neighbour: it writes into (me+k) and is
   * written by (me-k), a permutation, so portions never clash. */
  for (int k = 0; k < (nunits > 1 ? 2 : 1); k++) {
    int target = (me + k) % nunits;
    for (int s = 0; s < 3; s++)
      for (int d = 0; d < 3; d++)
        for (int mode = 0; mode < 3; mode++)
          for (int put = 0; put < 2; put++) {
            ++round;
            /* the owner prepares its portion for the round of its writer */
            one(g, mine, &l[s], &l[d], put, mode, target, round);
          }
  }
  /* Pending operation survives dart_type_destroy of its type. */
  dart_datatype_t st = l[1].t;
  int src[SPAN];
  for (int i = 0; i < SPAN; i++) src[i] = 77 + i;
  memset(mine, 0, SPAN * sizeof(int));
  os_barrier();
  dart_gptr_t gt = os_at(g, (me + 1) % nunits, 0);
  TEST_OK(dart_put(gt, src, NELEM, DART_TYPE_INT, st));
  TEST_OK(dart_type_destroy(&st));
  TEST_OK(dart_flush(gt));
  os_barrier();
  for (size_t k = 0; k < NELEM; k++)
    TEST_CHECK(mine[pos(&l[1], k)] == 77 + (int)k);
  /* the destroyed handle is refused from now on */
  TEST_EQ_RET(dart_put(gt, src, NELEM, DART_TYPE_INT, l[1].t), DART_ERR_INVAL);
  os_barrier();
  TEST_OK(dart_type_destroy(&l[2].t));
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_exit());
  if (me == 0) printf("test_layout: OK (%d units)\n", nunits);
  return 0;
}
