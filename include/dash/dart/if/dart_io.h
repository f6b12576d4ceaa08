/**
 * \file dart_io.h
 *
 * \brief Support for parallel HDF5 I/O on DART teams.
 *
 * This header does not include \c hdf5.h: the includer must declare the HDF5
 * type \c hid_t before including it.
 */
#ifndef DART__IO_H_
#define DART__IO_H_

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Empty marker: beginning of the interface part of a header (no effect). */
#define DART_INTERFACE_ON

/**
 * \brief Configures an HDF5 file access property list for collective
 *        parallel I/O over the units of a team.
 *
 * \param plist_id  HDF5 file access property list.
 * \param teamid    The team performing the I/O.
 * \return \c DART_OK, \c DART_ERR_INVAL for an unknown team, or
 *         \c DART_ERR_OTHER if HDF5 reports an error.
 */
dart_ret_t dart__io__hdf5__prep_mpio(
    hid_t plist_id,
    dart_team_t teamid) DART_NOTHROW;

/** Empty marker: end of the interface part of a header (no effect). */
#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__IO_H_ */
