/*
 * Contexts: each one its own completion domain. A context records the
 * targets (segment, PE) of the operations it issued through DART's MPI
 * path since its last quiet, up to SHMEMI_TRACK_MAX of them and then
 * "more" (shmem_track.h: a few words whatever the number of PEs);
 * shmem_ctx_quiet completes only those targets (dart_flush per target,
 * dart_flush_all for "more") and fences, so it never waits for a target
 * only other contexts used, and an idle quiet costs one load and the
 * fence. Operations on mapped memory (loads, stores, CPU atomics) need no
 * record: the fence orders them. Threads that share a context
 * (SHMEM_THREAD_MULTIPLE, neither SHMEM_CTX_PRIVATE nor
 * SHMEM_CTX_SERIALIZED) record and take under its mutex, after an MPI
 * call that costs far more; otherwise no lock. Destroyed contexts are
 * kept (magic cleared) so that a later use is reported instead of reading
 * freed memory. SHMEM_CTX_DEFAULT is a static context of the world team.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_internal.h"

static struct shmemi_ctx default_ctx;
shmem_ctx_t SHMEM_CTX_DEFAULT = &default_ctx;

static pthread_mutex_t ctx_mu = PTHREAD_MUTEX_INITIALIZER;
static struct shmemi_ctx **all_ctx; /* every context ever created */
static size_t nall, capall;

static void ctx_setup(struct shmemi_ctx *c, long options, shmem_team_t team)
{
  c->track.n = 0;
  c->options = options;
  c->team = team;
  c->shared = shmemi_g.thread_level == SHMEM_THREAD_MULTIPLE &&
              (options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED)) == 0;
  __atomic_store_n(&c->magic, SHMEMI_CTX_MAGIC, __ATOMIC_RELEASE);
}

void shmemi_ctx_init_default(void)
{
  pthread_mutex_init(&default_ctx.mu, NULL);
  ctx_setup(&default_ctx, 0, NULL);
}

void shmemi_ctx_fini_all(void)
{
  pthread_mutex_lock(&ctx_mu);
  for (size_t i = 0; i < nall; i++) {
    pthread_mutex_destroy(&all_ctx[i]->mu);
    free(all_ctx[i]);
  }
  free(all_ctx);
  all_ctx = NULL;
  nall = capall = 0;
  pthread_mutex_unlock(&ctx_mu);
  pthread_mutex_destroy(&default_ctx.mu);
  memset(&default_ctx, 0, sizeof default_ctx);
}

void shmemi_ctx_bad(shmem_ctx_t ctx, const char *fn)
{
  if (ctx == NULL) shmemi_fatal(fn, "context is SHMEM_CTX_INVALID");
  shmemi_fatal(fn, "context %p was destroyed or never created", (void *)ctx);
}

void shmemi_pe_bad(int pe, const char *fn)
{
  shmemi_fatal(fn, "PE %d out of range [0, %d)", pe, shmemi_g.n_pes);
}

int shmemi_ctx_team_pe(struct shmemi_ctx *c, int pe, const char *fn)
{
  int w = shmemi_team_world_pe(c->team, pe);
  if (w < 0) shmemi_fatal(fn, "PE %d out of range of the context's team", pe);
  return w;
}

void shmemi_mark_shared(struct shmemi_ctx *c, uint32_t key)
{
  pthread_mutex_lock(&c->mu);
  shmemi_track_add(&c->track, key);
  pthread_mutex_unlock(&c->mu);
}

static void flush_targets(const uint32_t *keys, int n, const char *fn)
{
  dart_gptr_t seg[2] = {shmemi_g.heap_gptr, shmemi_g.data_gptr};
  if (n < 0) { /* more targets than the record keeps */
    for (int s = 0; s < 2; s++)
      if (!DART_GPTR_ISNULL(seg[s]) && dart_flush_all(seg[s]) != DART_OK)
        shmemi_fatal(fn, "dart_flush_all failed");
    return;
  }
  for (int i = 0; i < n; i++) {
    dart_gptr_t g = seg[shmemi_track_seg(keys[i])];
    int pe = shmemi_track_pe(keys[i]);
    g.unitid = pe;
    if (!DART_GPTR_ISNULL(g) && dart_flush(g) != DART_OK)
      shmemi_fatal(fn, "dart_flush of PE %d failed", pe);
  }
}

