/*
 * DART datatypes: the basic-type table and derived types (strided, indexed,
 * custom). Derived types live in a handle registry (registry.h); their MPI
 * types are built and committed once at creation and freed at destroy.
 *
 * DART_TYPE_BYTE maps to the MPI type of the platform's plain `char`
 * (MPI_SIGNED_CHAR where char is signed, MPI_UNSIGNED_CHAR otherwise):
 * MPI_BYTE would do for transfers, but MPI only allows bitwise reductions
 * on MPI_BYTE and no reductions at all on MPI_CHAR, while DASH maps `char`
 * to BYTE and reduces it with MIN/MAX/SUM. Transfers are unaffected (MPI
 * moves both the same way on a homogeneous system).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "types/dart_datatype.h"
#include "dart_mpi.h"
#include "team/dart_team.h"
#include "types_internal.h"

#if CHAR_MIN < 0
#define DART__MPI_PLAIN_CHAR MPI_SIGNED_CHAR
#else
#define DART__MPI_PLAIN_CHAR MPI_UNSIGNED_CHAR
#endif

#define DART__BASIC(T, ctype, mpi)                                             \
  [T] = {.kind = DART__TYPE_BASIC,                                             \
         .base = T,                                                            \
         .elem = T,                                                            \
         .base_size = sizeof(ctype),                                           \
         .num_elem = 1,                                                        \
         .extent_elem = 1,                                                     \
         .mpi_elem = mpi,                                                      \
         .mpi_inst = mpi}

const dart__type_t dart__basic_types[DART_TYPE_LAST] = {
    DART__BASIC(DART_TYPE_BYTE, char, DART__MPI_PLAIN_CHAR),
    DART__BASIC(DART_TYPE_SHORT, short, MPI_SHORT),
    DART__BASIC(DART_TYPE_INT, int, MPI_INT),
    DART__BASIC(DART_TYPE_UINT, unsigned int, MPI_UNSIGNED),
    DART__BASIC(DART_TYPE_LONG, long, MPI_LONG),
    DART__BASIC(DART_TYPE_ULONG, unsigned long, MPI_UNSIGNED_LONG),
    DART__BASIC(DART_TYPE_LONGLONG, long long, MPI_LONG_LONG),
    DART__BASIC(DART_TYPE_ULONGLONG, unsigned long long,
                MPI_UNSIGNED_LONG_LONG),
    DART__BASIC(DART_TYPE_FLOAT, float, MPI_FLOAT),
    DART__BASIC(DART_TYPE_DOUBLE, double, MPI_DOUBLE),
    DART__BASIC(DART_TYPE_LONG_DOUBLE, long double, MPI_LONG_DOUBLE),
};

/* Derived types; payload dart__type_t. */
static dart__registry_t dart__type_reg;

const dart__type_t *dart__type_get_derived(dart_datatype_t t)
{
  return dart__registry_get(&dart__type_reg, t);
}

const dart__type_t *dart__type_lookup(const char *func, dart_datatype_t t)
{
  const dart__type_t *d = dart__type_get(t);
  if (d == NULL && DART__LOG_ERROR <= dart__log_level)
    dart__log(DART__LOG_ERROR, func, "invalid datatype %" PRIdPTR, t);
  return d;
}

size_t dart__basic_size(dart_datatype_t t)
{
  if (t > DART_TYPE_UNDEFINED && t < DART_TYPE_LAST)
    return dart__basic_types[t].base_size;
  return 0;
}

/* Releases the MPI types and arrays owned by a derived-type descriptor. */
static void type_release(void *payload, void *ctx)
{
  (void)ctx;
  dart__type_t *d = payload;
  if (d->mpi_inst != MPI_DATATYPE_NULL && d->kind != DART__TYPE_BASIC)
    DART__MPI_LOG(MPI_Type_free(&d->mpi_inst));
  if (d->owns_elem && d->mpi_elem != MPI_DATATYPE_NULL)
    DART__MPI_LOG(MPI_Type_free(&d->mpi_elem));
  free(d->blocklens);
  free(d->offsets);
  d->blocklens = d->offsets = NULL;
}

/* Registers a fully built descriptor; releases it if the registry is full. */
static dart_ret_t type_register(dart__type_t *d, dart_datatype_t *newtype)
{
  intptr_t h = dart__registry_add(&dart__type_reg, d);
  if (h == 0) {
    DART_LOG_ERROR("datatype registry full or out of memory");
    type_release(d, NULL);
    return DART_ERR_NOMEM;
  }
  *newtype = (dart_datatype_t)h;
  return DART_OK;
}

/*
 * Validates the base type of a strided/indexed type and fills the element
 * part of d: base, elem, base_size and mpi_elem (a private duplicate when the
 * base is a custom type, so that destroying the custom type later does not
 * affect the new one).
 */
