/*
 * Contexts: created contexts (private, serialized, plain) as completion
 * domains (puts on a context are complete at the target after that
 * context's quiet), contexts of SHMEM_TEAM_WORLD, shmem_ctx_get_team,
 * destroy and reuse, SHMEM_CTX_INVALID handling; with
 * shmem_init_thread(SHMEM_THREAD_MULTIPLE), two threads per PE, each on its
 * own private context, issue puts and atomics concurrently.
 */
#include <pthread.h>
#include <shmem.h>
#include <string.h>

#include "dart_test.h"

#define NCTX 4
#define M 256
static long buf[NCTX][M];
static long flag[NCTX];
static long counter;

static void domains(int me, int n)
{
  shmem_ctx_t ctx[NCTX];
  long opts[NCTX] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED,
                     SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
  for (int k = 0; k < NCTX; k++) {
    TEST_CHECK(shmem_ctx_create(opts[k], &ctx[k]) == 0);
    shmem_team_t t;
    TEST_CHECK(shmem_ctx_get_team(ctx[k], &t) == 0 && t == SHMEM_TEAM_WORLD);
  }
  memset(buf, 0, sizeof buf);
  memset(flag, 0, sizeof flag);
  shmem_barrier_all();
  int r = (me + 1) % n, l = (me + n - 1) % n;
  long src[M];
  for (int k = 0; k < NCTX; k++) {
    for (int i = 0; i < M; i++) src[i] = me * 10000 + k * 1000 + i;
    shmem_ctx_long_put_nbi(ctx[k], buf[k], src, M, r);
    /* quiet of this context completes its put before the flag */
    shmem_ctx_quiet(ctx[k]);
    shmem_ctx_long_atomic_set(ctx[k], &flag[k], 1, r);
    shmem_ctx_quiet(ctx[k]);
  }
  for (int k = 0; k < NCTX; k++) {
    shmem_long_wait_until(&flag[k], SHMEM_CMP_EQ, 1);
    for (int i = 0; i < M; i++)
      TEST_CHECK(buf[k][i] == l * 10000 + k * 1000 + i);
  }
  shmem_barrier_all();
  for (int k = 0; k < NCTX; k++) shmem_ctx_destroy(ctx[k]);
  /* a destroyed context's slot is reused */
  shmem_ctx_t again;
  TEST_CHECK(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &again) == 0);
  shmem_ctx_long_p(again, &flag[0], 2, r);
  shmem_ctx_quiet(again);
  shmem_ctx_destroy(again);
  shmem_ctx_destroy(SHMEM_CTX_INVALID); /* no effect */
  shmem_team_t t;
  TEST_CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 &&
             t == SHMEM_TEAM_INVALID);
  TEST_CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t) == 0 &&
             t == SHMEM_TEAM_WORLD);
  shmem_ctx_t bad;
  TEST_CHECK(shmem_ctx_create(1L << 20, &bad) != 0 && bad == SHMEM_CTX_INVALID);
  shmem_barrier_all();
}

typedef struct {
  int me, n, id;
} targ_t;

static void *worker(void *p)
{
  targ_t *a = p;
  shmem_ctx_t c;
  TEST_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) == 0);
  for (int i = 0; i < 100; i++) {
    shmem_ctx_long_atomic_inc(c, &counter, i % a->n);
    long v = a->me * 100 + i;
    shmem_ctx_long_put(c, &buf[a->id][i], &v, 1, (a->me + 1) % a->n);
  }
  shmem_ctx_quiet(c);
  shmem_ctx_destroy(c);
  return NULL;
}

static void threads(int me, int n, int provided)
{
  if (provided != SHMEM_THREAD_MULTIPLE) return;
  counter = 0;
  memset(buf, 0, sizeof buf);
  shmem_barrier_all();
  pthread_t th[2];
  targ_t a[2] = {{me, n, 0}, {me, n, 1}};
  for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, worker, &a[t]);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  shmem_barrier_all();
  long total = 0;
  for (int pe = 0; pe < n; pe++) total += shmem_long_atomic_fetch(&counter, pe);
  TEST_CHECK(total == 200L * n);
  int l = (me + n - 1) % n;
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < 100; i++) TEST_CHECK(buf[t][i] == l * 100 + i);
  shmem_barrier_all();
}

int main(void)
{
  int provided = -1;
  TEST_CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0);
  TEST_CHECK(provided >= SHMEM_THREAD_SINGLE &&
             provided <= SHMEM_THREAD_MULTIPLE);
  int q;
  shmem_query_thread(&q);
  TEST_CHECK(q == provided);
  int me = shmem_my_pe(), n = shmem_n_pes();
  domains(me, n);
  threads(me, n, provided);
  shmem_finalize();
  return 0;
}
