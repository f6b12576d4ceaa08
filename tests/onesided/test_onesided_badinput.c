/*
 * Bad input to the one-sided calls: every case returns the documented
 * code and logs exactly one line (stderr is captured per call).
 */
#include <stdint.h>
#include <unistd.h>

#include "os_common.h"

static FILE *capture;

/* Runs call with stderr redirected; returns the number of lines logged. */
#define LOGGED(ret, call)                                                      \
  ({                                                                           \
    fflush(stderr);                                                            \
    int saved_ = dup(2);                                                       \
    FILE *f_ = tmpfile();                                                      \
    dup2(fileno(f_), 2);                                                       \
    ret = (call);                                                              \
    fflush(stderr);                                                            \
    dup2(saved_, 2);                                                           \
    close(saved_);                                                             \
    rewind(f_);                                                                \
    int n_ = 0, c_;                                                            \
    while ((c_ = fgetc(f_)) != EOF) n_ += (c_ == '\n');                        \
    fclose(f_);                                                                \
    n_;                                                                        \
  })

#define BAD(call, code)                                                        \
  do {                                                                         \
    int r_;                                                                    \
    int lines_ = LOGGED(r_, call);                                             \
    TEST_CHECK_MSG(r_ == (int)(code), "%s returned %d, want %d", #call, r_,    \
                   (int)(code));                                               \
    TEST_CHECK_MSG(lines_ == 1, "%s logged %d lines, want 1", #call, lines_);  \
  } while (0)

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  (void)capture;
  dart_gptr_t g, freed;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_BYTE, &g));
  TEST_OK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_BYTE, &freed));
  TEST_OK(dart_team_memfree(freed));
  int peer = (me + 1) % nunits;
  dart_gptr_t t = os_at(g, peer, 0);
  long buf[16] = {0}, res = 0;
  dart_handle_t h = DART_HANDLE_NULL;

  /* NULL buffers; nelem 0 is a no-op even with NULL */
  BAD(dart_put(t, NULL, 4, DART_TYPE_LONG, DART_TYPE_LONG), DART_ERR_INVAL);
  BAD(dart_get_blocking(NULL, t, 4, DART_TYPE_LONG, DART_TYPE_LONG),
      DART_ERR_INVAL);
  BAD(dart_put_handle(t, NULL, 1, DART_TYPE_LONG, DART_TYPE_LONG, &h),
      DART_ERR_INVAL);
  TEST_CHECK(h == DART_HANDLE_NULL);
  BAD(dart_put_handle(t, buf, 1, DART_TYPE_LONG, DART_TYPE_LONG, NULL),
      DART_ERR_INVAL);
  TEST_OK(dart_put(t, NULL, 0, DART_TYPE_LONG, DART_TYPE_LONG));
  TEST_OK(dart_get(NULL, t, 0, DART_TYPE_LONG, DART_TYPE_LONG));
  BAD(dart_accumulate(t, NULL, 1, DART_TYPE_LONG, DART_OP_SUM), DART_ERR_INVAL);
  BAD(dart_fetch_and_op(t, buf, NULL, DART_TYPE_LONG, DART_OP_SUM),
      DART_ERR_INVAL);
  BAD(dart_fetch_and_op(t, NULL, &res, DART_TYPE_LONG, DART_OP_SUM),
      DART_ERR_INVAL);
  BAD(dart_compare_and_swap(t, buf, NULL, &res, DART_TYPE_LONG),
      DART_ERR_INVAL);

  /* datatypes */
  BAD(dart_put_blocking(t, buf, 1, DART_TYPE_UNDEFINED, DART_TYPE_UNDEFINED),
      DART_ERR_INVAL);
  BAD(dart_get(buf, t, 1, DART_TYPE_LONG, (dart_datatype_t)99999),
      DART_ERR_INVAL);
  BAD(dart_put(t, buf, 1, DART_TYPE_INT, DART_TYPE_LONG), DART_ERR_INVAL);
  dart_datatype_t strided, gone;
  TEST_OK(dart_type_create_strided(DART_TYPE_INT, 4, 2, &strided));
  TEST_OK(dart_type_create_strided(DART_TYPE_INT, 4, 2, &gone));
  dart_datatype_t gone_copy = gone;
  TEST_OK(dart_type_destroy(&gone));
  BAD(dart_put(t, buf, 2, DART_TYPE_INT, gone_copy), DART_ERR_INVAL);
  BAD(dart_put(t, buf, 2, DART_TYPE_DOUBLE, strided), DART_ERR_INVAL);
  BAD(dart_put(t, buf, 3, DART_TYPE_INT, strided), DART_ERR_INVAL); /* not x2 */
  BAD(dart_accumulate(t, buf, 2, strided, DART_OP_SUM), DART_ERR_INVAL);

  /* targets */
  BAD(dart_put_blocking(DART_GPTR_NULL, buf, 1, DART_TYPE_LONG, DART_TYPE_LONG),
      DART_ERR_INVAL);
  BAD(dart_get_blocking(buf, os_at(freed, peer, 0), 1, DART_TYPE_LONG,
                        DART_TYPE_LONG),
      DART_ERR_INVAL);
  dart_gptr_t never = t;
  never.segid = 1234;
  BAD(dart_put(never, buf, 1, DART_TYPE_LONG, DART_TYPE_LONG), DART_ERR_INVAL);
  never.segid = 300; /* beyond the table's embedded chunk */
  BAD(dart_put(never, buf, 1, DART_TYPE_LONG, DART_TYPE_LONG), DART_ERR_INVAL);
  never.segid = -5; /* no such registration */
  BAD(dart_get(buf, never, 1, DART_TYPE_LONG, DART_TYPE_LONG), DART_ERR_INVAL);
  never = t;
  never.teamid = -1;
  BAD(dart_put_blocking(never, buf, 1, DART_TYPE_LONG, DART_TYPE_LONG),
      DART_ERR_INVAL);
  never.teamid = 4000; /* no such team */
  BAD(dart_fetch_and_op(never, buf, &res, DART_TYPE_LONG, DART_OP_SUM),
      DART_ERR_INVAL);
  /* counts whose byte size overflows (the inline path must not take them) */
  BAD(dart_put(t, buf, SIZE_MAX / 2, DART_TYPE_LONG, DART_TYPE_LONG),
      DART_ERR_INVAL);
  BAD(dart_get(buf, t, (size_t)1 << 60, DART_TYPE_LONG, DART_TYPE_LONG),
      DART_ERR_INVAL);
  /* Counts and offsets that pass the inline test of every variant but
   * fail its range check: 2^58 bytes, and one byte at the portion's end. */
  size_t huge = (size_t)1 << 58;
  dart_gptr_t end = os_at(g, peer, 64);
  BAD(dart_put(t, buf, huge, DART_TYPE_BYTE, DART_TYPE_BYTE), DART_ERR_INVAL);
  BAD(dart_get(buf, end, 1, DART_TYPE_BYTE, DART_TYPE_BYTE), DART_ERR_INVAL);
  BAD(dart_put_blocking(end, buf, 1, DART_TYPE_BYTE, DART_TYPE_BYTE),
      DART_ERR_INVAL);
  BAD(dart_get_blocking(buf, t, huge, DART_TYPE_BYTE, DART_TYPE_BYTE),
      DART_ERR_INVAL);
  BAD(dart_put_handle(end, buf, 1, DART_TYPE_BYTE, DART_TYPE_BYTE, &h),
      DART_ERR_INVAL);
  BAD(dart_get_handle(buf, t, huge, DART_TYPE_BYTE, DART_TYPE_BYTE, &h),
      DART_ERR_INVAL);
  TEST_CHECK(h == DART_HANDLE_NULL);
  BAD(dart_put(os_at(g, nunits, 0), buf, 1, DART_TYPE_LONG, DART_TYPE_LONG),
      DART_ERR_INVAL);
  BAD(dart_put(os_at(g, peer, 60), buf, 1, DART_TYPE_LONG, DART_TYPE_LONG),
      DART_ERR_INVAL);
  BAD(dart_get(buf, os_at(g, peer, 0), 9, DART_TYPE_LONG, DART_TYPE_LONG),
      DART_ERR_INVAL);
  BAD(dart_get(buf, os_at(g, peer, 8), 4, DART_TYPE_LONG, strided),
      DART_ERR_INVAL);
  TEST_OK(dart_get(buf, os_at(g, peer, 0), 8, DART_TYPE_LONG, DART_TYPE_LONG));
  TEST_OK(dart_flush_local(t));
  BAD(dart_fetch_and_op(os_at(g, peer, 64), buf, &res, DART_TYPE_LONG,
                        DART_OP_SUM),
      DART_ERR_INVAL);
  BAD(dart_flush(DART_GPTR_NULL), DART_ERR_INVAL);
  BAD(dart_flush(os_at(g, nunits, 0)), DART_ERR_INVAL);
  BAD(dart_flush_local_all(os_at(freed, 0, 0)), DART_ERR_INVAL);
  TEST_OK(dart_flush_all(os_at(g, nunits + 5, 0))); /* unit ignored */

  /* operations */
  BAD(dart_accumulate(t, buf, 1, DART_TYPE_LONG, DART_OP_UNDEFINED),
      DART_ERR_INVAL);
  BAD(dart_accumulate(t, buf, 1, DART_TYPE_LONG, DART_OP_MINMAX),
      DART_ERR_INVAL);
  BAD(dart_fetch_and_op(t, buf, &res, DART_TYPE_LONG, DART_OP_LAST),
      DART_ERR_INVAL);
  BAD(dart_fetch_and_op(t, buf, &res, DART_TYPE_LONG, (dart_operation_t)4711),
      DART_ERR_INVAL);
  BAD(dart_accumulate(t, buf, 1, DART_TYPE_DOUBLE, DART_OP_BAND),
      DART_ERR_INVAL);
  BAD(dart_compare_and_swap(t, buf, buf, &res, DART_TYPE_DOUBLE),
      DART_ERR_INVAL);
  BAD(dart_fetch_and_op(os_at(g, peer, 4), buf, &res, DART_TYPE_LONG,
                        DART_OP_SUM),
      DART_ERR_INVAL); /* misaligned */
  dart_operation_t user_op = DART_OP_LAST + 1;
  BAD(dart_accumulate(t, buf, 1, DART_TYPE_LONG, user_op), DART_ERR_INVAL);

  os_barrier();
  TEST_OK(dart_type_destroy(&strided));
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_exit());
  if (me == 0) printf("test_onesided_badinput: OK (%d units)\n", nunits);
  return 0;
}