void shmemi_ctx_quiet(struct shmemi_ctx *c)
{
  /* The load first: an idle quiet makes no locked instruction. The
   * caller's own marks are seen (program order or, for a shared context,
   * the mutex). */
  if (!shmemi_track_empty(&c->track)) {
    uint32_t keys[SHMEMI_TRACK_MAX];
    if (c->shared) pthread_mutex_lock(&c->mu);
    int n = shmemi_track_take(&c->track, keys);
    if (c->shared) pthread_mutex_unlock(&c->mu);
    flush_targets(keys, n, "shmem_ctx_quiet");
  }
  /* Stores to mapped peers (memcpy paths) become visible in order. */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void shmemi_quiet_all(void)
{
  shmemi_ctx_quiet(&default_ctx);
  pthread_mutex_lock(&ctx_mu);
  for (size_t i = 0; i < nall; i++)
    if (__atomic_load_n(&all_ctx[i]->magic, __ATOMIC_ACQUIRE) ==
        SHMEMI_CTX_MAGIC)
      shmemi_ctx_quiet(all_ctx[i]);
  pthread_mutex_unlock(&ctx_mu);
}

static int ctx_new(shmem_team_t team, long options, shmem_ctx_t *ctx,
                   const char *fn)
{
  shmemi_check_init(fn);
  if (ctx == NULL) shmemi_fatal(fn, "ctx is NULL");
  long known = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
  if ((options & ~known) != 0) {
    shmemi_warn(fn, "unknown options 0x%lx", options & ~known);
    *ctx = SHMEM_CTX_INVALID;
    return -1;
  }
  struct shmemi_ctx *c = NULL;
  pthread_mutex_lock(&ctx_mu);
  for (size_t i = 0; i < nall && c == NULL; i++)
    if (__atomic_load_n(&all_ctx[i]->magic, __ATOMIC_ACQUIRE) == 0)
      c = all_ctx[i]; /* reuse a destroyed one */
  if (c == NULL && nall == capall) {
    size_t nc = capall ? 2 * capall : 16;
    struct shmemi_ctx **na = realloc(all_ctx, nc * sizeof *na);
    if (na != NULL) {
      all_ctx = na;
      capall = nc;
    }
  }
  if (c == NULL && nall < capall && (c = calloc(1, sizeof *c)) != NULL) {
    pthread_mutex_init(&c->mu, NULL);
    all_ctx[nall++] = c;
  }
  int r = c == NULL ? -1 : 0;
  if (c != NULL) ctx_setup(c, options, team);
  pthread_mutex_unlock(&ctx_mu);
  *ctx = r == 0 ? c : SHMEM_CTX_INVALID;
  return r;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
  return ctx_new(NULL, options, ctx, __func__);
}
SHMEMI_ALIAS(shmem_ctx_create);

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
  shmemi_check_init(__func__);
  if (team == SHMEM_TEAM_INVALID || !shmemi_team_valid(team)) {
    /* SHMEM_TEAM_INVALID (a PE outside a split) is the normal case */
    if (team != SHMEM_TEAM_INVALID)
      shmemi_warn(__func__, "destroyed team %p", (void *)team);
    if (ctx != NULL) *ctx = SHMEM_CTX_INVALID;
    return -1;
  }
  return ctx_new(team == SHMEM_TEAM_WORLD ? NULL : team, options, ctx,
                 __func__);
}
SHMEMI_ALIAS(shmem_team_create_ctx);

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
  if (ctx == SHMEM_CTX_INVALID) return; /* spec: no effect */
  if (ctx == SHMEM_CTX_DEFAULT)
    shmemi_fatal(__func__, "SHMEM_CTX_DEFAULT cannot be destroyed");
  struct shmemi_ctx *c = shmemi_ctx_check(ctx, __func__);
  shmemi_ctx_quiet(c);
  __atomic_store_n(&c->magic, 0, __ATOMIC_RELEASE);
}
SHMEMI_ALIAS(shmem_ctx_destroy);

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
  shmemi_check_init(__func__);
  if (team == NULL) {
    shmemi_warn(__func__, "team is NULL");
    return -1;
  }
  if (ctx == SHMEM_CTX_INVALID ||
      __atomic_load_n(&ctx->magic, __ATOMIC_ACQUIRE) != SHMEMI_CTX_MAGIC) {
    *team = SHMEM_TEAM_INVALID;
    return -1;
  }
  *team = ctx->team == NULL ? SHMEM_TEAM_WORLD : ctx->team;
  return 0;
}
SHMEMI_ALIAS(shmem_ctx_get_team);

/* On SHMEM_CTX_INVALID, quiet and fence have no effect (OpenSHMEM 1.5). */
void shmem_ctx_quiet(shmem_ctx_t ctx)
{
  if (ctx == SHMEM_CTX_INVALID) return;
  shmemi_ctx_quiet(shmemi_ctx_check(ctx, __func__));
}
SHMEMI_ALIAS(shmem_ctx_quiet);

void shmem_quiet(void)
{
  shmemi_check_init(__func__);
  shmemi_ctx_quiet(&default_ctx);
}
SHMEMI_ALIAS(shmem_quiet);

/* Fence orders puts to each PE: completing them is one way (stronger). */
void shmem_ctx_fence(shmem_ctx_t ctx)
{
  if (ctx == SHMEM_CTX_INVALID) return;
  shmemi_ctx_quiet(shmemi_ctx_check(ctx, __func__));
}
SHMEMI_ALIAS(shmem_ctx_fence);

void shmem_fence(void)
{
  shmemi_check_init(__func__);
  shmemi_ctx_quiet(&default_ctx);
}
SHMEMI_ALIAS(shmem_fence);
