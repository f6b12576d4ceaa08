/**
 * \file dart_synchronization.h
 *
 * \brief Team-wide mutual exclusion locks.
 *
 * A lock belongs to a team: at most one unit (and one thread of that unit)
 * of the team holds it at a time. Locks are not recursive.
 */
#ifndef DART_SYNCHRONIZATION_H_INCLUDED
#define DART_SYNCHRONIZATION_H_INCLUDED

#include <dash/dart/if/dart_util.h>
#include <dash/dart/if/dart_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Empty marker: beginning of the interface part of a header (no effect). */
#define DART_INTERFACE_ON

/**
 * \defgroup DartSync Locks
 * \{
 */

/**
 * \brief Opaque handle of a team-wide lock.
 */
typedef struct dart_lock_struct *dart_lock_t;

/** The invalid lock handle. */
#define DART_LOCK_NULL ((dart_lock_t)NULL)

/**
 * \brief Creates a lock for a team; the lock is initially free.
 *
 * Collective over \c teamid.
 *
 * \param teamid  The team.
 * \param lock    Receives the unit-local lock handle.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_team_lock_init(
  dart_team_t   teamid,
  dart_lock_t * lock)   DART_NOTHROW;

/**
 * \brief Destroys a lock.
 *
 * Collective over the lock's team while the team exists; afterwards only the
 * local handle is released. NULL and \c DART_LOCK_NULL are accepted.
 *
 * \param lock  The lock; set to \c DART_LOCK_NULL.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_team_lock_destroy(
  dart_lock_t * lock)   DART_NOTHROW;

/**
 * \brief Blocks until the calling unit holds the lock.
 *
 * \param lock  The lock.
 * \return \c DART_OK, or \c DART_ERR_INVAL if the caller already holds it.
 */
dart_ret_t dart_lock_acquire(
  dart_lock_t   lock)   DART_NOTHROW;

/**
 * \brief Tries to acquire the lock without blocking.
 *
 * \param lock    The lock.
 * \param result  Receives 1 if the lock was acquired, 0 otherwise.
 * \return \c DART_OK, or \c DART_ERR_INVAL if the caller already holds it.
 */
dart_ret_t dart_lock_try_acquire(
  dart_lock_t   lock,
  int32_t     * result) DART_NOTHROW;

/**
 * \brief Releases a lock held by the calling unit.
 *
 * \param lock  The lock.
 * \return \c DART_OK, or \c DART_ERR_INVAL if the caller does not hold it.
 */
dart_ret_t dart_lock_release(
  dart_lock_t   lock)   DART_NOTHROW;

/**
 * \brief Tells whether a lock handle refers to a usable lock.
 *
 * \param lock  The lock (may be NULL).
 * \return true if \c lock is initialised and its team still exists.
 */
bool dart_lock_initialized(
    struct dart_lock_struct const *lock) DART_NOTHROW;

/** \} */

/** Empty marker: end of the interface part of a header (no effect). */
#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_SYNCHRONIZATION_H_INCLUDED */
