/**
 * \file dart_communication.h
 *
 * \brief Collective operations, one-sided access to global memory, atomic
 *        operations and two-sided messages.
 *
 * Collectives are blocking and must be called by all members of a team in
 * the same order. One-sided operations are started by the caller and complete
 * either at a later flush, through a handle, or before returning (blocking
 * variants). Element counts always refer to basic elements.
 */
#ifndef DART__COMMUNICATION_H_
#define DART__COMMUNICATION_H_

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_globmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Empty marker: beginning of the interface part of a header (no effect). */
#define DART_INTERFACE_ON

/**
 * \defgroup DartCommunication Communication
 * \{
 */

/**
 * \name Collective operations
 * \{
 */

/**
 * \brief Waits until all members of \c team have reached the barrier.
 *
 * Also orders local memory accesses with respect to one-sided operations.
 *
 * \param team  The team.
 * \return \c DART_OK or \c DART_ERR_INVAL.
 */
dart_ret_t dart_barrier(
  dart_team_t team) DART_NOTHROW;

/**
 * \brief Broadcasts \c nelem elements from \c root to all team members.
 *
 * \param buf    Source buffer at \c root, destination buffer elsewhere.
 * \param nelem  Number of elements.
 * \param dtype  Element type.
 * \param root   Team-relative id of the sending unit.
 * \param team   The team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_bcast(
  void              * buf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/**
 * \brief Distributes consecutive blocks of \c nelem elements from \c root,
 *        block \c i to team member \c i.
 *
 * \param sendbuf  Team size times \c nelem elements (read at \c root only).
 * \param recvbuf  Receives \c nelem elements.
 * \param nelem    Number of elements per unit.
 * \param dtype    Element type.
 * \param root     Team-relative id of the sending unit.
 * \param team     The team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_scatter(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_team_unit_t     root,
  dart_team_t          team) DART_NOTHROW;

/**
 * \brief Collects \c nelem elements from every team member at \c root, in
 *        team order.
 *
 * \param sendbuf  The calling unit's \c nelem elements.
 * \param recvbuf  Team size times \c nelem elements (written at \c root only).
 * \param nelem    Number of elements per unit.
 * \param dtype    Element type.
 * \param root     Team-relative id of the receiving unit.
 * \param team     The team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_gather(
  const void        * sendbuf,
  void              * recvbuf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/**
 * \brief Collects \c nelem elements from every team member on all members,
 *        in team order.
 *
 * \param sendbuf  The calling unit's contribution; NULL or equal to
 *                 \c recvbuf if it is already in place.
 * \param recvbuf  Team size times \c nelem elements.
 * \param nelem    Number of elements per unit.
 * \param dtype    Element type.
 * \param team     The team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_allgather(
  const void      * sendbuf,
  void            * recvbuf,
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_team_t       team) DART_NOTHROW;

/**
 * \brief Like \ref dart_allgather, with a different number of elements from
 *        every unit.
 *
 * \param sendbuf     The calling unit's contribution; NULL or equal to
 *                    \c recvbuf if it is already in place.
 * \param nsendelem   Number of elements contributed by the calling unit.
 * \param dtype       Element type.
 * \param recvbuf     Receives all contributions.
 * \param nrecvelem   Number of elements of each unit (team size entries).
 * \param recvdispls  Element offset in \c recvbuf of each unit's data.
 * \param teamid      The team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_allgatherv(
  const void      * sendbuf,
  size_t            nsendelem,
  dart_datatype_t   dtype,
  void            * recvbuf,
  const size_t    * nrecvelem,
  const size_t    * recvdispls,
  dart_team_t       teamid) DART_NOTHROW;

/**
 * \brief Reduces \c nelem elements element-wise over all team members and
 *        stores the result on every member.
 *
 * \param sendbuf  Input elements.
 * \param recvbuf  Receives the result.
 * \param nelem    Number of elements.
 * \param dtype    Element type.
 * \param op       Predefined or user-defined operation.
 * \param team     The team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_allreduce(
  const void     * sendbuf,
  void           * recvbuf,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op,
  dart_team_t      team) DART_NOTHROW;

/**
 * \brief Sends block \c j of \c nelem elements to team member \c j, which
 *        stores it as block \c i (the sender's id).
 *
 * \param sendbuf  Team size times \c nelem elements; NULL or equal to
 *                 \c recvbuf for in-place operation.
 * \param recvbuf  Receives team size times \c nelem elements.
 * \param nelem    Number of elements per block.
 * \param dtype    Basic element type.
 * \param team     The team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_alltoall(
  const void     * sendbuf,
  void           * recvbuf,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_team_t      team) DART_NOTHROW;

/**
 * \brief Like \ref dart_allreduce, but the result is stored at \c root only.
 *
 * \param sendbuf  Input elements.
 * \param recvbuf  Receives the result at \c root.
 * \param nelem    Number of elements.
 * \param dtype    Element type.
 * \param op       Predefined or user-defined operation.
 * \param root     Team-relative id of the receiving unit.
 * \param team     The team.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_reduce(
  const void        * sendbuf,
  void              * recvbuf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_operation_t    op,
  dart_team_unit_t    root,
  dart_team_t         team) DART_NOTHROW;

/** \} */

