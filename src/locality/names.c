/*
 * Host names of the locality tree, decided without gathering every unit's
 * record (MPI-free; locality.c does the exchange). Every unit contributes
 * one 64-bit word: the hash of its node leader's host name, or 0 if its
 * own host name differs from its leader's. Host names and DART's node view
 * agree when no word is 0 and the words take exactly num_nodes distinct
 * values (units of one node contribute equal words). Two different names
 * with equal hashes read as "disagree": names are then renamed, which is
 * always safe, with a chance of about nodes^2 / 2^65.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locality_internal.h"

#define HOST_MAX DART_LOCALITY_HOST_MAX_SIZE

uint64_t dart__locality_host_hash(const char *host)
{
  uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a, 64 bit */
  for (size_t i = 0; i < HOST_MAX && host[i] != '\0'; i++) {
    h ^= (unsigned char)host[i];
    h *= UINT64_C(1099511628211);
  }
  return h | 1; /* never 0, the "disagree" mark */
}

/* In-place heapsort: no scratch memory, unlike qsort's merge sort, which
 * would double the words' footprint at init. */
static void sift_down(uint64_t *a, size_t root, size_t n)
{
  for (size_t child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && a[child + 1] > a[child]) child++;
    if (a[root] >= a[child]) return;
    uint64_t t = a[root];
    a[root] = a[child];
    a[child] = t;
  }
}

static void sort_words(uint64_t *a, size_t n)
{
  for (size_t i = n / 2; i-- > 0;) sift_down(a, i, n);
  for (size_t end = n; end-- > 1;) {
    uint64_t t = a[0];
    a[0] = a[end];
    a[end] = t;
    sift_down(a, 0, end);
  }
}

bool dart__locality_hosts_disagree(uint64_t *words, int n, int num_nodes)
{
  if (n < 1) return true;
  sort_words(words, (size_t)n);
  if (words[0] == 0) return true;
  int distinct = 1;
  for (int i = 1; i < n; i++) distinct += words[i] != words[i - 1];
  return distinct != num_nodes;
}

void dart__locality_node_name(char *host, int node, int num_nodes)
{
  int width = 1;
  for (int k = num_nodes - 1; k >= 10; k /= 10) width++;
  char name[HOST_MAX];
  snprintf(name, sizeof name, "%.*s#%0*d", HOST_MAX - 2 - width - 10, host,
           width, node);
  memcpy(host, name, sizeof name);
}
