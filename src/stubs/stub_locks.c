/*
 * Placeholders for the locks module until it lands: every public
 * function logs "not implemented yet" and returns DART_ERR_OTHER.
 * DELETE THIS FILE when the module is implemented.
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>

#include "dart_team.h"

void dart__locks_team_fini(dart__team_t *t) { (void)t; }

dart_ret_t dart_lock_acquire(
  dart_lock_t   lock)
{
  (void)lock;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

bool dart_lock_initialized(
  struct dart_lock_struct const *lock)
{
  (void)lock;
  return false;
}

dart_ret_t dart_lock_release(
  dart_lock_t   lock)
{
  (void)lock;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_lock_try_acquire(
  dart_lock_t   lock,
  int32_t     * result)
{
  (void)lock;
  (void)result;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_team_lock_destroy(
  dart_lock_t * lock)
{
  (void)lock;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}

dart_ret_t dart_team_lock_init(
  dart_team_t   teamid,
  dart_lock_t * lock)
{
  (void)teamid;
  (void)lock;
  DART_LOG_ERROR("not implemented yet");
  return DART_ERR_OTHER;
}
