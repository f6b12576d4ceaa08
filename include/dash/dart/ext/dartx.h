/**
 * \file dartx.h
 * \brief DART's extension interface for layers built on DART (dartx_*).
 *
 * A small set of calls that a programming model implemented over DART's
 * public API needs and cannot do efficiently with it: the OpenSHMEM layer
 * (libdart-shmem, docs/shmem.md) is their user. They belong to libdart-mpi
 * (src/ext/) and follow DART's conventions: \c dart_ret_t results, one log
 * line naming the function and the bad value on bad input.
 */
#ifndef DART__EXT__DARTX_H_
#define DART__EXT__DARTX_H_

#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_types.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \defgroup DartExt Extension interface for layers over DART
 * \{
 */

/**
 * \brief The load/store address of the \c nbytes bytes a global pointer
 *        refers to, if the calling unit maps them.
 *
 * The caller maps its own memory, and the memory of node peers in segments
 * allocated with \ref dart_team_memalloc_aligned (or the \ref dart_memalloc
 * pool) on a shared window; registered memory of other units is never
 * mapped. Loads and stores through the address are plain memory accesses:
 * their ordering with DART's operations is the caller's concern (DART's
 * flush and barrier fence).
 *
 * Local operation, no communication.
 *
 * \param gptr    Global pointer (team, segment, unit, offset).
 * \param nbytes  Length of the range that must be valid (may be 0).
 * \param addr    Receives the address, or NULL if the caller does not map
 *                the target (it then needs DART's one-sided calls).
 * \return \c DART_OK; \c DART_ERR_INVAL (one log line) if the team, the
 *         segment or the unit does not exist or the range does not fit the
 *         unit's portion; \c DART_ERR_NOTINIT before \ref dart_init.
 */
dart_ret_t dartx_gptr_mapped(dart_gptr_t gptr, size_t nbytes, void **addr);

/**
 * \brief Drives DART's MPI progress from the calling thread, cheaply.
 *
 * For polling loops over local memory that peers update through DART's
 * one-sided operations (a flag set by a peer's put or atomic): where MPI
 * only progresses inside MPI calls (no progress thread), the peer's
 * operation completes only if the target enters MPI now and then. Enters
 * MPI on every 8th call at most; a no-op before \ref dart_init.
 */
void dartx_progress(void);

/** \} */

#ifdef __cplusplus
}
#endif

#endif /* DART__EXT__DARTX_H_ */
