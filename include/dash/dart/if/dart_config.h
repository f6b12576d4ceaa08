/**
 * \file dart_config.h
 *
 * \brief Access to the process-wide DART runtime configuration.
 */
#ifndef DART__IF__CONFIG_H__
#define DART__IF__CONFIG_H__

#include <dash/dart/if/dart_types.h>
#include <dash/dart/if/dart_util.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Empty marker: beginning of the interface part of a header (no effect). */
#define DART_INTERFACE_ON

/**
 * \brief Returns the process-wide, writable runtime configuration.
 *
 * May be called at any time, also before \c dart_init and after
 * \c dart_exit.
 *
 * \param config_out  Receives a pointer to the configuration owned by DART.
 */
void dart_config(
  dart_config_t ** config_out) DART_NOTHROW;

/** Empty marker: end of the interface part of a header (no effect). */
#define DART_INTERFACE_OFF

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DART__IF__CONFIG_H__ */
