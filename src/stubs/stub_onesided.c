/*
 * Placeholders for the onesided module until it lands: every public
 * function logs "not implemented yet" and returns DART_ERR_OTHER.
 * DELETE THIS FILE when the module is implemented.
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#include "dart_team.h"

bool dart__progress_wanted(void) { return false; }
dart_ret_t dart__progress_init(void) { return DART_OK; }
void dart__progress_fini(void) {}

dart_ret_t dart_accumulate(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op)
{
  (void)gptr;
  (void)values;
  (void)nelem;
  (void)dtype;
  (void)op;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_accumulate_blocking_local(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op)
{
  (void)gptr;
  (void)values;
  (void)nelem;
  (void)dtype;
  (void)op;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_compare_and_swap(
  dart_gptr_t      gptr,
  const void     * value,
  const void     * compare,
  void           * result,
  dart_datatype_t  dtype)
{
  (void)gptr;
  (void)value;
  (void)compare;
  (void)result;
  (void)dtype;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_fetch_and_op(
  dart_gptr_t      gptr,
  const void *     value,
  void *           result,
  dart_datatype_t  dtype,
  dart_operation_t op)
{
  (void)gptr;
  (void)value;
  (void)result;
  (void)dtype;
  (void)op;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_flush(
  dart_gptr_t gptr)
{
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_flush_all(
  dart_gptr_t gptr)
{
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_flush_local(
  dart_gptr_t gptr)
{
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_flush_local_all(
  dart_gptr_t gptr)
{
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_get(
  void            * dest,
  dart_gptr_t       gptr,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type)
{
  (void)dest;
  (void)gptr;
  (void)nelem;
  (void)src_type;
  (void)dst_type;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_get_blocking(
  void         *  dest,
  dart_gptr_t     gptr,
  size_t          nelem,
  dart_datatype_t src_type,
  dart_datatype_t dst_type)
{
  (void)dest;
  (void)gptr;
  (void)nelem;
  (void)src_type;
  (void)dst_type;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_get_handle(
  void            * dest,
  dart_gptr_t       gptr,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type,
  dart_handle_t   * handle)
{
  (void)dest;
  (void)gptr;
  (void)nelem;
  (void)src_type;
  (void)dst_type;
  (void)handle;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_handle_free(
  dart_handle_t * handle)
{
  (void)handle;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_put(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type)
{
  (void)gptr;
  (void)src;
  (void)nelem;
  (void)src_type;
  (void)dst_type;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_put_blocking(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type)
{
  (void)gptr;
  (void)src;
  (void)nelem;
  (void)src_type;
  (void)dst_type;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_put_handle(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type,
  dart_handle_t   * handle)
{
  (void)gptr;
  (void)src;
  (void)nelem;
  (void)src_type;
  (void)dst_type;
  (void)handle;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_test(
  dart_handle_t * handleptr,
  int32_t       * is_finished)
{
  (void)handleptr;
  (void)is_finished;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_test_local(
  dart_handle_t * handle,
  int32_t       * result)
{
  (void)handle;
  (void)result;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_testall(
  dart_handle_t   handles[],
  size_t          n,
  int32_t       * is_finished)
{
  (void)handles;
  (void)n;
  (void)is_finished;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_testall_local(
  dart_handle_t   handles[],
  size_t          n,
  int32_t       * result)
{
  (void)handles;
  (void)n;
  (void)result;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_wait(
  dart_handle_t * handle)
{
  (void)handle;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_wait_local(
  dart_handle_t * handle)
{
  (void)handle;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_waitall(
  dart_handle_t handles[],
  size_t        n)
{
  (void)handles;
  (void)n;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_waitall_local(
  dart_handle_t handles[],
  size_t        n)
{
  (void)handles;
  (void)n;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}
