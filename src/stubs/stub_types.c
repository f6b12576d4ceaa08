/*
 * Placeholders for the types module until it lands: every public
 * function logs "not implemented yet" and returns DART_ERR_OTHER.
 * DELETE THIS FILE when the module is implemented.
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#include "dart_team.h"

dart_ret_t dart__types_init(void) { return DART_OK; }
void dart__types_fini(void) {}

dart_ret_t dart_op_create(
  dart_operator_t    op,
  void             * userdata,
  bool               commute,
  dart_datatype_t    dtype,
  bool               dtype_is_tmp,
  dart_operation_t * new_op)
{
  (void)op;
  (void)userdata;
  (void)commute;
  (void)dtype;
  (void)dtype_is_tmp;
  (void)new_op;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_op_destroy(
  dart_operation_t *op)
{
  (void)op;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_type_create_custom(
  size_t            num_bytes,
  dart_datatype_t * newtype)
{
  (void)num_bytes;
  (void)newtype;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_type_create_indexed(
  dart_datatype_t   basetype,
  size_t            count,
  const size_t      blocklen[],
  const size_t      offset[],
  dart_datatype_t * newtype)
{
  (void)basetype;
  (void)count;
  (void)blocklen;
  (void)offset;
  (void)newtype;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_type_create_strided(
  dart_datatype_t   basetype,
  size_t            stride,
  size_t            blocklen,
  dart_datatype_t * newtype)
{
  (void)basetype;
  (void)stride;
  (void)blocklen;
  (void)newtype;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_type_destroy(
  dart_datatype_t *dart_type)
{
  (void)dart_type;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}