static dart_ret_t type_init_elem(const char *func, dart_datatype_t basetype,
                                 dart__type_t *d)
{
  const dart__type_t *b = dart__type_lookup(func, basetype);
  if (b == NULL) return DART_ERR_INVAL;
  if (!dart__type_is_contiguous(b)) {
    DART__LOG_ERROR_IN(func, "base type %" PRIdPTR " is not contiguous",
                       basetype);
    return DART_ERR_INVAL;
  }
  d->base = b->base;
  d->elem = basetype;
  d->base_size = b->base_size;
  d->mpi_inst = MPI_DATATYPE_NULL;
  if (b->kind == DART__TYPE_BASIC) {
    d->mpi_elem = b->mpi_elem;
    return DART_OK;
  }
  DART__MPI(MPI_Type_dup(b->mpi_elem, &d->mpi_elem));
  d->owns_elem = true;
  return DART_OK;
}

/*
 * Builds d->mpi_inst from `inner` (consumed): resized to an extent of
 * d->extent_elem elements with lower bound 0, then committed.
 */
static dart_ret_t type_finish_inst(dart__type_t *d, MPI_Datatype inner)
{
  MPI_Aint extent = (MPI_Aint)(d->extent_elem * d->base_size);
  int rc = MPI_Type_create_resized(inner, 0, extent, &d->mpi_inst);
  DART__MPI_LOG(MPI_Type_free(&inner));
  DART__MPI(rc);
  DART__MPI(MPI_Type_commit(&d->mpi_inst));
  return DART_OK;
}

dart_ret_t dart_type_create_strided(dart_datatype_t basetype, size_t stride,
                                    size_t blocklen, dart_datatype_t *newtype)
{
  DART__CHECK_NOTNULL(newtype);
  *newtype = DART_TYPE_UNDEFINED;
  DART__CHECK_INIT();
  DART__CHECK_ARG(blocklen > 0 && blocklen <= INT_MAX,
                  "blocklen %zu out of range 1..INT_MAX", blocklen);
  DART__CHECK_ARG(stride >= blocklen && stride <= INT_MAX,
                  "stride %zu out of range blocklen(%zu)..INT_MAX", stride,
                  blocklen);
  dart__type_t d = {.kind = DART__TYPE_STRIDED,
                    .stride = stride,
                    .blocklen = blocklen,
                    .num_elem = blocklen,
                    .extent_elem = stride,
                    .mpi_elem = MPI_DATATYPE_NULL,
                    .mpi_inst = MPI_DATATYPE_NULL};
  dart_ret_t ret = type_init_elem(__func__, basetype, &d);
  if (ret != DART_OK) return ret;
  MPI_Datatype block;
  int rc = MPI_Type_contiguous((int)blocklen, d.mpi_elem, &block);
  if (rc == MPI_SUCCESS) {
    ret = type_finish_inst(&d, block);
  } else {
    dart__mpi_log_error(__func__, "MPI_Type_contiguous", rc);
    ret = DART_ERR_OTHER;
  }
  if (ret != DART_OK) {
    type_release(&d, NULL);
    return ret;
  }
  return type_register(&d, newtype);
}

/* Copies and checks the block arrays of an indexed type into d. */
static dart_ret_t indexed_copy_blocks(dart__type_t *d, size_t count,
                                      const size_t blocklen[],
                                      const size_t offset[])
{
  d->blocklens = malloc(count * sizeof(size_t));
  d->offsets = malloc(count * sizeof(size_t));
  if (d->blocklens == NULL || d->offsets == NULL) {
    DART_LOG_ERROR("dart_type_create_indexed: out of memory (%zu blocks)",
                   count);
    return DART_ERR_NOMEM;
  }
  for (size_t i = 0; i < count; i++) {
    if (blocklen[i] > INT_MAX || offset[i] > INT_MAX) {
      DART_LOG_ERROR("dart_type_create_indexed: block %zu (len %zu, offset "
                     "%zu) exceeds INT_MAX",
                     i, blocklen[i], offset[i]);
      return DART_ERR_INVAL;
    }
    d->blocklens[i] = blocklen[i];
    d->offsets[i] = offset[i];
    d->num_elem += blocklen[i];
    if (offset[i] + blocklen[i] > d->extent_elem)
      d->extent_elem = offset[i] + blocklen[i];
  }
  if (d->num_elem == 0) {
    DART_LOG_ERROR("dart_type_create_indexed: all %zu blocks are empty", count);
    return DART_ERR_INVAL;
  }
  d->count = count;
  return DART_OK;
}

