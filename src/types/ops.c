/*
 * DART reduction operations: the predefined-op table, DART_OP_MINMAX, and
 * user operations from dart_op_create.
 *
 * User ops. An MPI user function receives no context pointer, only the
 * buffers, the count and the MPI datatype. Every DART user op therefore gets
 * its own duplicate of its element type's MPI datatype; one trampoline
 * serves all user ops and finds the DART operator by that datatype handle
 * (a small table under a read-write lock). The trampoline never calls MPI,
 * which the MPI standard forbids inside reduction functions for
 * communication calls and which could re-enter MPI's own locks.
 *
 * MINMAX. Implemented as one commutative MPI user op over "pair" types
 * (MPI_Type_contiguous(2, elem), one per basic type, created at init): a
 * single collective per reduction and MPI can never split a (min,max) pair
 * across algorithm segments. The alternative, two strided reductions (MIN on
 * even, MAX on odd elements), costs two collective latencies and packs
 * non-contiguous data, which loses for the small counts DASH uses (sort).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>

#include "types/dart_datatype.h"
#include "dart_mpi.h"
#include "team/dart_team.h"
#include "types_internal.h"

/* ---- predefined ops --------------------------------------------------- */

/* [op][0] for integer types, [op][1] for floating types; MPI_OP_NULL where
 * the op is not defined (MPI has no bitwise/logical ops on floats). */
const MPI_Op dart__op_table[DART_OP_LAST][2] = {
    [DART_OP_UNDEFINED] = {MPI_OP_NULL, MPI_OP_NULL},
    [DART_OP_MIN] = {MPI_MIN, MPI_MIN},
    [DART_OP_MAX] = {MPI_MAX, MPI_MAX},
    [DART_OP_MINMAX] = {MPI_OP_NULL, MPI_OP_NULL},
    [DART_OP_SUM] = {MPI_SUM, MPI_SUM},
    [DART_OP_PROD] = {MPI_PROD, MPI_PROD},
    [DART_OP_BAND] = {MPI_BAND, MPI_OP_NULL},
    [DART_OP_LAND] = {MPI_LAND, MPI_OP_NULL},
    [DART_OP_BOR] = {MPI_BOR, MPI_OP_NULL},
    [DART_OP_LOR] = {MPI_LOR, MPI_OP_NULL},
    [DART_OP_BXOR] = {MPI_BXOR, MPI_OP_NULL},
    [DART_OP_LXOR] = {MPI_LXOR, MPI_OP_NULL},
    [DART_OP_REPLACE] = {MPI_REPLACE, MPI_REPLACE},
    [DART_OP_NO_OP] = {MPI_NO_OP, MPI_NO_OP},
};

/* ---- MINMAX ----------------------------------------------------------- */

static MPI_Datatype minmax_pair[DART_TYPE_LAST];
static MPI_Op minmax_op = MPI_OP_NULL;

#define DART__MINMAX_LOOP(ctype)                                               \
  do {                                                                         \
    const ctype *a = in;                                                       \
    ctype *b = inout;                                                          \
    for (int i = 0; i < 2 * n; i += 2) {                                       \
      if (a[i] < b[i]) b[i] = a[i];                                            \
      if (a[i + 1] > b[i + 1]) b[i + 1] = a[i + 1];                            \
    }                                                                          \
  } while (0)

/* MPI user function of MINMAX: the pair type identifies the basic type. */
static void minmax_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
  int n = *len;
  dart_datatype_t t = DART_TYPE_UNDEFINED;
  for (dart_datatype_t k = DART_TYPE_BYTE; k < DART_TYPE_LAST; k++)
    if (minmax_pair[k] == *dt) t = k;
  switch (t) {
  case DART_TYPE_BYTE: DART__MINMAX_LOOP(char); break;
  case DART_TYPE_SHORT: DART__MINMAX_LOOP(short); break;
  case DART_TYPE_INT: DART__MINMAX_LOOP(int); break;
  case DART_TYPE_UINT: DART__MINMAX_LOOP(unsigned int); break;
  case DART_TYPE_LONG: DART__MINMAX_LOOP(long); break;
  case DART_TYPE_ULONG: DART__MINMAX_LOOP(unsigned long); break;
  case DART_TYPE_LONGLONG: DART__MINMAX_LOOP(long long); break;
  case DART_TYPE_ULONGLONG: DART__MINMAX_LOOP(unsigned long long); break;
  case DART_TYPE_FLOAT: DART__MINMAX_LOOP(float); break;
  case DART_TYPE_DOUBLE: DART__MINMAX_LOOP(double); break;
  case DART_TYPE_LONG_DOUBLE: DART__MINMAX_LOOP(long double); break;
  default:
    DART_LOG_ERROR("MINMAX reduction called with an unknown MPI datatype");
  }
}

