/*
 * OpenSHMEM teams over DART teams (see shmem_team.h).
 *
 * A split is collective over the parent: every parent PE builds the same
 * DART group(s) and calls dart_team_create on the parent's DART team once
 * per new team (split_2d: once per row and once per column); PEs outside a
 * group get DART_TEAM_NULL and, from us, SHMEM_TEAM_INVALID.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dash/dart/if/dart_locality.h>

#include "shmem_coll.h"
#include "shmem_team.h"

shmem_team_t SHMEM_TEAM_WORLD = SHMEM_TEAM_INVALID;
shmem_team_t SHMEM_TEAM_SHARED = SHMEM_TEAM_INVALID;

/* Live teams; the lock lets threads of SHMEM_THREAD_MULTIPLE programs check
 * handles while another thread makes or destroys a team. */
static struct shmemi_team *live_teams;
static pthread_mutex_t teams_lock = PTHREAD_MUTEX_INITIALIZER;

int shmemi_team_valid(shmem_team_t team)
{
  int ok = 0;
  if (team == SHMEM_TEAM_INVALID) return 0;
  pthread_mutex_lock(&teams_lock);
  for (struct shmemi_team *t = live_teams; t != NULL; t = t->next)
    if (t == team) {
      ok = t->magic == SHMEMI_TEAM_MAGIC;
      break;
    }
  pthread_mutex_unlock(&teams_lock);
  return ok;
}

int shmemi_team_check(const char *func, shmem_team_t team)
{
  if (shmemi_team_valid(team)) return 1;
  if (team == SHMEM_TEAM_INVALID)
    shmemi_warn(func, "team is SHMEM_TEAM_INVALID");
  else
    shmemi_warn(func, "invalid or destroyed team %p", (void *)team);
  return 0;
}

int shmemi_team_world_pe(shmem_team_t team, int team_pe)
{
  if (!shmemi_team_valid(team) || team_pe < 0 || team_pe >= team->size)
    return -1;
  return team->world[team_pe];
}

dart_team_t shmemi_team_dart(shmem_team_t team)
{
  return shmemi_team_valid(team) ? team->dteam : DART_TEAM_NULL;
}

static void team_free(struct shmemi_team *t)
{
  pthread_mutex_lock(&teams_lock);
  struct shmemi_team **pp = &live_teams;
  while (*pp != NULL && *pp != t) pp = &(*pp)->next;
  if (*pp == t) *pp = t->next;
  t->magic = 0;
  pthread_mutex_unlock(&teams_lock);
  free(t->world);
  free(t->dart_unit);
  free(t->team_of_dart);
  free(t);
}

/* A team of n PEs (world ids in team order) on the DART team dteam. */
static struct shmemi_team *team_new(dart_team_t dteam, const int *world, int n)
{
  struct shmemi_team *t = calloc(1, sizeof *t);
  if (t == NULL) return NULL;
  t->world = malloc(sizeof(int) * (size_t)n);
  t->dart_unit = malloc(sizeof(int) * (size_t)n);
  t->team_of_dart = malloc(sizeof(int) * (size_t)n);
  if (t->world == NULL || t->dart_unit == NULL || t->team_of_dart == NULL) {
    team_free(t);
    return NULL;
  }
  t->dteam = dteam;
  t->size = n;
  t->my_pe = -1;
  t->ordered = 1;
  int me = shmemi_my_pe();
  for (int i = 0; i < n; i++) {
    dart_team_unit_t lu;
    t->world[i] = world[i];
    if (world[i] == me) t->my_pe = i;
    if (dart_team_unit_g2l(dteam, DART_GLOBAL_UNIT_ID(world[i]), &lu) !=
            DART_OK ||
        lu.id < 0 || lu.id >= n) {
      team_free(t);
      return NULL;
    }
    t->dart_unit[i] = lu.id;
    t->team_of_dart[lu.id] = i;
    if (lu.id != i) t->ordered = 0;
  }
  t->magic = SHMEMI_TEAM_MAGIC;
  pthread_mutex_lock(&teams_lock);
  t->next = live_teams;
  live_teams = t;
  pthread_mutex_unlock(&teams_lock);
  return t;
}

/* Collective over parent: the team of parent PEs ppes[0..n-1] (in that
 * order). *out is INVALID on the PEs outside it. 0 ok, -1 error. */
static int team_create(const char *func, shmem_team_t parent, const int *ppes,
                       int n, shmem_team_t *out)
{
  dart_group_t g;
  dart_team_t dt = DART_TEAM_NULL;
  int *world = malloc(sizeof(int) * (size_t)n);
  *out = SHMEM_TEAM_INVALID;
  if (world == NULL || dart_group_create(&g) != DART_OK) {
    free(world);
    shmemi_warn(func, "out of memory for a team of %d PEs", n);
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    world[i] = parent->world[ppes[i]];
    if (dart_group_addmember(g, DART_GLOBAL_UNIT_ID(world[i])) != DART_OK)
      rc = -1;
  }
  if (rc == 0 && dart_team_create(parent->dteam, g, &dt) != DART_OK) rc = -1;
  dart_group_destroy(&g);
  if (rc == 0 && dt != DART_TEAM_NULL) {
    *out = team_new(dt, world, n);
    if (*out == SHMEM_TEAM_INVALID) {
      dart_team_destroy(&dt);
      rc = -1;
    }
  }
  if (rc != 0) shmemi_warn(func, "creating a DART team of %d PEs failed", n);
  free(world);
  return rc;
}

