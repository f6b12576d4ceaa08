/*
 * Unit test (no MPI): the tree builder on large synthetic machines with
 * hosts, accelerator modules ("<host>-micN", also of modules) and units in
 * scattered order, checked against a naive expectation computed here:
 * nodes = hosts that are no module of another host, in strcmp order; a
 * module host joins the node of the host it is a module of; modules of a
 * node in strcmp order, the node's own host first.
 *
 *   unit_locality_tree_scale          run the checks
 *   unit_locality_tree_scale dump     print every tree built (to compare
 *                                     builder versions byte for byte)
 */
#define DART_TEST_NO_DART
#include "dart_test.h"

#include <string.h>

#include "loc_check.h"
#include "synth.h"

static unsigned long long rng_state;

static unsigned rnd(unsigned n)
{
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rng_state >> 33) % n;
}

/* A machine: host names and the host of every unit. */
typedef struct {
  int nhosts, n;
  char (*hosts)[DART_LOCALITY_HOST_MAX_SIZE];
  int *host_of; /* [n] */
} machine_t;

/*
 * nbase base hosts "h<i>" (some of them "h<i>-micX"-looking non-modules),
 * each with 0-2 modules "-mic<j>" and sometimes a module of a module;
 * 1-upto units per host, then the units shuffled.
 */
static void make_machine(machine_t *m, int nbase, int upto)
{
  int cap = nbase * 5;
  m->hosts = malloc((size_t)cap * sizeof *m->hosts);
  m->nhosts = 0;
  for (int i = 0; i < nbase; i++) {
    int b = m->nhosts++;
    snprintf(m->hosts[b], sizeof m->hosts[b], "h%d%s", (int)rnd(1000000),
             rnd(8) == 0 ? "-micX" : "");
    char base[24];
    snprintf(base, sizeof base, "%.20s", m->hosts[b]);
    int mods = (int)rnd(3);
    for (int j = 0; j < mods; j++)
      snprintf(m->hosts[m->nhosts++], sizeof m->hosts[0], "%s-mic%d", base,
               j * 7);
    if (mods > 0 && rnd(4) == 0)
      snprintf(m->hosts[m->nhosts++], sizeof m->hosts[0], "%s-mic0-mic1", base);
    if (rnd(10) == 0) /* a module whose node has no units in the team */
      snprintf(m->hosts[m->nhosts++], sizeof m->hosts[0], "x%d-mic0",
               (int)rnd(100));
  }
  m->host_of = malloc((size_t)m->nhosts * (size_t)upto * sizeof *m->host_of);
  m->n = 0;
  for (int h = 0; h < m->nhosts; h++) /* every host gets units */
    for (int k = 1 + (int)rnd((unsigned)upto); k > 0; k--)
      m->host_of[m->n++] = h;
  for (int i = m->n - 1; i > 0; i--) {
    int j = (int)rnd((unsigned)i + 1), t = m->host_of[i];
    m->host_of[i] = m->host_of[j];
    m->host_of[j] = t;
  }
}

/* Hardware records of the machine's units (some with odd scope lists). */
static dart_hwinfo_t *machine_hw(const machine_t *m)
{
  dart_hwinfo_t *hw = malloc((size_t)m->n * sizeof *hw);
  for (int u = 0; u < m->n; u++) {
    int cores = 1 + (int)rnd(8);
    synth_hw(&hw[u], m->hosts[m->host_of[u]], (int)rnd(2), (int)rnd(8), cores);
    if (rnd(7) == 0) hw[u].num_cores = -1; /* count distinct cores */
    if (rnd(11) == 0) hw[u].num_scopes = 1;
  }
  return hw;
}

/* Naive: the host index of the node of host h (every host has units). */
static int naive_node_host(const machine_t *m, int h)
{
  for (int k = 0; k < m->nhosts; k++)
    if (dart__locality_is_module_of(m->hosts[h], m->hosts[k]))
      return naive_node_host(m, k);
  return h;
}

/* Checks the nodes, modules and leaves of a built tree naively. */
static void check_machine(const machine_t *m, const int32_t *gids,
                          dart__locality_t *loc)
{
  dart_unit_locality_t **recs = malloc((size_t)m->n * sizeof *recs);
  synth_recs(loc, recs);
  int nodes = loc_check_team_tree(loc->root, 7, m->n, gids, recs);
  free(recs);
  int want_nodes = 0;
  for (int i = 0; i < nodes; i++) {
    dart_domain_locality_t *node = loc->root->children[i];
    TEST_CHECK(strcmp(node->host, node->children[0]->host) == 0);
    for (int j = 0; j < node->num_domains; j++) {
      dart_domain_locality_t *mod = node->children[j];
      if (j > 0) TEST_CHECK(strcmp(node->children[j - 1]->host, mod->host) < 0);
      for (int k = 0; k < mod->num_units; k++) {
        int u = mod->unit_ids[k].id - 1000; /* gids[u] = 1000 + u */
        TEST_CHECK(strcmp(m->hosts[m->host_of[u]], mod->host) == 0);
        int nh = naive_node_host(m, m->host_of[u]);
        TEST_CHECK_MSG(strcmp(m->hosts[nh], node->host) == 0,
                       "unit %d on '%s': node '%s', want '%s'", u, mod->host,
                       node->host, m->hosts[nh]);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%s.", mod->domain_tag);
        TEST_CHECK(strncmp(loc->units[u].domain_tag, prefix, strlen(prefix)) ==
                   0);
      }
    }
  }
  /* every host that is no module of another host is a node */
  for (int h = 0; h < m->nhosts; h++) {
    bool dup = false;
    for (int k = 0; k < h && !dup; k++)
      dup = strcmp(m->hosts[k], m->hosts[h]) == 0;
    want_nodes += !dup && naive_node_host(m, h) == h;
  }
  TEST_CHECK_MSG(nodes == want_nodes, "%d nodes, want %d", nodes, want_nodes);
}

static void run(int seed, int nbase, int upto, bool dump)
{
  rng_state = (unsigned long long)seed;
  machine_t m;
  make_machine(&m, nbase, upto);
  dart_hwinfo_t *hw = machine_hw(&m);
  int32_t *gids = malloc((size_t)m.n * sizeof *gids);
  for (int u = 0; u < m.n; u++) gids[u] = 1000 + u;
  dart__locality_t *loc = NULL;
  TEST_OK(dart__locality_build(7, m.n, gids, hw, &loc));
  if (dump) {
    dart_unit_locality_t **recs = malloc((size_t)m.n * sizeof *recs);
    synth_recs(loc, recs);
    printf("machine seed=%d hosts=%d units=%d\n", seed, m.nhosts, m.n);
    loc_dump(stdout, loc->root);
    loc_dump_units(stdout, recs, m.n);
    free(recs);
  } else {
    check_machine(&m, gids, loc);
  }
  dart__locality_free(loc);
  free(gids);
  free(hw);
  free(m.hosts);
  free(m.host_of);
}

int main(int argc, char **argv)
{
  bool dump = argc > 1 && strcmp(argv[1], "dump") == 0;
  for (int seed = 1; seed <= 40; seed++)
    run(seed, 1 + seed % 9, 1 + seed % 5, dump);
  run(100, 300, 3, dump);
  run(101, 60, 40, dump);
  if (!dump) printf("locality tree at scale: OK\n");
  return 0;
}
