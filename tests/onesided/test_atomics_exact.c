/*
 * Exactness of atomics (issue 15, items 4 and 7):
 *  - long double (x86-64: 10 value bytes, 6 padding bytes): no atomic op
 *    ever writes a byte the user did not write. REPLACE stores the 16
 *    bytes of the origin exactly; every other op keeps the target's
 *    padding bytes; fetched old values are the target's 16 bytes exactly.
 *    On team allocations, registrations and dart_memalloc memory.
 *  - alignment is checked on the target's address, not on the offset: a
 *    registration that starts 4 bytes past an 8-byte boundary takes an
 *    8-byte atomic at offset 4 and rejects one at offset 0.
 *  - native ops and compare-and-swap emulations on one 4-byte location at
 *    the same time (SUM and MAX race, result exact).
 */
#include "os_common.h"

#if defined(__x86_64__) || defined(__i386__)
#define LD_VALUE_BYTES 10 /* x87 80-bit extended precision */
#endif

enum { SLOT = 16, NSLOTS = 8 };
static const unsigned char TPAD = 0xA5, VPAD = 0x5A, RFILL = 0xEE;

/* A long double v in 16 bytes whose bytes past the value are pad. */
static void ld_bytes(unsigned char *out, long double v, unsigned char pad)
{
  memset(out, pad, SLOT);
  memcpy(out, &v, LD_VALUE_BYTES);
}

static long double ld_value(const unsigned char *in)
{
  long double v = 0;
  memcpy(&v, in, LD_VALUE_BYTES);
  return v;
}

static long double ld_expect(long double a, long double b, dart_operation_t op)
{
  switch (op) {
  case DART_OP_SUM: return a + b;
  case DART_OP_PROD: return a * b;
  case DART_OP_MIN: return a < b ? a : b;
  case DART_OP_MAX: return a > b ? a : b;
  case DART_OP_REPLACE: return b;
  default: return a;
  }
}

static void dump(const char *what, const unsigned char *b)
{
  fprintf(stderr, "[unit %d] %s:", me, what);
  for (int i = 0; i < SLOT; i++) fprintf(stderr, " %02x", b[i]);
  fprintf(stderr, "\n");
}

/* One op on one slot (fetching or accumulating); checks every byte. */
static void ld_one(dart_gptr_t slot, dart_operation_t op, bool fetch,
                   const char *what)
{
  const long double a = 6.5L, b = 3.25L;
  _Alignas(16) unsigned char init[SLOT], val[SLOT], old[SLOT], got[SLOT];
  ld_bytes(init, a, TPAD);
  ld_bytes(val, b, VPAD);
  memset(old, RFILL, SLOT);
  TEST_OK(dart_put_blocking(slot, init, SLOT, DART_TYPE_BYTE, DART_TYPE_BYTE));
  if (fetch)
    TEST_OK(dart_fetch_and_op(slot, val, old, DART_TYPE_LONG_DOUBLE, op));
  else
    TEST_OK(dart_accumulate(slot, val, 1, DART_TYPE_LONG_DOUBLE, op));
  TEST_OK(dart_flush(slot));
  TEST_OK(dart_get_blocking(got, slot, SLOT, DART_TYPE_BYTE, DART_TYPE_BYTE));
  unsigned char want[SLOT];
  if (op == DART_OP_REPLACE)
    memcpy(want, val, SLOT); /* bit-exact: the bytes the user wrote */
  else
    ld_bytes(want, ld_expect(a, b, op), TPAD); /* target padding kept */
  bool ok = memcmp(got, want, SLOT) == 0;
  if (!ok) {
    dump("target", got);
    dump("want  ", want);
  }
  TEST_CHECK_MSG(ok, "%s: long double op %d (%s) wrote bytes it should not",
                 what, (int)op, fetch ? "fetch_and_op" : "accumulate");
  if (fetch) {
    ok = memcmp(old, init, SLOT) == 0;
    if (!ok) dump("old", old);
    TEST_CHECK_MSG(ok,
                   "%s: long double op %d fetched %Lg, not the target's "
                   "16 bytes",
                   what, (int)op, ld_value(old));
  }
}

/*
 * Unit me works on slot me of unit (me + k) % nunits's memory (slot is
 * that gptr for unit 0, offset 0), one unit after the other: the others
 * wait in a barrier, which drives MPI progress for the worker (this test
 * is about bytes, not about contention).
 */
static void test_ld_padding(dart_gptr_t slot0, int nops, const char *what)
{
#ifdef LD_VALUE_BYTES
  static const dart_operation_t ops[] = {DART_OP_REPLACE, DART_OP_SUM,
                                         DART_OP_MAX,     DART_OP_MIN,
                                         DART_OP_PROD,    DART_OP_NO_OP};
  for (int k = 0; k < (nunits > 1 ? 2 : 1); k++) {
    for (int turn = 0; turn < nunits; turn++) {
      if (turn == me) {
        dart_gptr_t slot = slot0;
        slot.unitid = (me + k) % nunits;
        slot.addr_or_offs.offset += (uint64_t)me * SLOT;
        for (int i = 0; i < nops; i++) {
          ld_one(slot, ops[i], true, what);
          if (ops[i] != DART_OP_NO_OP) ld_one(slot, ops[i], false, what);
        }
      }
      os_barrier();
    }
  }
#else
  (void)slot0;
  (void)nops;
  if (me == 0)
    printf("test_atomics_exact: %s: long double padding not checked (no "
           "x87 extended type on this platform)\n",
           what);
  os_barrier();
#endif
}

