/**
 * \file dart_initialization.h
 *
 * \brief Start-up and shut-down of the DART runtime.
 */
#ifndef DART_INITIALIZATION_H_INCLUDED
#define DART_INITIALIZATION_H_INCLUDED

#include <stdbool.h>

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Empty marker: beginning of the interface part of a header (no effect). */
#define DART_INTERFACE_ON

/**
 * \defgroup DartInit Initialization and finalization
 * \{
 */

/**
 * \brief Initializes DART.
 *
 * Collective over all processes. Afterwards \c DART_TEAM_ALL and its
 * locality information are available.
 *
 * \param argc  Address of \c main's argument count (may be NULL).
 * \param argv  Address of \c main's argument vector (may be NULL).
 * \return \c DART_OK, or \c DART_ERR_OTHER if DART is already initialized.
 */
dart_ret_t dart_init(int *argc, char ***argv) DART_NOTHROW;

/**
 * \brief Initializes DART, requesting support for concurrent calls from
 *        multiple threads.
 *
 * \param argc           Address of \c main's argument count (may be NULL).
 * \param argv           Address of \c main's argument vector (may be NULL).
 * \param thread_safety  Receives the thread support level actually provided.
 * \return \c DART_OK or an error code.
 */
dart_ret_t dart_init_thread(
  int*                          argc,
  char***                       argv,
  dart_thread_support_level_t * thread_safety) DART_NOTHROW;

/**
 * \brief Shuts DART down.
 *
 * Collective over all units.
 *
 * \return \c DART_OK, or \c DART_ERR_OTHER if DART is not initialized.
 */
dart_ret_t dart_exit(void) DART_NOTHROW;

/**
 * \brief Tells whether DART is currently initialized.
 *
 * May be called at any time, also before \ref dart_init and after
 * \ref dart_exit.
 *
 * \return true between successful initialization and \ref dart_exit.
 */
bool       dart_initialized(void) DART_NOTHROW;

/**
 * \brief Terminates all units of the job immediately; never returns.
 *
 * \param errorcode  Exit code of the job.
 */
void       dart_abort(int errorcode) __attribute__((noreturn));

/** \} */

/** Empty marker: end of the interface part of a header (no effect). */
#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART_INITIALIZATION_H_INCLUDED */
