/**
 * \file dart.h
 *
 * \brief Umbrella header of the DART runtime interface.
 *
 * DART is the PGAS runtime underneath the DASH C++ library. Its interface
 * covers initialization, teams and groups, global memory and global
 * pointers, communication and locks. Locality queries (dart_locality.h) and
 * HDF5 support (dart_io.h) are not included here and must be included
 * separately when needed.
 */
#ifndef DART__DART_H_
#define DART__DART_H_

/** Version of the DART interface. */
#define DART_VERSION_STR     "3.2.0"
/** Date and time at which the including translation unit was compiled. */
#define DART_BUILD_STR       (__DATE__ " " __TIME__)

#include "dart_types.h"
#include "dart_config.h"
#include "dart_initialization.h"
#include "dart_team_group.h"
#include "dart_globmem.h"
#include "dart_communication.h"
#include "dart_synchronization.h"

#endif /* DART__DART_H_ */