/**
 * \name Atomic operations
 * \{
 */

/**
 * \brief Atomically combines \c nelem elements of global memory with
 *        \c values using \c op.
 *
 * Non-blocking: \c values may be reused after a local flush.
 *
 * \param gptr    Target in global memory.
 * \param values  Operands.
 * \param nelem   Number of elements.
 * \param dtype   Basic element type.
 * \param op      Predefined operation.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_accumulate(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/**
 * \brief Like \ref dart_accumulate, but returns only once \c values may be
 *        reused.
 *
 * \param gptr    Target in global memory.
 * \param values  Operands.
 * \param nelem   Number of elements.
 * \param dtype   Basic element type.
 * \param op      Predefined operation.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_accumulate_blocking_local(
  dart_gptr_t      gptr,
  const void     * values,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/**
 * \brief Atomically fetches one element of global memory and combines it
 *        with \c *value using \c op.
 *
 * \c *result holds the previous value after a flush.
 *
 * \param gptr    Target in global memory.
 * \param value   Operand.
 * \param result  Receives the previous value.
 * \param dtype   Basic element type.
 * \param op      Predefined operation.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_fetch_and_op(
  dart_gptr_t      gptr,
  const void *     value,
  void *           result,
  dart_datatype_t  dtype,
  dart_operation_t op) DART_NOTHROW;

/**
 * \brief Atomically replaces one element of global memory by \c *value if it
 *        equals \c *compare.
 *
 * \c *result holds the previous value after a flush.
 *
 * \param gptr     Target in global memory.
 * \param value    New value.
 * \param compare  Value to compare with.
 * \param result   Receives the previous value.
 * \param dtype    Integral basic element type.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_compare_and_swap(
  dart_gptr_t      gptr,
  const void     * value,
  const void     * compare,
  void           * result,
  dart_datatype_t  dtype) DART_NOTHROW;

/** \} */

/**
 * \name Non-blocking one-sided operations without handles
 * \{
 */

/**
 * \brief Starts copying \c nelem elements from global memory to \c dest.
 *
 * \c dest is valid after a (local) flush.
 *
 * \param dest      Local destination buffer.
 * \param gptr      Source in global memory.
 * \param nelem     Number of elements.
 * \param src_type  Datatype of the source.
 * \param dst_type  Datatype of the destination.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_get(
  void            * dest,
  dart_gptr_t       gptr,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

/**
 * \brief Starts copying \c nelem elements from \c src to global memory.
 *
 * \c src may be reused after a local flush; the data is visible at the
 * target after a flush.
 *
 * \param gptr      Destination in global memory.
 * \param src       Local source buffer.
 * \param nelem     Number of elements.
 * \param src_type  Datatype of the source.
 * \param dst_type  Datatype of the destination.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_put(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

/**
 * \brief Completes all pending operations of the caller to the unit and
 *        segment of \c gptr, locally and at the target.
 *
 * \param gptr  Global pointer naming unit and segment.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_flush(
  dart_gptr_t gptr) DART_NOTHROW;

/**
 * \brief Completes all pending operations of the caller to all units in the
 *        segment of \c gptr, locally and at the targets.
 *
 * \param gptr  Global pointer naming the segment; the unit is ignored.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_flush_all(
  dart_gptr_t gptr) DART_NOTHROW;

/**
 * \brief Completes all pending operations of the caller to the unit and
 *        segment of \c gptr locally (buffers reusable, results available).
 *
 * \param gptr  Global pointer naming unit and segment.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_flush_local(
  dart_gptr_t gptr) DART_NOTHROW;

/**
 * \brief Completes all pending operations of the caller to all units in the
 *        segment of \c gptr locally.
 *
 * \param gptr  Global pointer naming the segment; the unit is ignored.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_flush_local_all(
  dart_gptr_t gptr) DART_NOTHROW;

/** \} */

