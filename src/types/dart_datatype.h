/* Internal: DART datatypes (basic and derived), their MPI mapping, and ops. */
#ifndef DART__DATATYPE_H
#define DART__DATATYPE_H

#include <dash/dart/if/dart_types.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "dart_log.h"

typedef enum {
  DART__TYPE_BASIC = 0,
  DART__TYPE_STRIDED,
  DART__TYPE_INDEXED,
  DART__TYPE_CUSTOM
} dart__type_kind_t;

/*
 * Descriptor of a datatype. Basic types live in a static table; derived
 * types in a registry whose handles encode a slot index and a generation,
 * so a destroyed or forged handle is detected in O(1).
 */
typedef struct dart__type {
  dart__type_kind_t kind;
  dart_datatype_t base;    /* basic element type (BYTE for custom types)    */
  dart_datatype_t elem;    /* contiguous element type the type is made of:
                              the basic type, or the custom type's handle
                              (compare this one for "same base type")      */
  size_t base_size;        /* bytes per basic element (custom: num_bytes)   */
  size_t num_elem;         /* basic elements per instance of the pattern:
                              basic/custom 1, strided blocklen, indexed sum */
  size_t extent_elem;      /* span of one instance in basic elements:
                              strided stride, indexed max(offset+len)       */
  size_t stride, blocklen; /* strided                                      */
  size_t count;            /* indexed: number of blocks                     */
  size_t *blocklens;       /* indexed: [count]                              */
  size_t *offsets;         /* indexed: [count]                              */
  MPI_Datatype mpi_elem;   /* MPI type of one basic element (cached)       */
  MPI_Datatype mpi_inst;   /* MPI type of one instance (committed, cached) */
  bool owns_elem;          /* mpi_elem is freed with the type              */
} dart__type_t;

/* Descriptors of the basic types, indexed by DART_TYPE_* (entry 0 unused). */
extern const dart__type_t dart__basic_types[DART_TYPE_LAST] DART__HIDDEN;

/* Registry lookup of a derived type handle (> DART_TYPE_LAST), or NULL. */
DART__HIDDEN const dart__type_t *dart__type_get_derived(dart_datatype_t t);

/* Returns the descriptor, or NULL for DART_TYPE_UNDEFINED/LAST, unknown or
 * destroyed handles. O(1), no logging; inline for basic types. */
static inline const dart__type_t *dart__type_get(dart_datatype_t t)
{
  if (__builtin_expect(t > DART_TYPE_UNDEFINED && t < DART_TYPE_LAST, 1))
    return &dart__basic_types[t];
  return t > DART_TYPE_LAST ? dart__type_get_derived(t) : NULL;
}

/* Same, logging "func: invalid datatype N" when the handle is bad. */
DART__HIDDEN const dart__type_t *dart__type_lookup(const char *func,
                                                   dart_datatype_t t);

static inline bool dart__type_is_contiguous(const dart__type_t *t)
{
  return t->kind == DART__TYPE_BASIC || t->kind == DART__TYPE_CUSTOM;
}

/* Size in bytes of a basic type (0 if not basic). */
DART__HIDDEN size_t dart__basic_size(dart_datatype_t t);

/*
 * Ops. dart__op_mpi returns the MPI op for a predefined operation valid in
 * the given context (MPI_OP_NULL if not valid for that type). User ops
 * (from dart_op_create) are resolved by dart__op_user.
 */
typedef struct dart__user_op {
  dart_operator_t fn;
  void *userdata;
  bool commute;
  dart_datatype_t dtype;
  MPI_Op mpi_op;
  MPI_Datatype mpi_type; /* private duplicate of dtype's element type: use
                            it (count = nelem) in reductions with mpi_op;
                            it stays valid even if dtype is destroyed     */
  size_t elem_size;      /* bytes per element of dtype                    */
} dart__user_op_t;

/*
 * Predefined ops: MIN, MAX, SUM, PROD on every basic type; BAND, BOR, BXOR,
 * LAND, LOR, LXOR on the integer types (BYTE..ULONGLONG); REPLACE and NO_OP
 * on every basic type (atomics only; reductions must reject them).
 * MINMAX, UNDEFINED, LAST and user ops give MPI_OP_NULL.
 */
extern const MPI_Op dart__op_table[DART_OP_LAST][2] DART__HIDDEN;
static inline MPI_Op dart__op_mpi(dart_operation_t op, dart_datatype_t basic)
{
  if (op >= DART_OP_LAST || basic <= DART_TYPE_UNDEFINED ||
      basic >= DART_TYPE_LAST)
    return MPI_OP_NULL;
  return dart__op_table[op][basic >= DART_TYPE_FLOAT];
}
/* User op descriptor for a handle from dart_op_create, or NULL. */
DART__HIDDEN const dart__user_op_t *dart__op_user(dart_operation_t op);
/*
 * DART_OP_MINMAX for a basic type: *pair receives the committed MPI type of
 * one (min,max) pair (reduce nelem/2 of them, never split a pair); returns
 * the commutative MPI op combining pairs, or MPI_OP_NULL for a bad type.
 */
DART__HIDDEN MPI_Op dart__op_minmax(dart_datatype_t basic, MPI_Datatype *pair);

/* Module hooks (runtime/modules.c). */
DART__HIDDEN dart_ret_t dart__types_init(void);
DART__HIDDEN void dart__types_fini(void);

#endif /* DART__DATATYPE_H */
