/*
 * Contexts: each one its own completion domain. A context records, per
 * segment (heap, data) and PE, that it issued an operation there since its
 * last quiet (byte flags, relaxed atomic stores: no lock, also for shared
 * contexts); shmem_ctx_quiet completes only those targets (dart_flush per
 * target, dart_flush_all when most are marked) and fences, so it never
 * waits for a target only other contexts used. Destroyed contexts are kept
 * (magic cleared) so that a later use is reported instead of reading freed
 * memory. SHMEM_CTX_DEFAULT is a static context of the world team.
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

static int ctx_setup(struct shmemi_ctx *c, long options, shmem_team_t team)
{
  size_t n = (size_t)shmemi_g.n_pes;
  if (c->dirty[0] == NULL) {
    c->dirty[0] = calloc(2 * n, 1);
    if (c->dirty[0] == NULL) return -1;
    c->dirty[1] = c->dirty[0] + n;
  } else {
    memset(c->dirty[0], 0, 2 * n);
  }
  c->options = options;
  c->team = team;
  c->ndirty_hint = 0;
  __atomic_store_n(&c->magic, SHMEMI_CTX_MAGIC, __ATOMIC_RELEASE);
  return 0;
}

void shmemi_ctx_init_default(void)
{
  if (ctx_setup(&default_ctx, 0, NULL) != 0)
    shmemi_fatal("shmem_init", "out of memory");
}

void shmemi_ctx_fini_all(void)
{
  pthread_mutex_lock(&ctx_mu);
  for (size_t i = 0; i < nall; i++) {
    free(all_ctx[i]->dirty[0]);
    free(all_ctx[i]);
  }
  free(all_ctx);
  all_ctx = NULL;
  nall = capall = 0;
  pthread_mutex_unlock(&ctx_mu);
  free(default_ctx.dirty[0]);
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

static void flush_seg(struct shmemi_ctx *c, int s, const char *fn)
{
  dart_gptr_t g = s == 0 ? shmemi_g.heap_gptr : shmemi_g.data_gptr;
  unsigned char *d = c->dirty[s];
  int n = shmemi_g.n_pes, cnt = 0;
  if (DART_GPTR_ISNULL(g)) return;
  for (int pe = 0; pe < n; pe++)
    cnt += __atomic_load_n(&d[pe], __ATOMIC_RELAXED);
  if (cnt == 0) return;
  if (cnt > 4 && cnt * 2 > n) {
    for (int pe = 0; pe < n; pe++)
      __atomic_store_n(&d[pe], 0, __ATOMIC_RELAXED);
    if (dart_flush_all(g) != DART_OK) shmemi_fatal(fn, "dart_flush_all failed");
    return;
  }
  for (int pe = 0; pe < n; pe++) {
    if (!__atomic_load_n(&d[pe], __ATOMIC_RELAXED)) continue;
    __atomic_store_n(&d[pe], 0, __ATOMIC_RELAXED);
    g.unitid = pe;
    if (dart_flush(g) != DART_OK)
      shmemi_fatal(fn, "dart_flush of PE %d failed", pe);
  }
}

void shmemi_ctx_quiet(struct shmemi_ctx *c)
{
  /* The load first: an idle quiet makes no locked instruction. A mark that
   * happened before this quiet is seen (coherence). */
  if (__atomic_load_n(&c->ndirty_hint, __ATOMIC_RELAXED) != 0 &&
      __atomic_exchange_n(&c->ndirty_hint, 0, __ATOMIC_ACQ_REL) != 0) {
    flush_seg(c, 0, "shmem_ctx_quiet");
    flush_seg(c, 1, "shmem_ctx_quiet");
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
  if (c == NULL && nall < capall && (c = calloc(1, sizeof *c)) != NULL)
    all_ctx[nall++] = c;
  int r = c == NULL ? -1 : ctx_setup(c, options, team);
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
