/*
 * Placeholders for the globmem module until it lands: every public
 * function logs "not implemented yet" and returns DART_ERR_OTHER.
 * DELETE THIS FILE when the module is implemented.
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#include "dart_team.h"

dart_ret_t dart__globmem_init(void) { return DART_OK; }
void dart__globmem_fini(void) {}
dart_ret_t dart__globmem_team_init(dart__team_t *t) { (void)t; return DART_OK; }
dart_ret_t dart__globmem_team_fini(dart__team_t *t) { (void)t; return DART_OK; }

dart_ret_t dart_allocator_alloc(
  size_t             nelem,
  dart_datatype_t    dtype,
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator)
{
  (void)nelem;
  (void)dtype;
  (void)gptr;
  (void)allocator;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_allocator_destroy(
  dart_allocator_t *allocator)
{
  (void)allocator;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_allocator_free(
  dart_gptr_t      * gptr,
  dart_allocator_t   allocator)
{
  (void)gptr;
  (void)allocator;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_allocator_new(
  size_t             pool_size,
  dart_team_t        team,
  dart_allocator_t * new_allocator)
{
  (void)pool_size;
  (void)team;
  (void)new_allocator;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_gptr_getaddr(
  const dart_gptr_t    gptr,
  void        ** addr)
{
  (void)gptr;
  (void)addr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}


dart_ret_t dart_gptr_getflags(
  dart_gptr_t   gptr,
  uint16_t    * flags)
{
  (void)gptr;
  (void)flags;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_gptr_setaddr(
  dart_gptr_t * gptr,
  void        * addr)
{
  (void)gptr;
  (void)addr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_gptr_setflags(
  dart_gptr_t * gptr,
  uint16_t      flags)
{
  (void)gptr;
  (void)flags;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_memalloc(
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_gptr_t     * gptr)
{
  (void)nelem;
  (void)dtype;
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_memfree(
  dart_gptr_t gptr)
{
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_team_memalloc_aligned(
  dart_team_t       teamid,
  size_t            nelem,
  dart_datatype_t   dtype,
  dart_gptr_t     * gptr)
{
  (void)teamid;
  (void)nelem;
  (void)dtype;
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_team_memderegister(
  dart_gptr_t gptr)
{
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_team_memfree(
  dart_gptr_t gptr)
{
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_team_memregister(
  dart_team_t       teamid,
  size_t            nlelem,
  dart_datatype_t   dtype,
  void            * addr,
  dart_gptr_t     * gptr)
{
  (void)teamid;
  (void)nlelem;
  (void)dtype;
  (void)addr;
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_team_memregister_aligned(
  dart_team_t       teamid,
  size_t            nelem,
  dart_datatype_t   dtype,
  void            * addr,
  dart_gptr_t     * gptr)
{
  (void)teamid;
  (void)nelem;
  (void)dtype;
  (void)addr;
  (void)gptr;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}