MPI_Op dart__op_minmax(dart_datatype_t basic, MPI_Datatype *pair)
{
  if (basic <= DART_TYPE_UNDEFINED || basic >= DART_TYPE_LAST ||
      minmax_op == MPI_OP_NULL)
    return MPI_OP_NULL;
  *pair = minmax_pair[basic];
  return minmax_op;
}

static void minmax_fini(void)
{
  for (dart_datatype_t t = DART_TYPE_BYTE; t < DART_TYPE_LAST; t++)
    if (minmax_pair[t] != MPI_DATATYPE_NULL) MPI_Type_free(&minmax_pair[t]);
  if (minmax_op != MPI_OP_NULL) MPI_Op_free(&minmax_op);
}

static dart_ret_t minmax_init(void)
{
  for (dart_datatype_t t = DART_TYPE_BYTE; t < DART_TYPE_LAST; t++)
    minmax_pair[t] = MPI_DATATYPE_NULL;
  for (dart_datatype_t t = DART_TYPE_BYTE; t < DART_TYPE_LAST; t++) {
    const dart__type_t *d = dart__type_get(t);
    int rc = MPI_Type_contiguous(2, d->mpi_elem, &minmax_pair[t]);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&minmax_pair[t]);
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error("dart_init", "MPI_Type_contiguous/commit", rc);
      minmax_fini();
      return DART_ERR_OTHER;
    }
  }
  int rc = MPI_Op_create(minmax_fn, 1, &minmax_op);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error("dart_init", "MPI_Op_create", rc);
    minmax_op = MPI_OP_NULL;
    minmax_fini();
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* ---- user ops --------------------------------------------------------- */

static dart__registry_t dart__op_reg;

/* Trampoline table: MPI datatype of a user op -> operator and user data. */
typedef struct {
  MPI_Datatype type;
  dart_operator_t fn;
  void *userdata;
} op_route_t;

static pthread_rwlock_t route_lock = PTHREAD_RWLOCK_INITIALIZER;
static op_route_t *routes;
static size_t nroutes, route_cap;

static int route_add(const dart__user_op_t *op)
{
  pthread_rwlock_wrlock(&route_lock);
  if (nroutes == route_cap) {
    size_t cap = route_cap ? 2 * route_cap : 16;
    op_route_t *r = realloc(routes, cap * sizeof(*r));
    if (r == NULL) {
      pthread_rwlock_unlock(&route_lock);
      return -1;
    }
    routes = r;
    route_cap = cap;
  }
  routes[nroutes++] = (op_route_t){op->mpi_type, op->fn, op->userdata};
  pthread_rwlock_unlock(&route_lock);
  return 0;
}

static void route_remove(MPI_Datatype type)
{
  pthread_rwlock_wrlock(&route_lock);
  for (size_t i = 0; i < nroutes; i++) {
    if (routes[i].type == type) {
      routes[i] = routes[--nroutes];
      break;
    }
  }
  if (nroutes == 0) {
    free(routes);
    routes = NULL;
    route_cap = 0;
  }
  pthread_rwlock_unlock(&route_lock);
}

/*
 * The MPI user function behind every DART user op: calls the DART operator
 * with the element count MPI hands over, in units of the op's datatype.
 */
static void user_op_trampoline(void *in, void *inout, int *len,
                               MPI_Datatype *dt)
{
  dart_operator_t fn = NULL;
  void *ud = NULL;
  pthread_rwlock_rdlock(&route_lock);
  for (size_t i = 0; i < nroutes; i++) {
    if (routes[i].type == *dt) {
      fn = routes[i].fn;
      ud = routes[i].userdata;
      break;
    }
  }
  pthread_rwlock_unlock(&route_lock);
  if (fn == NULL) {
    DART_LOG_ERROR("user reduction invoked for an unknown or destroyed op");
    return;
  }
  if (*len > 0) fn(in, inout, (size_t)*len, ud);
}