/* Builds the MPI indexed type of d (arrays already copied). */
static dart_ret_t indexed_build_mpi(dart__type_t *d)
{
  int n = (int)d->count;
  int *bl = malloc((size_t)n * sizeof(int));
  int *off = malloc((size_t)n * sizeof(int));
  dart_ret_t ret = DART_ERR_NOMEM;
  if (bl != NULL && off != NULL) {
    for (int i = 0; i < n; i++) {
      bl[i] = (int)d->blocklens[i];
      off[i] = (int)d->offsets[i];
    }
    MPI_Datatype inner;
    int rc = MPI_Type_indexed(n, bl, off, d->mpi_elem, &inner);
    if (rc == MPI_SUCCESS) {
      ret = type_finish_inst(d, inner);
    } else {
      dart__mpi_log_error("dart_type_create_indexed", "MPI_Type_indexed", rc);
      ret = DART_ERR_OTHER;
    }
  }
  free(bl);
  free(off);
  return ret;
}

dart_ret_t dart_type_create_indexed(dart_datatype_t basetype, size_t count,
                                    const size_t blocklen[],
                                    const size_t offset[],
                                    dart_datatype_t *newtype)
{
  DART__CHECK_NOTNULL(newtype);
  *newtype = DART_TYPE_UNDEFINED;
  DART__CHECK_INIT();
  DART__CHECK_ARG(count > 0 && count <= INT_MAX,
                  "count %zu out of range 1..INT_MAX", count);
  DART__CHECK_NOTNULL(blocklen);
  DART__CHECK_NOTNULL(offset);
  dart__type_t d = {.kind = DART__TYPE_INDEXED,
                    .mpi_elem = MPI_DATATYPE_NULL,
                    .mpi_inst = MPI_DATATYPE_NULL};
  dart_ret_t ret = type_init_elem(__func__, basetype, &d);
  if (ret == DART_OK) ret = indexed_copy_blocks(&d, count, blocklen, offset);
  if (ret == DART_OK) ret = indexed_build_mpi(&d);
  if (ret != DART_OK) {
    type_release(&d, NULL);
    return ret;
  }
  return type_register(&d, newtype);
}

dart_ret_t dart_type_create_custom(size_t num_bytes, dart_datatype_t *newtype)
{
  DART__CHECK_NOTNULL(newtype);
  *newtype = DART_TYPE_UNDEFINED;
  DART__CHECK_INIT();
  DART__CHECK_ARG(num_bytes > 0 && num_bytes <= INT_MAX,
                  "num_bytes %zu out of range 1..INT_MAX", num_bytes);
  dart__type_t d = {.kind = DART__TYPE_CUSTOM,
                    .base = DART_TYPE_BYTE,
                    .base_size = num_bytes,
                    .num_elem = 1,
                    .extent_elem = 1,
                    .mpi_inst = MPI_DATATYPE_NULL};
  DART__MPI(MPI_Type_contiguous((int)num_bytes, MPI_BYTE, &d.mpi_inst));
  int rc = MPI_Type_commit(&d.mpi_inst);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(__func__, "MPI_Type_commit", rc);
    DART__MPI_LOG(MPI_Type_free(&d.mpi_inst));
    return DART_ERR_OTHER;
  }
  /* One custom element is one instance; elem refers to the type itself
   * and is filled in once the handle is known. */
  d.mpi_elem = d.mpi_inst;
  dart_ret_t ret = type_register(&d, newtype);
  if (ret == DART_OK) {
    dart__type_t *reg = dart__registry_get(&dart__type_reg, *newtype);
    reg->elem = *newtype;
  }
  return ret;
}

dart_ret_t dart_type_destroy(dart_datatype_t *dart_type)
{
  DART__CHECK_NOTNULL(dart_type);
  dart_datatype_t t = *dart_type;
  DART__CHECK_ARG(t > DART_TYPE_LAST,
                  "datatype %" PRIdPTR " is not a derived type", t);
  if (!dart__g.initialized) {
    /* dart_exit already released every derived type. */
    *dart_type = DART_TYPE_UNDEFINED;
    return DART_OK;
  }
  dart__type_t d;
  DART__CHECK_ARG(dart__registry_remove(&dart__type_reg, t, &d) == 0,
                  "invalid datatype %" PRIdPTR " (destroyed or never created)",
                  t);
  /* MPI lets committed types be freed while operations using them are
   * still pending; those complete normally. */
  type_release(&d, NULL);
  *dart_type = DART_TYPE_UNDEFINED;
  return DART_OK;
}

dart_ret_t dart__types_init(void)
{
  dart__registry_init(&dart__type_reg, sizeof(dart__type_t));
  return dart__ops_init();
}

void dart__types_fini(void)
{
  dart__ops_fini();
  size_t live = dart__registry_live(&dart__type_reg);
  if (live > 0)
    DART_LOG_DEBUG("releasing %zu derived datatypes still registered", live);
  dart__registry_fini(&dart__type_reg, type_release, NULL);
}

size_t dart__types_live(void)
{
  return dart__registry_live(&dart__type_reg);
}
