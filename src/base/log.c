/* Logging with levels, prefixed by the unit id, and the return-code table. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <dash/dart/if/dart_config.h>

#include "dart_log.h"
#include "dart_mpi.h"

int dart__log_level = DART__LOG_WARN;

static dart_config_t dart__config = {.log_enabled = 1};

void dart_config(dart_config_t **config_out)
{
  if (config_out != NULL) *config_out = &dart__config;
}

static const char *const dart__level_names[] = {"ERROR", "WARN", "INFO",
                                                "DEBUG", "TRACE"};

int dart__log_parse_level(const char *s)
{
  if (s == NULL || *s == '\0') return -1;
  if (strncasecmp(s, "DART_LOGLEVEL_", 14) == 0) s += 14;
  for (int i = 0; i < 5; i++) {
    if (strcasecmp(s, dart__level_names[i]) == 0) return i;
  }
  if (s[0] >= '0' && s[0] <= '4' && s[1] == '\0') return s[0] - '0';
  return -1;
}

void dart__log(int level, const char *func, const char *fmt, ...)
{
  if (!dart__config.log_enabled && level > DART__LOG_ERROR) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  int lvl = (level < 0) ? 0 : (level > 4 ? 4 : level);
  if (dart__g.initialized || dart__g.myid >= 0) {
    fprintf(stderr, "[DART %-5s unit %d] %s: %s\n", dart__level_names[lvl],
            dart__g.myid, func, msg);
  } else {
    fprintf(stderr, "[DART %-5s unit ?] %s: %s\n", dart__level_names[lvl], func,
            msg);
  }
}

const char *dart__strerror(dart_ret_t ret)
{
  switch (ret) {
#define DART__RET_CASE(code, text)                                             \
  case code: return text;
    DART__RET_TABLE(DART__RET_CASE)
#undef DART__RET_CASE
  }
  return "unknown error code";
}

void dart__mpi_log_error(const char *func, const char *call, int rc)
{
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) {
    snprintf(text, sizeof text, "MPI error %d", rc);
  }
  /* Out of the window's range: on a dynamic window, typically memory its
   * owner deregistered (detached) while this unit still accessed it. */
  int cls = MPI_SUCCESS;
  const char *hint = "";
  if (MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_RMA_RANGE)
    hint = " (target memory not attached: deregistered by its owner before "
           "this access?)";
  dart__log(DART__LOG_ERROR, func, "%s failed: %s%s", call, text, hint);
}