/**
 * \name Non-blocking one-sided operations with handles
 * \{
 */

/**
 * \brief Opaque handle of a pending one-sided operation.
 *
 * \c DART_HANDLE_NULL denotes an operation that has already completed.
 */
typedef struct dart_handle_struct * dart_handle_t;

/** The handle of an already completed operation. */
#define DART_HANDLE_NULL (dart_handle_t)NULL

/**
 * \brief Like \ref dart_get, additionally returning a handle.
 *
 * \param dest      Local destination buffer.
 * \param gptr      Source in global memory.
 * \param nelem     Number of elements.
 * \param src_type  Datatype of the source.
 * \param dst_type  Datatype of the destination.
 * \param handle    Receives the handle, or \c DART_HANDLE_NULL if the
 *                  operation is already complete.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_get_handle(
  void            * dest,
  dart_gptr_t       gptr,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type,
  dart_handle_t   * handle) DART_NOTHROW;

/**
 * \brief Like \ref dart_put, additionally returning a handle.
 *
 * \param gptr      Destination in global memory.
 * \param src       Local source buffer.
 * \param nelem     Number of elements.
 * \param src_type  Datatype of the source.
 * \param dst_type  Datatype of the destination.
 * \param handle    Receives the handle, or \c DART_HANDLE_NULL if the
 *                  operation is already complete.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_put_handle(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type,
  dart_handle_t   * handle) DART_NOTHROW;

/**
 * \brief Waits for local and remote completion of an operation.
 *
 * \param handle  The handle; released and set to \c DART_HANDLE_NULL.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_wait(
  dart_handle_t * handle) DART_NOTHROW;

/**
 * \brief Waits for local and remote completion of \c n operations.
 *
 * \param handles  The handles; released and set to \c DART_HANDLE_NULL.
 * \param n        Number of handles.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_waitall(
  dart_handle_t handles[],
  size_t        n) DART_NOTHROW;

/**
 * \brief Waits for local completion of an operation.
 *
 * \param handle  The handle; released and set to \c DART_HANDLE_NULL.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_wait_local(
  dart_handle_t * handle) DART_NOTHROW;

/**
 * \brief Waits for local completion of \c n operations.
 *
 * \param handles  The handles; released and set to \c DART_HANDLE_NULL.
 * \param n        Number of handles.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_waitall_local(
  dart_handle_t handles[],
  size_t        n) DART_NOTHROW;

/**
 * \brief Tests for local completion of an operation without blocking.
 *
 * \param handle  The handle; released and set to \c DART_HANDLE_NULL once
 *                complete.
 * \param result  Receives 1 if complete, 0 otherwise.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_test_local(
  dart_handle_t * handle,
  int32_t       * result) DART_NOTHROW;

/**
 * \brief Tests for local and remote completion of an operation without
 *        blocking.
 *
 * \param handleptr    The handle; released and set to \c DART_HANDLE_NULL
 *                     once complete.
 * \param is_finished  Receives 1 if complete, 0 otherwise.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_test(
  dart_handle_t * handleptr,
  int32_t       * is_finished);

/**
 * \brief Tests for local completion of \c n operations without blocking.
 *
 * The handles are released and set to \c DART_HANDLE_NULL only if all of
 * them are complete.
 *
 * \param handles  The handles.
 * \param n        Number of handles.
 * \param result   Receives 1 if all are complete, 0 otherwise.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_testall_local(
  dart_handle_t   handles[],
  size_t          n,
  int32_t       * result) DART_NOTHROW;

/**
 * \brief Tests for local and remote completion of \c n operations without
 *        blocking.
 *
 * The handles are released and set to \c DART_HANDLE_NULL only if all of
 * them are complete.
 *
 * \param handles      The handles.
 * \param n            Number of handles.
 * \param is_finished  Receives 1 if all are complete, 0 otherwise.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_testall(
  dart_handle_t   handles[],
  size_t          n,
  int32_t       * is_finished);

/**
 * \brief Releases a handle without waiting for the operation.
 *
 * The operation still completes and is covered by later flushes.
 *
 * \param handle  The handle; set to \c DART_HANDLE_NULL.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_handle_free(
  dart_handle_t * handle) DART_NOTHROW;

/** \} */

