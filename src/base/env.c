/* Parsing, printing and documenting the DART_* environment variables. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dart_env.h"

dart__env_t dart__env;

static int dart__env_parse_bool(const char *s, int *out)
{
  static const char *const yes[] = {"1", "yes", "on", "true"};
  static const char *const no[] = {"0", "no", "off", "false"};
  for (int i = 0; i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0) return (*out = 1), 0;
    if (strcasecmp(s, no[i]) == 0) return (*out = 0), 0;
  }
  return -1;
}

static int dart__env_parse_long(const char *s, long *out)
{
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0') return -1;
  *out = v;
  return 0;
}

static int dart__env_parse_size(const char *s, size_t *out)
{
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0 || end == s || s[0] == '-') return -1;
  unsigned shift = 0;
  switch (toupper((unsigned char)*end)) {
  case '\0': break;
  case 'K': shift = 10; break;
  case 'M': shift = 20; break;
  case 'G': shift = 30; break;
  case 'T': shift = 40; break;
  default: return -1;
  }
  if (*end != '\0') {
    end++;
    if (toupper((unsigned char)*end) == 'B') end++;
    if (toupper((unsigned char)*end) == 'I') end++;
  }
  if (*end != '\0' || (shift && v > (SIZE_MAX >> shift))) return -1;
  *out = (size_t)(v << shift);
  return 0;
}

/* Parses one value into the field; returns 0 or -1 when malformed. */
int dart__env_parse(dart__env_kind_t kind, const char *s, void *field)
{
  switch (kind) {
  case DART__ENV_BOOL: return dart__env_parse_bool(s, (int *)field);
  case DART__ENV_INT: return dart__env_parse_long(s, (long *)field);
  case DART__ENV_SIZE: return dart__env_parse_size(s, (size_t *)field);
  case DART__ENV_STR: *(const char **)field = s; return 0;
  }
  return -1;
}

int dart__env_load(void)
{
  int rc = 0;
#define DART__ENV_LOAD(NAME, kind, ctype, field, def, agree, doc)              \
  {                                                                            \
    int ok_ = dart__env_parse(kind, def, &dart__env.field);                    \
    (void)ok_;                                                                 \
    const char *val_ = getenv(#NAME);                                          \
    if (val_ != NULL && *val_ != '\0' &&                                       \
        dart__env_parse(kind, val_, &dart__env.field) != 0) {                  \
      DART_LOG_ERROR("ignoring malformed %s='%s', using default '%s'", #NAME,  \
                     val_, def);                                               \
      dart__env_parse(kind, def, &dart__env.field);                            \
      rc = -1;                                                                 \
    }                                                                          \
  }
  DART__ENV_TABLE(DART__ENV_LOAD)
#undef DART__ENV_LOAD
  return rc;
}

static void dart__env_format(dart__env_kind_t kind, const void *field,
                             char *buf, size_t len)
{
  switch (kind) {
  case DART__ENV_BOOL: snprintf(buf, len, "%d", *(const int *)field); break;
  case DART__ENV_INT: snprintf(buf, len, "%ld", *(const long *)field); break;
  case DART__ENV_SIZE: snprintf(buf, len, "%zu", *(const size_t *)field); break;
  case DART__ENV_STR:
    snprintf(buf, len, "%s", *(const char *const *)field);
    break;
  }
}

void dart__env_print(FILE *out)
{
  char buf[64];
  fprintf(out, "DART configuration (environment variables):\n");
#define DART__ENV_PRINT(NAME, kind, ctype, field, def, agree, doc)             \
  dart__env_format(kind, &dart__env.field, buf, sizeof buf);                   \
  fprintf(out, "  %-26s = %-12s (default %s)\n", #NAME, buf, def);
  DART__ENV_TABLE(DART__ENV_PRINT)
#undef DART__ENV_PRINT
}

static const char *dart__env_kind_name(dart__env_kind_t kind)
{
  switch (kind) {
  case DART__ENV_BOOL: return "bool";
  case DART__ENV_INT: return "integer";
  case DART__ENV_SIZE: return "size";
  case DART__ENV_STR: return "string";
  }
  return "?";
}

static const char *dart__env_agree_name(dart__env_agree_t agree)
{
  switch (agree) {
  case DART__ENV_LOCAL: return "local";
  case DART__ENV_UNIT0: return "must agree: unit 0's";
  case DART__ENV_FAIL: return "must agree: fail";
  }
  return "?";
}

void dart__env_write_markdown(FILE *out)
{
  fprintf(out,
          "# DART environment variables\n\n"
          "<!-- Generated from the table in src/base/dart_env.h by "
          "`dart-env-doc`; a test keeps this file in sync. -->\n\n"
          "All knobs are read once in `dart_init`. Set `DART_VERBOSE=1` to "
          "print the effective values on unit 0.\n"
          "Booleans accept 1/0, yes/no, on/off, true/false; sizes accept the "
          "suffixes K, M, G, T (powers of 1024).\n\n"
          "Units must agree on some variables (column *Units*): those that "
          "change what units do together (which collectives run, the memory "
          "layout, the lock or progress protocol). `dart_init` compares them "
          "over all units in one step (an allreduce of their fingerprints; "
          "only where they differ are values exchanged: unit 0's and those "
          "of the lowest other unit that differs). A mismatch is reported on "
          "every unit, one line per variable naming both values, and then "
          "either unit 0's value is used by every unit (*unit 0's*) or "
          "`dart_init` returns `DART_ERR_INVAL` on every unit (*fail*). "
          "Values are compared as parsed (`1` and `yes` are the same "
          "boolean; strings are compared as written). *local*: each unit "
          "uses its own value.\n\n"
          "| Variable | Type | Default | Units | Meaning |\n"
          "|---|---|---|---|---|\n");
#define DART__ENV_DOC(NAME, kind, ctype, field, def, agree, doc)               \
  fprintf(out, "| `%s` | %s | `%s` | %s | %s |\n", #NAME,                      \
          dart__env_kind_name(kind), def, dart__env_agree_name(agree), doc);
  DART__ENV_TABLE(DART__ENV_DOC)
#undef DART__ENV_DOC
}
