/* MPI-free unit test of the datatype/op handle registry. */
#define DART_TEST_NO_DART
#include "dart_test.h"
#include "types/registry.h"

#include <pthread.h>
#include <string.h>

typedef struct {
  long value;
  char tag[24];
} payload_t;

static dart__registry_t reg;

static void count_live(void *p, void *ctx)
{
  payload_t *pl = p;
  long *sum = ctx;
  *sum += pl->value;
}

static intptr_t add_value(long v)
{
  payload_t p = {.value = v};
  snprintf(p.tag, sizeof(p.tag), "v%ld", v);
  intptr_t h = dart__registry_add(&reg, &p);
  TEST_CHECK(h >= DART__REG_MIN_HANDLE);
  return h;
}

static void test_basic(void)
{
  intptr_t a = add_value(1), b = add_value(2);
  TEST_CHECK(a != b);
  TEST_CHECK(a > 12 && b > 12); /* above DART_TYPE_LAST / DART_OP_LAST */
  payload_t *pa = dart__registry_get(&reg, a);
  TEST_CHECK(pa != NULL && pa->value == 1 && strcmp(pa->tag, "v1") == 0);
  TEST_CHECK(((uintptr_t)pa % _Alignof(max_align_t)) == 0);
  payload_t out;
  TEST_CHECK(dart__registry_remove(&reg, a, &out) == 0 && out.value == 1);
  TEST_CHECK(dart__registry_get(&reg, a) == NULL);        /* stale */
  TEST_CHECK(dart__registry_remove(&reg, a, NULL) == -1); /* double free */
  intptr_t c = add_value(3);                              /* reuses slot */
  TEST_CHECK(c != a);
  TEST_CHECK(dart__registry_get(&reg, a) == NULL);
  TEST_CHECK(((payload_t *)dart__registry_get(&reg, c))->value == 3);
  TEST_CHECK(dart__registry_live(&reg) == 2);
  dart__registry_remove(&reg, b, NULL);
  dart__registry_remove(&reg, c, NULL);
  TEST_CHECK(dart__registry_live(&reg) == 0);
}

static void test_forged(void)
{
  intptr_t h = add_value(7);
  intptr_t forged[] = {0,
                       1,
                       12,
                       13,
                       -1,
                       -h,
                       INTPTR_MAX,
                       INTPTR_MIN,
                       h + 1,
                       h - 1,
                       h ^ ((intptr_t)1 << 21),
                       h + ((intptr_t)2 << DART__REG_SLOT_BITS),
                       DART__REG_MIN_HANDLE,
                       (intptr_t)&reg};
  for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++)
    TEST_CHECK(dart__registry_get(&reg, forged[i]) == NULL);
  TEST_CHECK(dart__registry_get(&reg, h) != NULL);
  dart__registry_remove(&reg, h, NULL);
}

/* Crosses several chunk boundaries, frees every other, re-fills. */
static void test_many(void)
{
  enum { N = 3 * DART__REG_CHUNK_SLOTS + 17 };
  static intptr_t hs[N];
  for (long i = 0; i < N; i++) hs[i] = add_value(i);
  for (long i = 0; i < N; i += 2)
    TEST_CHECK(dart__registry_remove(&reg, hs[i], NULL) == 0);
  for (long i = 0; i < N; i++) {
    payload_t *p = dart__registry_get(&reg, hs[i]);
    TEST_CHECK((i % 2 == 0) == (p == NULL));
    if (p) TEST_CHECK(p->value == i);
  }
  for (long i = 0; i < N; i += 2) hs[i] = add_value(i);
  TEST_CHECK(dart__registry_live(&reg) == N);
  long sum = 0;
  dart__registry_fini(&reg, count_live, &sum);
  TEST_CHECK(sum == (long)N * (N - 1) / 2);
  /* After re-init, handles of the previous cycle must stay invalid. */
  dart__registry_init(&reg, sizeof(payload_t));
  intptr_t fresh = add_value(99);
  for (long i = 0; i < N; i++)
    TEST_CHECK(dart__registry_get(&reg, hs[i]) == NULL);
  TEST_CHECK(dart__registry_get(&reg, fresh) != NULL);
  dart__registry_remove(&reg, fresh, NULL);
}

/* Threads add, look up and remove concurrently. */
static void *worker(void *arg)
{
  long base = (long)(intptr_t)arg * 100000;
  for (long i = 0; i < 20000; i++) {
    intptr_t h = add_value(base + i);
    payload_t *p = dart__registry_get(&reg, h);
    TEST_CHECK(p != NULL && p->value == base + i);
    TEST_CHECK(dart__registry_remove(&reg, h, NULL) == 0);
    TEST_CHECK(dart__registry_get(&reg, h) == NULL);
  }
  return NULL;
}

static void test_threads(void)
{
  pthread_t th[4];
  for (long t = 0; t < 4; t++)
    pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
  for (int t = 0; t < 4; t++) pthread_join(th[t], NULL);
  TEST_CHECK(dart__registry_live(&reg) == 0);
}

/* Many init/fini cycles with live entries: generations keep moving up. */
static void test_cycles(void)
{
  intptr_t prev = 0;
  for (int c = 0; c < 1000; c++) {
    intptr_t h = add_value(c);
    TEST_CHECK(h != prev);
    if (prev) TEST_CHECK(dart__registry_get(&reg, prev) == NULL);
    long sum = 0;
    dart__registry_fini(&reg, count_live, &sum);
    TEST_CHECK(sum == c);
    TEST_CHECK(dart__registry_get(&reg, h) == NULL);
    dart__registry_init(&reg, sizeof(payload_t));
    prev = h;
  }
}

int main(void)
{
  TEST_CHECK(dart__registry_add(&reg, &(payload_t){0}) == 0); /* not init */
  dart__registry_init(&reg, sizeof(payload_t));
  test_basic();
  test_forged();
  test_many();
  test_threads();
  test_cycles();
  dart__registry_fini(&reg, NULL, NULL);
  printf("unit_registry: OK\n");
  return 0;
}
