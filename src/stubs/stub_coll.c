/*
 * Placeholders for the coll module until it lands: every public
 * function logs "not implemented yet" and returns DART_ERR_OTHER.
 * DELETE THIS FILE when the module is implemented.
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#include "dart_team.h"



dart_ret_t dart_allgather(
  const void      * sendbuf,
  void            * recvbuf,
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_team_t       team)
{
  (void)sendbuf;
  (void)recvbuf;
  (void)nelem;
  (void)dtype;
  (void)team;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_allreduce(
  const void     * sendbuf,
  void           * recvbuf,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_operation_t op,
  dart_team_t      team)
{
  (void)sendbuf;
  (void)recvbuf;
  (void)nelem;
  (void)dtype;
  (void)op;
  (void)team;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_alltoall(
  const void     * sendbuf,
  void           * recvbuf,
  size_t           nelem,
  dart_datatype_t  dtype,
  dart_team_t      team)
{
  (void)sendbuf;
  (void)recvbuf;
  (void)nelem;
  (void)dtype;
  (void)team;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_bcast(
  void              * buf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_team_unit_t    root,
  dart_team_t         team)
{
  (void)buf;
  (void)nelem;
  (void)dtype;
  (void)root;
  (void)team;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_gather(
  const void        * sendbuf,
  void              * recvbuf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_team_unit_t    root,
  dart_team_t         team)
{
  (void)sendbuf;
  (void)recvbuf;
  (void)nelem;
  (void)dtype;
  (void)root;
  (void)team;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_recv(
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit)
{
  (void)recvbuf;
  (void)nelem;
  (void)dtype;
  (void)tag;
  (void)unit;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_reduce(
  const void        * sendbuf,
  void              * recvbuf,
  size_t              nelem,
  dart_datatype_t     dtype,
  dart_operation_t    op,
  dart_team_unit_t    root,
  dart_team_t         team)
{
  (void)sendbuf;
  (void)recvbuf;
  (void)nelem;
  (void)dtype;
  (void)op;
  (void)root;
  (void)team;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_scatter(
  const void         * sendbuf,
  void               * recvbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  dart_team_unit_t     root,
  dart_team_t          team)
{
  (void)sendbuf;
  (void)recvbuf;
  (void)nelem;
  (void)dtype;
  (void)root;
  (void)team;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_send(
  const void         * sendbuf,
  size_t               nelem,
  dart_datatype_t      dtype,
  int                  tag,
  dart_global_unit_t   unit)
{
  (void)sendbuf;
  (void)nelem;
  (void)dtype;
  (void)tag;
  (void)unit;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

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
  dart_global_unit_t   src)
{
  (void)sendbuf;
  (void)send_nelem;
  (void)send_dtype;
  (void)send_tag;
  (void)dest;
  (void)recvbuf;
  (void)recv_nelem;
  (void)recv_dtype;
  (void)recv_tag;
  (void)src;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}