static void team_set_config(shmem_team_t t, const shmem_team_config_t *cfg,
                            long mask)
{
  if (t == SHMEM_TEAM_INVALID) return;
  memset(&t->config, 0, sizeof t->config);
  t->config_mask = 0;
  if (cfg != NULL && (mask & SHMEM_TEAM_NUM_CONTEXTS)) {
    t->config.num_contexts = cfg->num_contexts;
    t->config_mask = SHMEM_TEAM_NUM_CONTEXTS;
  }
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* SHMEM_TEAM_SHARED: one DART team per node of DART_TEAM_ALL's locality
 * hierarchy (which follows DART_SIM_NODE_SIZE, as shmem_ptr does), created
 * by all PEs in node order; each PE keeps its own node's. */
static int team_shared_init(void)
{
  dart_domain_locality_t *root = NULL;
  int me = shmemi_my_pe(), n = shmemi_n_pes();
  if (dart_domain_team_locality(DART_TEAM_ALL, ".", &root) != DART_OK ||
      root == NULL || root->num_domains < 1)
    return -1;
  for (int d = 0; d < root->num_domains; d++) {
    const dart_domain_locality_t *node = root->children[d];
    int *ids = malloc(sizeof(int) * (size_t)(node->num_units + 1));
    int mine = 0, rc = 0;
    if (ids == NULL) return -1;
    for (int i = 0; i < node->num_units; i++) {
      ids[i] = node->unit_ids[i].id;
      mine |= ids[i] == me;
    }
    qsort(ids, (size_t)node->num_units, sizeof(int), cmp_int);
    if (node->num_units == n) { /* one node: share DART_TEAM_ALL */
      SHMEM_TEAM_SHARED = team_new(DART_TEAM_ALL, ids, n);
      rc = SHMEM_TEAM_SHARED == NULL ? -1 : 0;
    } else {
      shmem_team_t t;
      rc =
          team_create("shmem_init", SHMEM_TEAM_WORLD, ids, node->num_units, &t);
      if (rc == 0 && mine) SHMEM_TEAM_SHARED = t;
    }
    free(ids);
    if (rc != 0) return -1;
  }
  if (SHMEM_TEAM_SHARED == SHMEM_TEAM_INVALID) return -1;
  SHMEM_TEAM_SHARED->predefined = 1;
  return 0;
}

int shmemi_team_init(void)
{
  int n = shmemi_n_pes();
  int *ids = malloc(sizeof(int) * (size_t)n);
  if (ids == NULL) return -1;
  for (int i = 0; i < n; i++) ids[i] = i;
  SHMEM_TEAM_WORLD = team_new(DART_TEAM_ALL, ids, n);
  free(ids);
  if (SHMEM_TEAM_WORLD == SHMEM_TEAM_INVALID) return -1;
  SHMEM_TEAM_WORLD->predefined = 1;
  if (team_shared_init() != 0) {
    shmemi_warn("shmem_init", "cannot build SHMEM_TEAM_SHARED");
    return -1;
  }
  return 0;
}

/* Teams the program did not destroy are left to dart_exit, which releases
 * every DART team still alive; here only our records go. */
void shmemi_team_fini(void)
{
  shmemi_reduce_fini();
  while (live_teams != NULL) team_free(live_teams);
  SHMEM_TEAM_WORLD = SHMEM_TEAM_INVALID;
  SHMEM_TEAM_SHARED = SHMEM_TEAM_INVALID;
}

int shmem_team_my_pe(shmem_team_t team)
{
  return shmemi_team_valid(team) ? team->my_pe : -1;
}
SHMEMI_ALIAS(shmem_team_my_pe);

int shmem_team_n_pes(shmem_team_t team)
{
  return shmemi_team_valid(team) ? team->size : -1;
}
SHMEMI_ALIAS(shmem_team_n_pes);

int shmem_team_get_config(shmem_team_t team, long config_mask,
                          shmem_team_config_t *config)
{
  if (!shmemi_team_valid(team)) return -1;
  if (config == NULL) {
    shmemi_warn("shmem_team_get_config", "config is NULL");
    return -1;
  }
  if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
    config->num_contexts = team->config.num_contexts;
  return 0;
}
SHMEMI_ALIAS(shmem_team_get_config);

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe,
                            shmem_team_t dest_team)
{
  if (!shmemi_team_valid(src_team) || !shmemi_team_valid(dest_team) ||
      src_pe < 0 || src_pe >= src_team->size)
    return -1;
  dart_team_unit_t lu;
  int w = src_team->world[src_pe];
  if (dart_team_unit_g2l(dest_team->dteam, DART_GLOBAL_UNIT_ID(w), &lu) !=
          DART_OK ||
      lu.id < 0 || lu.id >= dest_team->size)
    return -1;
  return dest_team->team_of_dart[lu.id];
}
SHMEMI_ALIAS(shmem_team_translate_pe);

