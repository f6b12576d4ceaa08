/* Internal to src/types: glue between the datatype and op modules. */
#ifndef DART__TYPES_INTERNAL_H
#define DART__TYPES_INTERNAL_H

#include <stddef.h>

#include "dart_log.h"
#include "registry.h"

/* Logs an error attributed to the public function `func`. */
#define DART__LOG_ERROR_IN(func, ...)                                          \
  do {                                                                         \
    if (DART__LOG_ERROR <= dart__log_level)                                    \
      dart__log(DART__LOG_ERROR, (func), __VA_ARGS__);                         \
  } while (0)

/* Op module setup (MINMAX pair types and op) and teardown (all ops). */
DART__HIDDEN dart_ret_t dart__ops_init(void);
DART__HIDDEN void dart__ops_fini(void);

/* Live derived types / user ops (for tests and leak checks). */
DART__HIDDEN size_t dart__types_live(void);
DART__HIDDEN size_t dart__ops_live(void);

#endif /* DART__TYPES_INTERNAL_H */
