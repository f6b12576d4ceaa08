/*
 * Minimal assertion helpers shared by DART's tests.
 *
 * TEST_CHECK(cond): on failure prints the unit, file, line and expression,
 * then terminates the whole job (so a failing unit never leaves the others
 * hanging in a collective). TEST_OK(call) checks for DART_OK.
 */
#ifndef DART_TEST_H
#define DART_TEST_H

#include <stdio.h>
#include <stdlib.h>

#ifdef DART_TEST_NO_DART
#define TEST_FAIL_EXIT() exit(1)
#define TEST_UNIT_ID() (-1)
#else
#include <dash/dart/if/dart.h>
static inline int dart_test_unit_id(void)
{
  dart_global_unit_t me = {-1};
  if (dart_initialized()) dart_myid(&me);
  return me.id;
}
#define TEST_FAIL_EXIT() dart_abort(1)
#define TEST_UNIT_ID() dart_test_unit_id()
#endif

#define TEST_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "[unit %d] FAIL %s:%d: %s\n", TEST_UNIT_ID(), __FILE__,  \
              __LINE__, #cond);                                                \
      fflush(stderr);                                                          \
      TEST_FAIL_EXIT();                                                        \
    }                                                                          \
  } while (0)

#define TEST_CHECK_MSG(cond, ...)                                              \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "[unit %d] FAIL %s:%d: %s: ", TEST_UNIT_ID(), __FILE__,  \
              __LINE__, #cond);                                                \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      fflush(stderr);                                                          \
      TEST_FAIL_EXIT();                                                        \
    }                                                                          \
  } while (0)

#define TEST_EQ_RET(call, expected)                                            \
  do {                                                                         \
    int test_ret_ = (int)(call);                                               \
    TEST_CHECK_MSG(test_ret_ == (int)(expected), "%s returned %d, want %d",    \
                   #call, test_ret_, (int)(expected));                         \
  } while (0)

#define TEST_OK(call) TEST_EQ_RET(call, 0)

#endif /* DART_TEST_H */