/* Checks done before a split's collective part; every parent PE passes the
 * same arguments, so all of them return early together. */
static int split_parent_ok(const char *func, shmem_team_t parent,
                           shmem_team_t *out)
{
  if (out == NULL) {
    shmemi_warn(func, "new_team is NULL");
    return 0;
  }
  *out = SHMEM_TEAM_INVALID;
  if (parent == SHMEM_TEAM_INVALID) return 0; /* spec: no team, nonzero */
  return shmemi_team_check(func, parent);
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride,
                             int size, const shmem_team_config_t *config,
                             long config_mask, shmem_team_t *new_team)
{
  static const char *fn = "shmem_team_split_strided";
  shmemi_check_init(fn);
  if (!split_parent_ok(fn, parent_team, new_team)) return -1;
  int psize = parent_team->size;
  long last = (long)start + (long)stride * (size - 1);
  if (size < 1 || size > psize || start < 0 || start >= psize || last < 0 ||
      last >= psize || (stride == 0 && size > 1)) {
    shmemi_warn(fn,
                "start %d, stride %d, size %d out of range for a parent "
                "of %d PEs",
                start, stride, size, psize);
    return -1;
  }
  int *ppes = malloc(sizeof(int) * (size_t)size);
  if (ppes == NULL) return -1;
  for (int i = 0; i < size; i++) ppes[i] = start + i * stride;
  int rc = team_create(fn, parent_team, ppes, size, new_team);
  free(ppes);
  team_set_config(*new_team, config, config_mask);
  return rc;
}
SHMEMI_ALIAS(shmem_team_split_strided);

/* Row r of split_2d: parent PEs r*xrange .. ; column c: c, c+xrange, ... */
static int split_axis(const char *func, shmem_team_t parent, int xrange,
                      int rows, int is_x, shmem_team_t *out)
{
  int psize = parent->size, n_teams = is_x ? rows : xrange;
  int *ppes = malloc(sizeof(int) * (size_t)psize);
  if (ppes == NULL) return -1;
  int rc = 0;
  *out = SHMEM_TEAM_INVALID;
  for (int k = 0; k < n_teams && rc == 0; k++) {
    int n = 0;
    shmem_team_t t;
    if (is_x)
      for (int p = k * xrange; p < psize && p < (k + 1) * xrange; p++)
        ppes[n++] = p;
    else
      for (int p = k; p < psize; p += xrange) ppes[n++] = p;
    rc = team_create(func, parent, ppes, n, &t);
    if (rc == 0 && t != SHMEM_TEAM_INVALID) *out = t;
  }
  free(ppes);
  return rc;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team,
                        const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
  static const char *fn = "shmem_team_split_2d";
  shmemi_check_init(fn);
  if (yaxis_team != NULL) *yaxis_team = SHMEM_TEAM_INVALID;
  if (!split_parent_ok(fn, parent_team, xaxis_team)) return -1;
  if (yaxis_team == NULL) {
    shmemi_warn(fn, "yaxis_team is NULL");
    return -1;
  }
  if (xrange < 1) {
    shmemi_warn(fn, "xrange %d is not positive", xrange);
    return -1;
  }
  int psize = parent_team->size;
  if (xrange > psize) xrange = psize;
  int rows = (psize + xrange - 1) / xrange;
  if (split_axis(fn, parent_team, xrange, rows, 1, xaxis_team) != 0 ||
      split_axis(fn, parent_team, xrange, rows, 0, yaxis_team) != 0)
    return -1;
  team_set_config(*xaxis_team, xaxis_config, xaxis_mask);
  team_set_config(*yaxis_team, yaxis_config, yaxis_mask);
  return 0;
}
SHMEMI_ALIAS(shmem_team_split_2d);

void shmem_team_destroy(shmem_team_t team)
{
  static const char *fn = "shmem_team_destroy";
  if (team == SHMEM_TEAM_INVALID) return;
  if (!shmemi_team_check(fn, team)) return;
  if (team->predefined) {
    shmemi_warn(fn, "%s cannot be destroyed (ignored)",
                team == SHMEM_TEAM_WORLD ? "SHMEM_TEAM_WORLD"
                                         : "SHMEM_TEAM_SHARED");
    return;
  }
  shmemi_quiet_all();
  if (dart_team_destroy(&team->dteam) != DART_OK)
    shmemi_warn(fn, "dart_team_destroy failed for team %p", (void *)team);
  team_free(team);
}
SHMEMI_ALIAS(shmem_team_destroy);
