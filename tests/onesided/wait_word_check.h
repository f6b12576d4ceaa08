/*
 * Checks of the process-wide wait word (src/base/dart_watch.h) for tests linked
 * with the static library: the low 16 bits count waits under way, each
 * finished wait adds 1 << 16 in all. Lost updates between threads would
 * leave a remainder in the low bits or a wrong count.
 */
#ifndef WAIT_WORD_CHECK_H
#define WAIT_WORD_CHECK_H

#include "dart_watch.h"
#include "os_common.h"

static inline unsigned long ww_now(void)
{
  return __atomic_load_n(&dart__wait_word, __ATOMIC_RELAXED);
}

/* A barrier is exactly one wait: the word moves by one finished wait and
 * no wait is left under way. */
static inline void ww_check_barrier(void)
{
  unsigned long w0 = ww_now();
  os_barrier();
  unsigned long w1 = ww_now();
  TEST_CHECK_MSG(w1 - w0 == (1UL << 16), "wait word moved by %#lx, not 0x10000",
                 w1 - w0);
}

/* Since w0 only whole waits happened and none is under way. */
static inline void ww_check_settled(unsigned long w0)
{
  unsigned long w1 = ww_now();
  TEST_CHECK_MSG((w1 & 0xFFFFUL) == 0, "%lu waits still counted as under way",
                 w1 & 0xFFFFUL);
  TEST_CHECK_MSG(((w1 - w0) & 0xFFFFUL) == 0,
                 "wait word moved by %#lx: not whole waits", w1 - w0);
}

#endif
