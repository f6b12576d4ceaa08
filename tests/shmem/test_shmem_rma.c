/*
 * RMA families: typed put/get/p/g/iput/iget and their nbi forms, sized
 * (8..128) and mem forms, to every PE, on heap and static memory, with the
 * default context and a created one; C11 generic selection of the same.
 */
#include <shmem.h>
#include <stdint.h>
#include <string.h>

#include "dart_test.h"

#define N 16
static int s_int[N];
static double s_dbl[N];
static int64_t s_64[2 * N];

#define TYPED(T, TN)                                                           \
  static void typed_##TN(int me, int n, shmem_ctx_t ctx)                       \
  {                                                                            \
    T *d = shmem_calloc(2 * N, sizeof(T));                                     \
    T src[N], got[N];                                                          \
    for (int pe = 0; pe < n; pe++) {                                           \
      for (int i = 0; i < N; i++) src[i] = (T)(me * 100 + i + pe);             \
      shmem_barrier_all();                                                     \
      /* PE me writes slot me % 2 of everyone: blocking put, then nbi */       \
      if (me % 2 == 0)                                                         \
        shmem_ctx_##TN##_put(ctx, d, src, N, pe);                              \
      else                                                                     \
        shmem_ctx_##TN##_put_nbi(ctx, d + N, src, N, pe);                      \
      shmem_ctx_quiet(ctx);                                                    \
      shmem_barrier_all();                                                     \
      shmem_##TN##_get(got, d, N, pe);                                         \
      for (int i = 0; i < N; i++) {                                            \
        /* every even PE wrote the same slot: one of their values */           \
        T v = got[i];                                                          \
        int ok = 0;                                                            \
        for (int q = 0; q < n; q += 2) ok |= v == (T)(q * 100 + i + pe);       \
        TEST_CHECK(ok);                                                        \
      }                                                                        \
      shmem_barrier_all();                                                     \
    }                                                                          \
    /* p/g and iput/iget with the right neighbour */                           \
    int r = (me + 1) % n, l = (me + n - 1) % n;                                \
    shmem_barrier_all();                                                       \
    shmem_##TN##_p(&d[0], (T)(me + 7), r);                                     \
    for (int i = 0; i < N; i++) src[i] = (T)(me + i);                          \
    shmem_ctx_##TN##_iput(ctx, d + 1, src, 2, 1, N / 2, r);                    \
    shmem_ctx_quiet(ctx);                                                      \
    shmem_barrier_all();                                                       \
    TEST_CHECK(d[0] == (T)(l + 7));                                            \
    for (int i = 0; i < N / 2; i++) TEST_CHECK(d[1 + 2 * i] == (T)(l + i));    \
    TEST_CHECK(shmem_##TN##_g(&d[0], r) == (T)(me + 7));                       \
    T strided[N];                                                              \
    memset(strided, 0, sizeof strided);                                        \
    shmem_##TN##_iget(strided, d + 1, 1, 2, N / 2, r);                         \
    for (int i = 0; i < N / 2; i++) TEST_CHECK(strided[i] == (T)(me + i));     \
    shmem_##TN##_get_nbi(got, d + 1, 1, l);                                    \
    shmem_quiet();                                                             \
    TEST_CHECK(got[0] == (T)(((l + n - 1) % n)));                              \
    shmem_barrier_all();                                                       \
    shmem_free(d);                                                             \
  }

TYPED(char, char)
TYPED(short, short)
TYPED(int, int)
TYPED(long, long)
TYPED(long long, longlong)
TYPED(unsigned char, uchar)
TYPED(uint16_t, uint16)
TYPED(float, float)
TYPED(double, double)
TYPED(long double, longdouble)
TYPED(size_t, size)
TYPED(ptrdiff_t, ptrdiff)

static void sized(int me, int n)
{
  int r = (me + 1) % n, l = (me + n - 1) % n;
  int64_t src[2 * N];
  for (int i = 0; i < 2 * N; i++) src[i] = (int64_t)me << 32 | i;
  shmem_barrier_all();
  shmem_put64(s_64, src, N, r);
  shmem_put128(s_64 + N, src + N, N / 2, r);
  shmem_quiet();
  shmem_barrier_all();
  for (int i = 0; i < 2 * N; i++) TEST_CHECK(s_64[i] == ((int64_t)l << 32 | i));
  int32_t g32[4];
  shmem_get32(g32, s_64, 4, r);
  int64_t g64;
  memcpy(&g64, g32, sizeof g64);
  TEST_CHECK(g64 == ((int64_t)me << 32));
  uint8_t b[3] = {1, 2, 3}, gb[3];
  shmem_barrier_all();
  shmem_put8(s_int, b, 3, r);
  shmem_barrier_all();
  shmem_get8(gb, s_int, 3, me);
  TEST_CHECK(gb[0] == 1 && gb[1] == 2 && gb[2] == 3);
  /* iput32 / iget64 */
  int32_t v[4] = {me, me + 1, me + 2, me + 3};
  shmem_barrier_all();
  shmem_iput32(s_int, v, 3, 1, 4, r);
  shmem_barrier_all();
  for (int i = 0; i < 4; i++) TEST_CHECK(s_int[3 * i] == l + i);
  int64_t gi[2];
  shmem_iget64(gi, s_64, 1, 3, 2, r);
  TEST_CHECK(gi[0] == ((int64_t)me << 32 | 0) &&
             gi[1] == ((int64_t)me << 32 | 3));
  /* putmem_nbi / getmem_nbi */
  double dv[N];
  for (int i = 0; i < N; i++) dv[i] = me + i * 0.5;
  shmem_barrier_all();
  shmem_putmem_nbi(s_dbl, dv, sizeof dv, r);
  shmem_quiet();
  shmem_barrier_all();
  double gd[N];
  shmem_getmem_nbi(gd, s_dbl, sizeof gd, me);
  shmem_quiet();
  for (int i = 0; i < N; i++) TEST_CHECK(gd[i] == l + i * 0.5);
  shmem_barrier_all();
}

static void generic(int me, int n)
{
  int r = (me + 1) % n, l = (me + n - 1) % n;
  long *d = shmem_malloc(4 * sizeof(long));
  long src[4] = {me, me, me, me};
  shmem_barrier_all();
  shmem_put(d, src, 4, r);
  shmem_p(&s_dbl[0], (double)me, r);
  shmem_put(SHMEM_CTX_DEFAULT, d + 2, src, 1, r);
  shmem_barrier_all();
  TEST_CHECK(d[0] == l && d[3] == l && s_dbl[0] == (double)l);
  long g[4];
  shmem_get(g, d, 4, r);
  TEST_CHECK(g[0] == me);
  TEST_CHECK(shmem_g(&d[1], r) == me);
  TEST_CHECK(shmem_g(SHMEM_CTX_DEFAULT, &s_dbl[0], r) == (double)me);
  shmem_barrier_all();
  shmem_free(d);
}

int main(void)
{
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_ctx_t ctx;
  TEST_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0);
  for (int k = 0; k < 2; k++) {
    shmem_ctx_t c = k == 0 ? SHMEM_CTX_DEFAULT : ctx;
    typed_char(me, n, c);
    typed_short(me, n, c);
    typed_int(me, n, c);
    typed_long(me, n, c);
    typed_longlong(me, n, c);
    typed_uchar(me, n, c);
    typed_uint16(me, n, c);
    typed_float(me, n, c);
    typed_double(me, n, c);
    typed_longdouble(me, n, c);
    typed_size(me, n, c);
    typed_ptrdiff(me, n, c);
  }
  shmem_ctx_destroy(ctx);
  sized(me, n);
  generic(me, n);
  shmem_finalize();
  return 0;
}
