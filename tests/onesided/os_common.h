/* Shared helpers of the one-sided communication tests. */
#ifndef OS_COMMON_H
#define OS_COMMON_H

#include <dash/dart/if/dart.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dart_test.h"

static int me, nunits;

/* Fills me and nunits (after dart_init / dart_init_thread). */
static inline void os_ids(void)
{
  dart_global_unit_t id;
  size_t sz;
  TEST_OK(dart_myid(&id));
  TEST_OK(dart_size(&sz));
  me = id.id;
  nunits = (int)sz;
}

static inline void os_init(int *argc, char ***argv)
{
  TEST_OK(dart_init(argc, argv));
  os_ids();
}

static inline void os_barrier(void)
{
  TEST_OK(dart_barrier(DART_TEAM_ALL));
}

static inline double os_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* gptr to byte offset off of unit u's portion of a collective segment. */
static inline dart_gptr_t os_at(dart_gptr_t g, int u, size_t off)
{
  g.unitid = u;
  g.addr_or_offs.offset = off;
  return g;
}

/* Local address of the caller's portion of a collective segment. */
static inline void *os_local(dart_gptr_t g)
{
  void *p = NULL;
  TEST_OK(dart_gptr_getaddr(os_at(g, me, 0), &p));
  TEST_CHECK(p != NULL);
  return p;
}

static const dart_datatype_t os_basic_types[] = {
    DART_TYPE_BYTE,     DART_TYPE_SHORT,      DART_TYPE_INT,
    DART_TYPE_UINT,     DART_TYPE_LONG,       DART_TYPE_ULONG,
    DART_TYPE_LONGLONG, DART_TYPE_ULONGLONG,  DART_TYPE_FLOAT,
    DART_TYPE_DOUBLE,   DART_TYPE_LONG_DOUBLE};
#define OS_NTYPES (sizeof os_basic_types / sizeof os_basic_types[0])

static inline size_t os_type_size(dart_datatype_t t)
{
  switch (t) {
  case DART_TYPE_BYTE: return 1;
  case DART_TYPE_SHORT: return sizeof(short);
  case DART_TYPE_INT:
  case DART_TYPE_UINT: return sizeof(int);
  case DART_TYPE_LONG:
  case DART_TYPE_ULONG: return sizeof(long);
  case DART_TYPE_LONGLONG:
  case DART_TYPE_ULONGLONG: return sizeof(long long);
  case DART_TYPE_FLOAT: return sizeof(float);
  case DART_TYPE_DOUBLE: return sizeof(double);
  default: return sizeof(long double);
  }
}

#endif /* OS_COMMON_H */
