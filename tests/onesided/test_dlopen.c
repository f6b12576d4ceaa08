/*
 * DART loaded with dlopen by a program that does not link it (as from a
 * language binding): the library's initial-exec TLS (the per-thread mark
 * of pending shared-memory accesses) must load, and put, get, atomics and
 * flush must work. Every call goes through a pointer from dlsym.
 */
#include <dash/dart/if/dart.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define FAIL(...)                                                              \
  do {                                                                         \
    fprintf(stderr, "test_dlopen: " __VA_ARGS__);                              \
    fputc('\n', stderr);                                                       \
    exit(1);                                                                   \
  } while (0)

/* Resolves symbol `name` of handle h into a pointer of name's own type. */
#define LOAD(h, name)                                                          \
  __typeof__(&name) p_##name = (__typeof__(&name))dlsym(h, #name);             \
  if (p_##name == NULL) FAIL("dlsym(%s): %s", #name, dlerror())

#define OK(call)                                                               \
  do {                                                                         \
    dart_ret_t r_ = (call);                                                    \
    if (r_ != DART_OK) FAIL("%s returned %d", #call, (int)r_);                 \
  } while (0)

int main(int argc, char **argv)
{
  void *h = dlopen(DART_LIBRARY_FILE, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) FAIL("dlopen(%s): %s", DART_LIBRARY_FILE, dlerror());
  LOAD(h, dart_init);
  LOAD(h, dart_exit);
  LOAD(h, dart_myid);
  LOAD(h, dart_size);
  LOAD(h, dart_team_memalloc_aligned);
  LOAD(h, dart_team_memfree);
  LOAD(h, dart_put);
  LOAD(h, dart_put_blocking);
  LOAD(h, dart_get_blocking);
  LOAD(h, dart_flush);
  LOAD(h, dart_fetch_and_op);
  LOAD(h, dart_barrier);

  OK(p_dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t n;
  OK(p_dart_myid(&me));
  OK(p_dart_size(&n));
  dart_gptr_t g;
  OK(p_dart_team_memalloc_aligned(DART_TEAM_ALL, 2, DART_TYPE_LONG, &g));
  /* Fresh memory has no defined contents (MPI_Alloc_mem is malloc, which
   * AddressSanitizer fills with 0xbe): every unit zeroes its own words. */
  long zero[2] = {0, 0};
  dart_gptr_t own = g;
  own.unitid = me.id;
  OK(p_dart_put_blocking(own, zero, 2, DART_TYPE_LONG, DART_TYPE_LONG));
  OK(p_dart_barrier(DART_TEAM_ALL));
  /* word 0 of the next unit: my id + 1; word 1 of unit 0: +1 per unit */
  dart_gptr_t next = g, counter = g;
  next.unitid = (me.id + 1) % (int)n;
  counter.unitid = 0;
  counter.addr_or_offs.offset = sizeof(long);
  long mine = me.id + 1, one = 1, old = 0;
  OK(p_dart_put(next, &mine, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  OK(p_dart_flush(next));
  OK(p_dart_fetch_and_op(counter, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
  OK(p_dart_flush(counter));
  OK(p_dart_barrier(DART_TEAM_ALL));
  long got = 0, total = 0;
  dart_gptr_t self = g;
  self.unitid = me.id;
  OK(p_dart_get_blocking(&got, self, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  OK(p_dart_get_blocking(&total, counter, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  long want = (me.id + (long)n - 1) % (long)n + 1;
  if (got != want) FAIL("unit %d: word 0 is %ld, want %ld", me.id, got, want);
  if (total != (long)n) FAIL("counter is %ld, want %zu", total, n);
  if (old < 0 || old >= (long)n) FAIL("fetched %ld, want 0..%zu", old, n - 1);
  OK(p_dart_barrier(DART_TEAM_ALL));
  OK(p_dart_team_memfree(g));
  OK(p_dart_exit());
  if (me.id == 0) printf("test_dlopen: OK (%zu units)\n", n);
  dlclose(h);
  return 0;
}
