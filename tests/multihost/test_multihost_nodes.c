/*
 * Multi-host test (docs/multihost.md): run by scripts/multihost/dmh across
 * DMH_HOSTS hosts with DMH_PPN units each. Checks that MPI itself sees the
 * hosts as separate nodes (MPI_COMM_TYPE_SHARED sizes, processor names) and
 * that DART's node view and locality tree agree: one node domain per host,
 * named after the host, holding exactly that host's units. Unit 0 prints
 * the tree's nodes, so the log shows what MPI and DART saw.
 */
#define _GNU_SOURCE /* gethostname */
#include "dart_test.h"

#include <mpi.h>
#include <string.h>
#include <unistd.h>

#include <dash/dart/if/dart_locality.h>

#define NAME_MAX_LEN 256

static int env_int(const char *name)
{
  const char *v = getenv(name);
  TEST_CHECK_MSG(v != NULL && atoi(v) > 0,
                 "%s is not set: run this test through scripts/multihost/dmh",
                 name);
  return atoi(v);
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  const int hosts = env_int("DMH_HOSTS"), ppn = env_int("DMH_PPN");
  dart_global_unit_t me;
  size_t n;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&n));
  TEST_CHECK_MSG((int)n == hosts * ppn, "%zu units, want %d x %d", n, hosts,
                 ppn);

  /* MPI's view: node-local communicator sizes and processor names. */
  MPI_Comm shm;
  int shm_size = 0, len = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &shm);
  MPI_Comm_size(shm, &shm_size);
  MPI_Comm_free(&shm);
  TEST_CHECK_MSG(shm_size == ppn, "MPI_COMM_TYPE_SHARED has %d ranks, want %d",
                 shm_size, ppn);
  char mine[NAME_MAX_LEN] = {0}, uts[NAME_MAX_LEN] = {0};
  MPI_Get_processor_name(mine, &len);
  gethostname(uts, sizeof uts - 1);
  TEST_CHECK_MSG(strcmp(mine, uts) == 0, "MPI says '%s', gethostname '%s'",
                 mine, uts);
  char *names = calloc(n, NAME_MAX_LEN);
  MPI_Allgather(mine, NAME_MAX_LEN, MPI_CHAR, names, NAME_MAX_LEN, MPI_CHAR,
                MPI_COMM_WORLD);
  int distinct = 0;
  for (size_t u = 0; u < n; u++) {
    int first = 1;
    for (size_t v = 0; v < u && first; v++)
      first = strcmp(names + u * NAME_MAX_LEN, names + v * NAME_MAX_LEN) != 0;
    distinct += first;
  }
  TEST_CHECK_MSG(distinct == hosts, "%d distinct host names, want %d", distinct,
                 hosts);

  /* DART's view: one node domain per host, holding that host's units. */
  dart_domain_locality_t *root;
  TEST_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &root));
  TEST_CHECK_MSG(root->num_nodes == hosts, "tree has %d nodes, want %d",
                 root->num_nodes, hosts);
  int nd = 0;
  dart_domain_locality_t **nodes = NULL;
  TEST_OK(
      dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_NODE, &nd, &nodes));
  TEST_CHECK_MSG(nd == hosts, "%d node domains, want %d", nd, hosts);
  for (int d = 0; d < nd; d++) {
    const dart_domain_locality_t *node = nodes[d];
    TEST_CHECK_MSG(node->num_units == ppn, "node %s has %d units, want %d",
                   node->host, node->num_units, ppn);
    for (int i = 0; i < node->num_units; i++) {
      int u = node->unit_ids[i].id;
      TEST_CHECK(u >= 0 && (size_t)u < n);
      TEST_CHECK_MSG(strcmp(node->host, names + (size_t)u * NAME_MAX_LEN) == 0,
                     "unit %d is in node domain '%s' but runs on '%s'", u,
                     node->host, names + (size_t)u * NAME_MAX_LEN);
    }
    for (int e = 0; e < d; e++)
      TEST_CHECK_MSG(strcmp(nodes[e]->host, node->host) != 0,
                     "two node domains named '%s'", node->host);
  }
  dart_unit_locality_t *rec;
  TEST_OK(dart_unit_locality(DART_TEAM_ALL, (dart_team_unit_t){me.id}, &rec));
  TEST_CHECK_MSG(strcmp(rec->hwinfo.host, mine) == 0,
                 "unit locality says host '%s', MPI '%s'", rec->hwinfo.host,
                 mine);
  if (me.id == 0) {
    printf("multihost: MPI sees %d nodes of %d ranks; DART's tree:", hosts,
           shm_size);
    for (int d = 0; d < nd; d++) {
      printf(" %s[%s] units", nodes[d]->host, nodes[d]->domain_tag);
      for (int i = 0; i < nodes[d]->num_units; i++)
        printf("%c%d", i ? ',' : ' ', nodes[d]->unit_ids[i].id);
      printf(d + 1 < nd ? ";" : "\n");
    }
    fflush(stdout);
  }
  free(nodes);
  free(names);
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_exit());
  return 0;
}
