/*
 * tool_count: a small tool library on DART's profiling interface
 * (docs/profiling.md). It defines a few dart_* functions itself, counts each
 * call, and passes it on to the pdart_* twin that does the real work. At
 * dart_exit every unit prints one line with its own counts, and unit 0 adds
 * one line with the sums over all units, before DART shuts down.
 *
 * Use it either way:
 *   LD_PRELOAD=libdart-tool-count.so mpiexec -n 4 ./program
 *   link it before DART: cc program.o -ldart-tool-count -ldart-mpi
 *   (or, with the static library, tool_count.o before libdart-mpi.a).
 *
 * Output (unit 0, 4 units that made 100 dart_put_blocking each):
 *   tool_count: total: dart_put_blocking=400 dart_get_blocking=0 ...
 *   tool_count: min: dart_put_blocking=100 dart_get_blocking=0 ...
 *   tool_count: max: dart_put_blocking=100 dart_get_blocking=0 ...
 * Calls that DART makes internally use the pdart_* names and are not seen.
 */
#include <dash/dart/if/dart_profiling.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum {
  TC_PUT_BLOCKING,
  TC_GET_BLOCKING,
  TC_PUT,
  TC_GET,
  TC_FLUSH,
  TC_BARRIER,
  TC_ALLREDUCE,
  TC_BCAST,
  TC_N
};

static const char *const tc_names[TC_N] = {
    "dart_put_blocking", "dart_get_blocking", "dart_put",       "dart_get",
    "dart_flush",        "dart_barrier",      "dart_allreduce", "dart_bcast"};

/* DART may be called from several threads: relaxed atomic increments. */
static unsigned long long tc_count[TC_N];

static void tc_hit(int which)
{
  __atomic_fetch_add(&tc_count[which], 1ULL, __ATOMIC_RELAXED);
}

static void tc_format(char *line, size_t cap, const char *who,
                      const unsigned long long *counts)
{
  int len = snprintf(line, cap, "tool_count: %s:", who);
  for (int i = 0; i < TC_N && len > 0 && (size_t)len < cap; ++i) {
    len += snprintf(line + len, cap - (size_t)len, " %s=%llu", tc_names[i],
                    counts[i]);
  }
  if (len > 0 && (size_t)len + 1 < cap) {
    line[len] = '\n';
    line[len + 1] = '\0';
  }
}

dart_ret_t dart_put_blocking(dart_gptr_t gptr, const void *src, size_t nelem,
                             dart_datatype_t src_type, dart_datatype_t dst_type)
{
  tc_hit(TC_PUT_BLOCKING);
  return pdart_put_blocking(gptr, src, nelem, src_type, dst_type);
}

dart_ret_t dart_get_blocking(void *dest, dart_gptr_t gptr, size_t nelem,
                             dart_datatype_t src_type, dart_datatype_t dst_type)
{
  tc_hit(TC_GET_BLOCKING);
  return pdart_get_blocking(dest, gptr, nelem, src_type, dst_type);
}

dart_ret_t dart_put(dart_gptr_t gptr, const void *src, size_t nelem,
                    dart_datatype_t src_type, dart_datatype_t dst_type)
{
  tc_hit(TC_PUT);
  return pdart_put(gptr, src, nelem, src_type, dst_type);
}

dart_ret_t dart_get(void *dest, dart_gptr_t gptr, size_t nelem,
                    dart_datatype_t src_type, dart_datatype_t dst_type)
{
  tc_hit(TC_GET);
  return pdart_get(dest, gptr, nelem, src_type, dst_type);
}

dart_ret_t dart_flush(dart_gptr_t gptr)
{
  tc_hit(TC_FLUSH);
  return pdart_flush(gptr);
}

dart_ret_t dart_barrier(dart_team_t team)
{
  tc_hit(TC_BARRIER);
  return pdart_barrier(team);
}

dart_ret_t dart_allreduce(const void *sendbuf, void *recvbuf, size_t nelem,
                          dart_datatype_t dtype, dart_operation_t op,
                          dart_team_t team)
{
  tc_hit(TC_ALLREDUCE);
  return pdart_allreduce(sendbuf, recvbuf, nelem, dtype, op, team);
}

dart_ret_t dart_bcast(void *buf, size_t nelem, dart_datatype_t dtype,
                      dart_team_unit_t root, dart_team_t team)
{
  tc_hit(TC_BCAST);
  return pdart_bcast(buf, nelem, dtype, root, team);
}

/* The summary, on unit 0: the sum, the smallest and the largest count of
 * each call over the units. The tool's own collectives go straight to
 * pdart_allreduce, so they are not counted. */
dart_ret_t dart_exit(void)
{
  static const struct {
    const char *who;
    dart_operation_t op;
  } rows[] = {
      {"total", DART_OP_SUM}, {"min", DART_OP_MIN}, {"max", DART_OP_MAX}};
  unsigned long long mine[TC_N], all[TC_N];
  char line[512];
  dart_global_unit_t me = {.id = -1};
  for (int i = 0; i < TC_N; ++i) {
    mine[i] = __atomic_load_n(&tc_count[i], __ATOMIC_RELAXED);
  }
  if (pdart_initialized() && pdart_myid(&me) == DART_OK) {
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r) {
      if (pdart_allreduce(mine, all, TC_N, DART_TYPE_ULONGLONG, rows[r].op,
                          DART_TEAM_ALL) != DART_OK) {
        break;
      }
      if (me.id == 0) {
        tc_format(line, sizeof line, rows[r].who, all);
        fputs(line, stdout);
        fflush(stdout);
      }
    }
  }
  return pdart_exit();
}
