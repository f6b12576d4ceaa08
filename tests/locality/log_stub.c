/*
 * Logging stand-ins for MPI-free unit tests of the locality module: the
 * tests link the locality sources without the rest of DART. Messages go to
 * stderr; the tests can count them to check "one log line per error".
 */
#include <stdarg.h>
#include <stdio.h>

#include "dart_log.h"
#include "log_stub.h"

int dart__log_level = DART__LOG_WARN;
int log_stub_count = 0;

void dart__log(int level, const char *func, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "[test log %d] %s: ", level, func);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  log_stub_count++;
}

const char *dart__strerror(dart_ret_t ret)
{
  switch (ret) {
#define DART__RET_CASE(code, msg)                                              \
  case code: return msg;
    DART__RET_TABLE(DART__RET_CASE)
#undef DART__RET_CASE
  default: return "unknown error code";
  }
}