/**
 * \name Blocking one-sided operations
 * \{
 */

/**
 * \brief Copies \c nelem elements from global memory to \c dest and waits
 *        until the data has arrived.
 *
 * \param dest      Local destination buffer.
 * \param gptr      Source in global memory.
 * \param nelem     Number of elements.
 * \param src_type  Datatype of the source.
 * \param dst_type  Datatype of the destination.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_get_blocking(
  void         *  dest,
  dart_gptr_t     gptr,
  size_t          nelem,
  dart_datatype_t src_type,
  dart_datatype_t dst_type) DART_NOTHROW;

/**
 * \brief Copies \c nelem elements from \c src to global memory and waits
 *        until they have been written at the target.
 *
 * \param gptr      Destination in global memory.
 * \param src       Local source buffer.
 * \param nelem     Number of elements.
 * \param src_type  Datatype of the source.
 * \param dst_type  Datatype of the destination.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_put_blocking(
  dart_gptr_t       gptr,
  const void      * src,
  size_t            nelem,
  dart_datatype_t   src_type,
  dart_datatype_t   dst_type) DART_NOTHROW;

/** \} */

/**
 * \name Two-sided communication (unit ids relative to DART_TEAM_ALL)
 * \{
 */

/**
 * \brief Sends \c nelem elements to \c unit; returns once \c sendbuf may be
 *        reused.
 *
 * \param sendbuf  Data to send.
 * \param nelem    Number of elements.
 * \param dtype    Element type.
 * \param tag      Non-negative message tag.
 * \param unit     Global id of the receiver.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_send(
  const void         * sendbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit) DART_NOTHROW;

/**
 * \brief Receives a message with \c tag from \c unit.
 *
 * \param recvbuf  Receives the data.
 * \param nelem    Maximum number of elements.
 * \param dtype    Element type.
 * \param tag      Non-negative message tag.
 * \param unit     Global id of the sender.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_recv(
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit) DART_NOTHROW;

/**
 * \brief Sends to \c dest and receives from \c src in one deadlock-free
 *        operation.
 *
 * \param sendbuf     Data to send.
 * \param send_nelem  Number of elements to send.
 * \param send_dtype  Type of the elements sent.
 * \param send_tag    Tag of the outgoing message.
 * \param dest        Global id of the receiver.
 * \param recvbuf     Receives the incoming data.
 * \param recv_nelem  Maximum number of elements to receive.
 * \param recv_dtype  Type of the elements received.
 * \param recv_tag    Tag of the incoming message.
 * \param src         Global id of the sender.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_sendrecv(
  const void         * sendbuf,
  size_t               send_nelem,
  dart_datatype_t      send_dtype,
  int                  send_tag,
  dart_global_unit_t   dest,
  void               * recvbuf,
  size_t               recv_nelem,
  dart_datatype_t      recv_dtype,
  int                  recv_tag,
  dart_global_unit_t   src) DART_NOTHROW;

/** \} */

/** \} */

/** Empty marker: end of the interface part of a header (no effect). */
#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__COMMUNICATION_H_ */
