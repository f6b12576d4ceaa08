/* Internal logging, error table and argument-check helpers. */
#ifndef DART__LOG_H
#define DART__LOG_H

#include <dash/dart/if/dart_types.h>

#define DART__HIDDEN __attribute__((visibility("hidden")))

/* Log levels, from most to least severe. */
enum {
  DART__LOG_ERROR = 0,
  DART__LOG_WARN = 1,
  DART__LOG_INFO = 2,
  DART__LOG_DEBUG = 3,
  DART__LOG_TRACE = 4
};

/* Current threshold: messages with level <= this are printed. */
extern int dart__log_level DART__HIDDEN;

DART__HIDDEN void dart__log(int level, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Parses "ERROR", "warn", "DART_LOGLEVEL_DEBUG", "3" ...; returns -1 if
 * unknown. */
DART__HIDDEN int dart__log_parse_level(const char *s);

#define DART__LOG_AT(lvl, ...)                                                 \
  do {                                                                         \
    if ((lvl) <= dart__log_level) dart__log((lvl), __func__, __VA_ARGS__);     \
  } while (0)
#define DART_LOG_ERROR(...) DART__LOG_AT(DART__LOG_ERROR, __VA_ARGS__)
#define DART_LOG_WARN(...) DART__LOG_AT(DART__LOG_WARN, __VA_ARGS__)
#define DART_LOG_INFO(...) DART__LOG_AT(DART__LOG_INFO, __VA_ARGS__)
#define DART_LOG_DEBUG(...) DART__LOG_AT(DART__LOG_DEBUG, __VA_ARGS__)
#define DART_LOG_TRACE(...) DART__LOG_AT(DART__LOG_TRACE, __VA_ARGS__)

/*
 * The one table of DART return codes and their messages.
 * X(code, message)
 */
#define DART__RET_TABLE(X)                                                     \
  X(DART_OK, "success")                                                        \
  X(DART_PENDING, "operation pending")                                         \
  X(DART_ERR_INVAL, "invalid argument")                                        \
  X(DART_ERR_NOTFOUND, "not found")                                            \
  X(DART_ERR_NOTINIT, "DART is not initialized")                               \
  X(DART_ERR_NOMEM, "out of memory")                                           \
  X(DART_ERR_OTHER, "runtime or transport failure")

/* Message for a return code ("unknown error code" for anything else). */
DART__HIDDEN const char *dart__strerror(dart_ret_t ret);

/*
 * Argument checks: cheap, always on. On failure they log one line naming the
 * calling function and the offending value, then return from the caller.
 */
#define DART__CHECK(cond, ret, ...)                                            \
  do {                                                                         \
    if (__builtin_expect(!(cond), 0)) {                                        \
      DART_LOG_ERROR(__VA_ARGS__);                                             \
      return (ret);                                                            \
    }                                                                          \
  } while (0)

#define DART__CHECK_ARG(cond, ...)                                             \
  DART__CHECK(cond, DART_ERR_INVAL, __VA_ARGS__)

#define DART__CHECK_NOTNULL(ptr)                                               \
  DART__CHECK_ARG((ptr) != NULL, "argument '%s' is NULL", #ptr)

#endif /* DART__LOG_H */
