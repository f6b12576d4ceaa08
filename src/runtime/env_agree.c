/*
 * Agreement of the DART_* variables that units must agree on (the agree
 * column of the table in dart_env.h; docs/env.md), once in dart_init,
 * before any module starts.
 *
 * Cost at P units, k such variables: one allreduce of 2k 64-bit words
 * (each value's FNV-1a hash and its complement under MAX give the largest
 * and the smallest hash: equal means every unit has the same value). Only
 * where some differ: unit 0's values are broadcast, one allreduce finds
 * per variable the lowest unit whose value differs from unit 0's, and that
 * unit broadcasts its value. O(log P) steps, no per-unit arrays.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dart_env.h"
#include "dart_modules.h"
#include "dart_mpi.h"
#include "transport/wait.h"

typedef struct {
  const char *name;
  dart__env_kind_t kind;
  dart__env_agree_t agree;
  void *field;
} env_var_t;

static const env_var_t env_vars[] = {
#define DART__ENV_VAR(NAME, kind, ctype, field, def, agree, doc)               \
  {#NAME, kind, agree, &dart__env.field},
    DART__ENV_TABLE(DART__ENV_VAR)
#undef DART__ENV_VAR
};

enum { NVARS = sizeof env_vars / sizeof env_vars[0] };

/* A line in dart_init's name. */
#define ENV_LOG(lvl, ...)                                                      \
  do {                                                                         \
    if ((lvl) <= dart__log_level) dart__log((lvl), "dart_init", __VA_ARGS__);  \
  } while (0)

/* Values taken over from unit 0 (strings), freed at the next dart_init. */
static char *adopted[NVARS];

/* The value of variable i as text (numbers in buf). */
static const char *env_value(int i, char buf[32])
{
  const env_var_t *v = &env_vars[i];
  switch (v->kind) {
  case DART__ENV_BOOL: snprintf(buf, 32, "%d", *(int *)v->field); break;
  case DART__ENV_INT: snprintf(buf, 32, "%ld", *(long *)v->field); break;
  case DART__ENV_SIZE: snprintf(buf, 32, "%zu", *(size_t *)v->field); break;
  case DART__ENV_STR: {
    const char *s = *(const char **)v->field;
    return s != NULL ? s : "";
  }
  }
  return buf;
}

static uint64_t fnv1a(const char *s)
{
  uint64_t h = 14695981039346656037ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* Non-blocking broadcast and a yielding wait. */
static int env_bcast(void *buf, int n, MPI_Datatype t, int root)
{
  MPI_Request req;
  int rc = MPI_Ibcast(buf, n, t, root, dart__g.comm, &req);
  return rc != MPI_SUCCESS ? rc : dart__mpi_wait(&req);
}

/* Root's text (NUL-terminated) to every unit: *out malloc'ed. */
static int env_bcast_text(const char *mine, int root, char **out)
{
  int len = dart__g.myid == root ? (int)strlen(mine) : 0;
  int rc = env_bcast(&len, 1, MPI_INT, root);
  if (rc != MPI_SUCCESS) return rc;
  *out = malloc((size_t)len + 1);
  if (*out == NULL) abort();
  if (dart__g.myid == root) memcpy(*out, mine, (size_t)len + 1);
  rc = env_bcast(*out, len, MPI_CHAR, root);
  (*out)[len] = '\0';
  return rc;
}

/* Variable i takes unit 0's value u0 on this unit. */
static void env_adopt(int i, const char *u0)
{
  const env_var_t *v = &env_vars[i];
  if (v->kind == DART__ENV_STR) {
    free(adopted[i]);
    adopted[i] = strdup(u0);
    if (adopted[i] == NULL) abort();
    *(const char **)v->field = adopted[i];
  } else {
    dart__env_parse(v->kind, u0, v->field); /* unit 0 parsed it */
  }
}

/*
 * Variable i differs between units: finds the lowest unit other than 0
 * whose value differs from unit 0's (first), logs one line and applies the
 * rule. Returns an MPI code; *fail set for a DART__ENV_FAIL variable.
 */
static int env_mismatch(int i, const char *u0, int other, bool *fail)
{
  const env_var_t *v = &env_vars[i];
  char buf[32], *theirs = NULL;
  const char *mine = env_value(i, buf);
  int rc = env_bcast_text(mine, other, &theirs);
  if (rc != MPI_SUCCESS) return rc;
  if (v->agree == DART__ENV_FAIL) {
    ENV_LOG(DART__LOG_ERROR,
            "%s differs between units: unit 0 has '%s', unit %d has "
            "'%s' (this unit '%s'): dart_init fails on every unit",
            v->name, u0, other, theirs, mine);
    *fail = true;
  } else {
    ENV_LOG(DART__LOG_WARN,
            "%s differs between units: unit 0 has '%s', unit %d has "
            "'%s' (this unit '%s'): every unit uses unit 0's '%s'",
            v->name, u0, other, theirs, mine, u0);
    if (strcmp(mine, u0) != 0) env_adopt(i, u0);
  }
  free(theirs);
  return MPI_SUCCESS;
}

/* The variables listed in idx[0..n) differ somewhere. */
static int env_resolve(const int *idx, int n, bool *fail)
{
  char *u0[NVARS] = {0}, buf[32];
  int low[NVARS], rc = MPI_SUCCESS;
  for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
    rc = env_bcast_text(env_value(idx[j], buf), 0, &u0[j]);
  for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
    low[j] =
        strcmp(env_value(idx[j], buf), u0[j]) != 0 ? dart__g.myid : INT_MAX;
  if (rc == MPI_SUCCESS)
    rc = dart__mpi_allreduce(MPI_IN_PLACE, low, n, MPI_INT, MPI_MIN,
                             dart__g.comm);
  for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
    if (low[j] != INT_MAX) rc = env_mismatch(idx[j], u0[j], low[j], fail);
  for (int j = 0; j < n; j++) free(u0[j]);
  return rc;
}

int dart__env_agree(void)
{
  uint64_t fp[2 * NVARS];
  int idx[NVARS], n = 0;
  char buf[32];
  for (int i = 0; i < NVARS; i++) {
    free(adopted[i]); /* dart__env_load no longer points to it */
    adopted[i] = NULL;
    if (env_vars[i].agree == DART__ENV_LOCAL) continue;
    uint64_t h = fnv1a(env_value(i, buf));
    fp[2 * n] = h;
    fp[2 * n + 1] = ~h;
    idx[n++] = i;
  }
  int rc = dart__mpi_allreduce(MPI_IN_PLACE, fp, 2 * n, MPI_UINT64_T, MPI_MAX,
                               dart__g.comm);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error("dart_init", "agreeing the DART_* variables", rc);
    return DART_ERR_OTHER;
  }
  int ndiff = 0;
  for (int j = 0; j < n; j++)
    if (fp[2 * j] != ~fp[2 * j + 1]) idx[ndiff++] = idx[j];
  if (ndiff == 0) return DART_OK;
  bool fail = false;
  rc = env_resolve(idx, ndiff, &fail);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error("dart_init", "agreeing the DART_* variables", rc);
    return DART_ERR_OTHER;
  }
  return fail ? DART_ERR_INVAL : DART_OK;
}