/* Registration 4 bytes past an 8-byte boundary: the 8-byte element at
 * offset 4 is aligned in memory, the one at offset 0 is not. */
static void test_reg_alignment(void)
{
  _Alignas(16) static char buf[64 + 8];
  char *addr = buf + 4;
  memset(buf, 0, sizeof buf);
  dart_gptr_t r;
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 64, DART_TYPE_BYTE, addr, &r));
  os_barrier();
  dart_gptr_t t = os_at(r, (me + 1) % nunits, 4);
  long long one = 1, old = -1;
  TEST_OK(dart_fetch_and_op(t, &one, &old, DART_TYPE_LONGLONG, DART_OP_SUM));
  TEST_OK(dart_flush(t));
  TEST_OK(dart_accumulate(t, &one, 1, DART_TYPE_LONGLONG, DART_OP_SUM));
  TEST_OK(dart_flush(t));
  t.addr_or_offs.offset = 0; /* 4 mod 8 in memory */
  TEST_EQ_RET(dart_fetch_and_op(t, &one, &old, DART_TYPE_LONGLONG, DART_OP_SUM),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_accumulate(t, &one, 1, DART_TYPE_LONGLONG, DART_OP_SUM),
              DART_ERR_INVAL);
  long long cmp = 0;
  TEST_EQ_RET(dart_compare_and_swap(t, &one, &cmp, &old, DART_TYPE_LONGLONG),
              DART_ERR_INVAL);
  os_barrier();
  long long v;
  memcpy(&v, addr + 4, sizeof v);
  TEST_CHECK_MSG(v == 2, "registered counter is %lld, want 2", v);
  int first; /* the 4 bytes before the counter */
  memcpy(&first, addr, sizeof first);
  TEST_CHECK_MSG(first == 0, "misaligned target was written (%d)", first);
  os_barrier();
  TEST_OK(dart_team_memderegister(r));
}

/* SUM (native where MPI has it) and MAX (compare-and-swap loop with Open
 * MPI) on the same int from every unit at once: both results exact. */
static void test_mixed_ops(dart_gptr_t g, const char *what)
{
  enum { ITER = 50 };
  dart_gptr_t sum = os_at(g, 0, (size_t)NSLOTS * SLOT);
  dart_gptr_t mx = os_at(g, 0, (size_t)NSLOTS * SLOT + 4);
  int zero[2] = {0, 0};
  if (me == 0)
    TEST_OK(dart_put_blocking(sum, zero, 2, DART_TYPE_INT, DART_TYPE_INT));
  os_barrier();
  int one = 1;
  for (int i = 0; i < ITER; i++) {
    int v = me * ITER + i, old;
    TEST_OK(dart_accumulate(sum, &one, 1, DART_TYPE_INT, DART_OP_SUM));
    TEST_OK(dart_accumulate(sum, &v, 1, DART_TYPE_INT, DART_OP_MAX));
    TEST_OK(dart_fetch_and_op(mx, &v, &old, DART_TYPE_INT, DART_OP_MAX));
    TEST_OK(dart_fetch_and_op(mx, &one, &old, DART_TYPE_INT, DART_OP_SUM));
    TEST_OK(dart_flush(sum));
  }
  TEST_OK(dart_flush_all(sum));
  os_barrier();
  int got[2];
  TEST_OK(dart_get_blocking(got, sum, 2, DART_TYPE_INT, DART_TYPE_INT));
  /* Every unit's MAX and SUM interleave: the final value lies between the
   * number of increments and that plus the largest MAX operand. */
  int n = ITER * nunits, top = nunits * ITER - 1;
  TEST_CHECK_MSG(got[0] >= n && got[0] <= n + top, "%s: sum/max %d (n %d)",
                 what, got[0], n);
  TEST_CHECK_MSG(got[1] >= n && got[1] <= n + top, "%s: max/sum %d (n %d)",
                 what, got[1], n);
  os_barrier();
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  size_t bytes = (size_t)NSLOTS * SLOT + 64;
  TEST_CHECK(nunits <= NSLOTS);
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &g));
  test_ld_padding(g, 6, "team allocation");
  test_mixed_ops(g, "team allocation");

  _Alignas(16) static unsigned char reg[NSLOTS * SLOT + 64];
  dart_gptr_t r;
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, sizeof reg, DART_TYPE_BYTE, reg,
                                &r));
  test_ld_padding(r, 6, "registration");
  test_mixed_ops(r, "registration");
  TEST_OK(dart_team_memderegister(r));

  /* dart_memalloc memory of every unit: equal offsets on every unit (the
   * same allocation sequence), so unit 0's gptr names all of them. */
  dart_gptr_t m, m0;
  TEST_OK(dart_memalloc(bytes, DART_TYPE_BYTE, &m));
  m0 = m;
  TEST_OK(dart_bcast(&m0, sizeof m0, DART_TYPE_BYTE, (dart_team_unit_t){0},
                     DART_TEAM_ALL));
  TEST_CHECK(m0.addr_or_offs.offset == m.addr_or_offs.offset);
  test_ld_padding(m0, 3, "dart_memalloc");
  TEST_OK(dart_memfree(m));

  test_reg_alignment();
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_exit());
  if (me == 0) printf("test_atomics_exact: OK (%d units)\n", nunits);
  return 0;
}
