/*
 * Internal: when the progress thread drives MPI and how long it sleeps
 * (transport/progress.c). Pure, so that tests/unit checks it without MPI.
 *
 * The thread looks at the process's wait word (dart_watch.h: low 16 bits
 * the waits under way, the bits above the finished ones) once per sleep:
 *  - a wait under way, or one finished since the last look: the process
 *    drives progress itself; stay out of MPI and double the sleep, up to
 *    DART__PROGRESS_IDLE_FACTOR intervals;
 *  - the same wait still under way at DART__PROGRESS_STALE_LOOKS looks in
 *    a row: drive anyway (a long wait, or one whose end was never
 *    recorded, must not keep peers waiting);
 *  - otherwise (the process is away from DART): drive, sleep one interval.
 */
#ifndef DART__TRANSPORT_PROGRESS_POLICY_H
#define DART__TRANSPORT_PROGRESS_POLICY_H

#include <stdbool.h>

#define DART__PROGRESS_IDLE_FACTOR 8
#define DART__PROGRESS_STALE_LOOKS 4
#define DART__WAIT_DEPTH_MASK 0xFFFFUL

typedef struct {
  unsigned long seen; /* wait word at the last look        */
  long sleep_us;      /* sleep after this look              */
  int stale;          /* looks at one unchanged wait        */
} dart__progress_policy_t;

static inline void dart__progress_policy_init(dart__progress_policy_t *p,
                                              unsigned long word, long base)
{
  p->seen = word;
  p->sleep_us = base;
  p->stale = 0;
}

/* One look at wait word `now`; returns true if the thread drives MPI
 * progress now. p->sleep_us is the sleep that follows. */
static inline bool dart__progress_policy_step(dart__progress_policy_t *p,
                                              unsigned long now, long base)
{
  bool waiting = (now & DART__WAIT_DEPTH_MASK) != 0;
  bool busy = waiting || now != p->seen;
  p->stale = (waiting && now == p->seen) ? p->stale + 1 : 0;
  p->seen = now;
  if (busy && p->stale < DART__PROGRESS_STALE_LOOKS) {
    long max = base * DART__PROGRESS_IDLE_FACTOR;
    p->sleep_us = p->sleep_us * 2 < max ? p->sleep_us * 2 : max;
    return false;
  }
  p->stale = 0;
  p->sleep_us = base;
  return true;
}

#endif /* DART__TRANSPORT_PROGRESS_POLICY_H */