/* Frees the MPI objects of a user op (registry payload). */
static void user_op_release(void *payload, void *ctx)
{
  (void)ctx;
  dart__user_op_t *op = payload;
  route_remove(op->mpi_type);
  if (op->mpi_op != MPI_OP_NULL) MPI_Op_free(&op->mpi_op);
  if (op->mpi_type != MPI_DATATYPE_NULL) MPI_Type_free(&op->mpi_type);
}

/* Creates the MPI type and op of a user op; on failure nothing is left. */
static dart_ret_t user_op_build(dart__user_op_t *op, const dart__type_t *d)
{
  op->mpi_type = MPI_DATATYPE_NULL;
  op->mpi_op = MPI_OP_NULL;
  int rc = MPI_Type_dup(d->mpi_inst, &op->mpi_type);
  if (rc == MPI_SUCCESS)
    rc = MPI_Op_create(user_op_trampoline, op->commute ? 1 : 0, &op->mpi_op);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error("dart_op_create", "MPI_Type_dup/MPI_Op_create", rc);
    if (op->mpi_type != MPI_DATATYPE_NULL) MPI_Type_free(&op->mpi_type);
    return DART_ERR_OTHER;
  }
  if (route_add(op) != 0) {
    DART_LOG_ERROR("dart_op_create: out of memory");
    DART__MPI_LOG(MPI_Op_free(&op->mpi_op));
    DART__MPI_LOG(MPI_Type_free(&op->mpi_type));
    return DART_ERR_NOMEM;
  }
  return DART_OK;
}

dart_ret_t dart_op_create(dart_operator_t op, void *userdata, bool commute,
                          dart_datatype_t dtype, bool dtype_is_tmp,
                          dart_operation_t *new_op)
{
  (void)dtype_is_tmp; /* the op owns a duplicate of dtype's MPI type */
  DART__CHECK_NOTNULL(new_op);
  *new_op = DART_OP_UNDEFINED;
  DART__CHECK_INIT();
  DART__CHECK_NOTNULL(op);
  const dart__type_t *d = dart__type_lookup(__func__, dtype);
  if (d == NULL) return DART_ERR_INVAL;
  DART__CHECK_ARG(dart__type_is_contiguous(d),
                  "datatype %" PRIdPTR " is not contiguous", dtype);
  dart__user_op_t uop = {.fn = op,
                         .userdata = userdata,
                         .commute = commute,
                         .dtype = dtype,
                         .elem_size = d->base_size};
  dart_ret_t ret = user_op_build(&uop, d);
  if (ret != DART_OK) return ret;
  intptr_t h = dart__registry_add(&dart__op_reg, &uop);
  if (h == 0) {
    DART_LOG_ERROR("op registry full or out of memory");
    user_op_release(&uop, NULL);
    return DART_ERR_NOMEM;
  }
  *new_op = (dart_operation_t)h;
  return DART_OK;
}

dart_ret_t dart_op_destroy(dart_operation_t *op)
{
  DART__CHECK_NOTNULL(op);
  dart_operation_t o = *op;
  DART__CHECK_ARG(o > DART_OP_LAST, "op %" PRIuPTR " is not a user op", o);
  if (!dart__g.initialized) {
    /* dart_exit already released every user op. */
    *op = DART_OP_UNDEFINED;
    return DART_OK;
  }
  dart__user_op_t uop;
  DART__CHECK_ARG(o <= (dart_operation_t)INTPTR_MAX &&
                      dart__registry_remove(&dart__op_reg, (intptr_t)o, &uop) ==
                          0,
                  "invalid op %" PRIuPTR " (destroyed or never created)", o);
  user_op_release(&uop, NULL);
  *op = DART_OP_UNDEFINED;
  return DART_OK;
}

const dart__user_op_t *dart__op_user(dart_operation_t op)
{
  if (op <= DART_OP_LAST || op > (dart_operation_t)INTPTR_MAX) return NULL;
  return dart__registry_get(&dart__op_reg, (intptr_t)op);
}

size_t dart__ops_live(void)
{
  return dart__registry_live(&dart__op_reg);
}

dart_ret_t dart__ops_init(void)
{
  dart__registry_init(&dart__op_reg, sizeof(dart__user_op_t));
  return minmax_init();
}

void dart__ops_fini(void)
{
  size_t live = dart__registry_live(&dart__op_reg);
  if (live > 0) DART_LOG_DEBUG("releasing %zu user ops still registered", live);
  dart__registry_fini(&dart__op_reg, user_op_release, NULL);
  minmax_fini();
}
