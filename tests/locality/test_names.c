/*
 * Unit test (no MPI): the host-name check dart_init runs on one word per
 * unit (names.c), against the exact answer on the names themselves, and
 * the "<host>#<node>" renaming.
 */
#define DART_TEST_NO_DART
#include "dart_test.h"

#include <stdio.h>
#include <string.h>

#include "locality/locality_internal.h"

/* Words as dart_init gathers them: units of node u/k, own host given. */
static bool check(char (*host)[DART_LOCALITY_HOST_MAX_SIZE], int n, int k)
{
  uint64_t words[64];
  for (int u = 0; u < n; u++) {
    const char *leader = host[u - u % k];
    words[u] =
        strcmp(leader, host[u]) == 0 ? dart__locality_host_hash(leader) : 0;
  }
  return dart__locality_hosts_disagree(words, n, (n + k - 1) / k);
}

int main(void)
{
  char host[64][DART_LOCALITY_HOST_MAX_SIZE];
  /* 12 units, 3 per node, distinct names per node: agree */
  for (int u = 0; u < 12; u++) snprintf(host[u], sizeof host[u], "h%d", u / 3);
  TEST_CHECK(!check(host, 12, 3));
  /* one unit with another name inside its node: disagree */
  snprintf(host[4], sizeof host[4], "other");
  TEST_CHECK(check(host, 12, 3));
  /* two nodes with the same name (containers): disagree */
  for (int u = 0; u < 12; u++) snprintf(host[u], sizeof host[u], "h%d", u / 3);
  for (int u = 6; u < 9; u++) snprintf(host[u], sizeof host[u], "h0");
  TEST_CHECK(check(host, 12, 3));
  /* one host split into simulated nodes of one unit: disagree */
  for (int u = 0; u < 4; u++) snprintf(host[u], sizeof host[u], "vm");
  TEST_CHECK(check(host, 4, 1));
  /* one node, one unit: agree; no unit at all: disagree */
  TEST_CHECK(!check(host, 1, 1));
  TEST_CHECK(dart__locality_hosts_disagree(NULL, 0, 0));
  /* the hash is never 0 and tells these names apart */
  TEST_CHECK(dart__locality_host_hash("") != 0);
  TEST_CHECK(dart__locality_host_hash("h1") != dart__locality_host_hash("h2"));
  /* renaming pads the node number to the width of the last one */
  char name[DART_LOCALITY_HOST_MAX_SIZE] = "vm";
  dart__locality_node_name(name, 7, 12);
  TEST_CHECK(strcmp(name, "vm#07") == 0);
  snprintf(name, sizeof name, "vm");
  dart__locality_node_name(name, 0, 1);
  TEST_CHECK(strcmp(name, "vm#0") == 0);
  /* a long name is cut so that the suffix fits */
  memset(name, 'x', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  dart__locality_node_name(name, 3, 100);
  TEST_CHECK(strlen(name) < sizeof name);
  TEST_CHECK(strcmp(name + strlen(name) - 3, "#03") == 0);
  printf("locality host names: OK\n");
  return 0;
}
