/*
 * MPI test: locality of DART_TEAM_ALL and of a sub-team (docs/locality.md).
 * Checks the tree invariants, the node count against DART's node view
 * (recomputed here from MPI and DART_SIM_NODE_SIZE), stable and mutable
 * records, split by NODE/NUMA/CORE, select/exclude/group round trips,
 * dart_group_locality_split, and bad input.
 */
#include "dart_test.h"

#include <mpi.h>
#include <string.h>

#include <dash/dart/if/dart_locality.h>

#include "loc_check.h"

static int myid, nunits;

/* Nodes in DART's view: real shared-memory nodes cut into groups of k. */
static int expected_nodes(void)
{
  const char *env = getenv("DART_SIM_NODE_SIZE");
  long k = env ? strtol(env, NULL, 10) : 0;
  MPI_Comm shm;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &shm);
  int local = 0, leader = myid;
  MPI_Comm_rank(shm, &local);
  /* Without shared-memory windows (Open MPI with OMPI_MCA_osc=pt2pt) DART
   * makes every unit its own node, as with DART_SIM_NODE_SIZE=1. */
  void *base;
  MPI_Win w;
  MPI_Comm_set_errhandler(shm, MPI_ERRORS_RETURN);
  int shared = MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, shm, &base, &w) ==
               MPI_SUCCESS;
  if (shared) MPI_Win_free(&w);
  MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_INT, MPI_MIN, shm);
  if (!shared) k = 1;
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shm);
  MPI_Comm_free(&shm);
  long key[2] = {leader, k > 0 ? local / k : 0},
       *keys = malloc(2 * sizeof(long) * (size_t)nunits);
  MPI_Allgather(key, 2, MPI_LONG, keys, 2, MPI_LONG, MPI_COMM_WORLD);
  int distinct = 0;
  for (int u = 0; u < nunits; u++) {
    bool first = true;
    for (int v = 0; v < u && first; v++)
      first = keys[2 * v] != keys[2 * u] || keys[2 * v + 1] != keys[2 * u + 1];
    distinct += first;
  }
  free(keys);
  return distinct;
}

/* Checks a team's tree and records; returns the root. */
static dart_domain_locality_t *check_team(dart_team_t team, int n,
                                          const int32_t *gids)
{
  dart_domain_locality_t *root;
  TEST_OK(dart_domain_team_locality(team, ".", &root));
  dart_unit_locality_t **recs = malloc((size_t)n * sizeof *recs);
  for (int u = 0; u < n; u++) {
    TEST_OK(dart_unit_locality(team, (dart_team_unit_t){u}, &recs[u]));
    dart_unit_locality_t *again;
    TEST_OK(dart_unit_locality(team, (dart_team_unit_t){u}, &again));
    TEST_CHECK(again == recs[u]);
    TEST_CHECK(recs[u]->hwinfo.max_shmem_mbps > 0);
    TEST_CHECK(recs[u]->hwinfo.min_cpu_mhz != 0);
    TEST_CHECK(recs[u]->hwinfo.max_cpu_mhz != 0);
    dart_domain_locality_t *leaf1, *leaf2;
    TEST_OK(dart_domain_team_locality(team, recs[u]->domain_tag, &leaf1));
    TEST_OK(dart_domain_find(root, recs[u]->domain_tag, &leaf2));
    TEST_CHECK(leaf1 == leaf2);
  }
  loc_check_team_tree(root, team, n, gids, recs);
  /* DART_TEST_LOCALITY_DUMP=1: the first member prints the tree */
  const char *dump = getenv("DART_TEST_LOCALITY_DUMP");
  dart_team_unit_t tme;
  TEST_OK(dart_team_myid(team, &tme));
  if (dump != NULL && atoi(dump) > 0 && tme.id == 0) {
    printf("tree of team %d (%d units)\n", (int)team, n);
    loc_dump(stdout, root);
    loc_dump_units(stdout, recs, n);
    fflush(stdout);
  }
  free(recs);
  dart_domain_locality_t *again;
  TEST_OK(dart_domain_team_locality(team, ".", &again));
  TEST_CHECK(again == root);
  return root;
}

/* The parts of a split partition the units of root. */
static void check_split(const dart_domain_locality_t *root,
                        dart_locality_scope_t scope)
{
  int d;
  dart_domain_locality_t **doms;
  dart_ret_t ret = dart_domain_scope_domains(root, scope, &d, &doms);
  if (ret == DART_ERR_NOTFOUND && scope == DART_LOCALITY_SCOPE_NUMA)
    return; /* no NUMA information on this system */
  TEST_OK(ret);
  free(doms);
  for (int parts = 1; parts <= d; parts++) {
    dart_domain_locality_t *split = malloc((size_t)parts * sizeof *split);
    TEST_OK(dart_domain_split_scope(root, scope, parts, split));
    int total = 0;
    for (int p = 0; p < parts; p++) {
      loc_check_domain(&split[p], false);
      total += split[p].num_units;
      for (int i = 0; i < split[p].num_units; i++)
        TEST_CHECK(loc_leaf_count(root, split[p].unit_ids[i].id) == 1);
      dart_domain_locality_t *clone;
      TEST_OK(dart_domain_clone(&split[p], &clone));
      dart_domain_destroy(clone);
    }
    TEST_CHECK_MSG(total == root->num_units, "scope %d parts %d: %d units",
                   (int)scope, parts, total);
    for (int p = 0; p < parts; p++) {
      for (int i = 0; i < split[p].num_domains; i++)
        dart_domain_destroy(split[p].children[i]);
      free(split[p].children);
      free(split[p].unit_ids);
    }
    free(split);
  }
}

/* dart_group_locality_split of the whole team along a scope. */
static void check_group_split(dart_domain_locality_t *root,
                              dart_locality_scope_t scope, size_t n)
{
  dart_group_t all, parts[8];
  TEST_OK(dart_team_get_group(root->team, &all));
  size_t nout = 0;
  TEST_OK(dart_group_locality_split(all, root, scope, n, &nout, parts));
  TEST_CHECK(nout >= 1 && nout <= n);
  size_t sum = 0;
  for (size_t i = 0; i < nout; i++) {
    size_t sz;
    TEST_OK(dart_group_size(parts[i], &sz));
    sum += sz;
    TEST_OK(dart_group_destroy(&parts[i]));
  }
  TEST_CHECK(sum == (size_t)root->num_units);
  TEST_OK(dart_group_destroy(&all));
}

/* select / exclude / group on clones of the team tree. */
static void check_round_trips(dart_domain_locality_t *root)
{
  dart_unit_locality_t *me;
  TEST_OK(dart_unit_locality(DART_TEAM_ALL, (dart_team_unit_t){myid}, &me));
  dart_domain_locality_t *leaf, *copy, *found;
  TEST_OK(dart_domain_find(root, me->domain_tag, &leaf));

  TEST_OK(dart_domain_clone(root, &copy));
  const char *tags[2] = {me->domain_tag, NULL};
  TEST_OK(dart_domain_select(copy, 1, tags));
  loc_check_domain(copy, false);
  TEST_CHECK(copy->num_units == leaf->num_units && copy->num_domains == 1);
  TEST_OK(dart_domain_find(copy, me->domain_tag, &found));
  dart_domain_destroy(copy);

  TEST_OK(dart_domain_clone(root, &copy));
  TEST_OK(dart_domain_exclude(copy, 1, tags));
  loc_check_domain(copy, false);
  TEST_CHECK(copy->num_units == root->num_units - leaf->num_units);
  found = copy;
  TEST_EQ_RET(dart_domain_find(copy, me->domain_tag, &found),
              DART_ERR_NOTFOUND);
  TEST_CHECK(found == NULL);
  dart_domain_destroy(copy);

  int ncores;
  char **core_tags;
  TEST_OK(dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_CORE, &ncores,
                                 &core_tags));
  int ng = ncores < 2 ? 1 : 2;
  TEST_OK(dart_domain_clone(root, &copy));
  char gtag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  TEST_OK(dart_domain_group(copy, ng, (const char **)core_tags, gtag));
  dart_domain_locality_t *g;
  TEST_OK(dart_domain_find(copy, gtag, &g));
  TEST_CHECK(g->scope == DART_LOCALITY_SCOPE_GROUP);
  int want = 0;
  for (int i = 0; i < ng; i++) {
    dart_domain_locality_t *c;
    TEST_OK(dart_domain_find(root, core_tags[i], &c));
    want += c->num_units;
  }
  TEST_CHECK(g->num_units == want && copy->num_units == root->num_units);
  loc_check_domain(copy, false);
  dart_domain_destroy(copy);

  /* DASH groups directly on the team tree; the change is seen later. */
  TEST_OK(dart_domain_group(root, 1, (const char **)core_tags, gtag));
  TEST_OK(dart_domain_team_locality(DART_TEAM_ALL, gtag, &g));
  TEST_CHECK(g->scope == DART_LOCALITY_SCOPE_GROUP && g->parent != NULL);
  loc_check_domain(root, false);
  for (int i = 0; i < ncores; i++) free(core_tags[i]);
  free(core_tags);
}

/* Sub-team of the even units: init, check, double init, finalize. */
static void check_subteam(void)
{
  dart_group_t g;
  TEST_OK(dart_group_create(&g));
  int n = 0;
  int32_t gids[64];
  for (int u = 0; u < nunits; u += 2) {
    TEST_OK(dart_group_addmember(g, (dart_global_unit_t){u}));
    gids[n++] = u;
  }
  dart_team_t team;
  TEST_OK(dart_team_create(DART_TEAM_ALL, g, &team));
  TEST_OK(dart_group_destroy(&g));
  if (myid % 2 != 0) {
    TEST_CHECK(team == DART_TEAM_NULL);
    return;
  }
  dart_domain_locality_t *root;
  TEST_EQ_RET(dart_domain_team_locality(team, ".", &root), DART_ERR_INVAL);
  TEST_OK(dart_team_locality_init(team));
  root = check_team(team, n, gids);
  check_split(root, DART_LOCALITY_SCOPE_CORE);
  TEST_EQ_RET(dart_team_locality_init(team), DART_ERR_INVAL);
  dart_unit_locality_t *rec = (void *)1;
  TEST_EQ_RET(dart_unit_locality(team, (dart_team_unit_t){n}, &rec),
              DART_ERR_INVAL);
  TEST_CHECK(rec == NULL);
  TEST_OK(dart_team_locality_finalize(team));
  TEST_EQ_RET(dart_unit_locality(team, (dart_team_unit_t){0}, &rec),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_locality_finalize(team), DART_ERR_INVAL);
  /* Initialise again and let dart_team_destroy release it. */
  TEST_OK(dart_team_locality_init(team));
  TEST_OK(dart_team_destroy(&team));
}

static void check_bad_input(void)
{
  dart_unit_locality_t *rec = (void *)1;
  dart_domain_locality_t *d = (void *)1;
  TEST_EQ_RET(
      dart_unit_locality(DART_TEAM_ALL, (dart_team_unit_t){nunits}, &rec),
      DART_ERR_INVAL);
  TEST_CHECK(rec == NULL);
  TEST_EQ_RET(dart_unit_locality(DART_TEAM_ALL, (dart_team_unit_t){-1}, &rec),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_unit_locality(77, (dart_team_unit_t){0}, &rec),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_unit_locality(DART_TEAM_ALL, (dart_team_unit_t){0}, NULL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_team_locality(DART_TEAM_ALL, ".9.9", &d),
              DART_ERR_NOTFOUND);
  TEST_CHECK(d == NULL);
  TEST_EQ_RET(dart_domain_team_locality(DART_TEAM_ALL, NULL, &d),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_team_locality(DART_TEAM_NULL, ".", &d),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_locality_init(DART_TEAM_ALL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_locality_init(DART_TEAM_NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_locality_finalize(123), DART_ERR_INVAL);
  dart_group_t g;
  TEST_OK(dart_group_create(&g));
  size_t nout = 0;
  dart_group_t out[1];
  TEST_OK(dart_domain_team_locality(DART_TEAM_ALL, ".", &d));
  TEST_EQ_RET(dart_group_locality_split(NULL, d, DART_LOCALITY_SCOPE_NODE, 1,
                                        &nout, out),
              DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_group_locality_split(g, d, DART_LOCALITY_SCOPE_NODE, 0, &nout, out),
      DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_group_locality_split(g, d, DART_LOCALITY_SCOPE_UNIT, 1, &nout, out),
      DART_ERR_NOTFOUND);
  TEST_OK(dart_group_destroy(&g));
}

int main(int argc, char **argv)
{
  dart_unit_locality_t *rec = (void *)1;
  TEST_EQ_RET(dart_unit_locality(DART_TEAM_ALL, (dart_team_unit_t){0}, &rec),
              DART_ERR_INVAL);
  TEST_CHECK(rec == NULL);
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t size;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&size));
  myid = me.id;
  nunits = (int)size;
  TEST_CHECK(nunits <= 64);
  int32_t gids[64];
  for (int u = 0; u < nunits; u++) gids[u] = u;

  dart_domain_locality_t *root = check_team(DART_TEAM_ALL, nunits, gids);
  int nodes = expected_nodes();
  TEST_CHECK_MSG(root->num_domains == nodes, "%d node domains, want %d",
                 root->num_domains, nodes);
  const char *sim = getenv("DART_SIM_NODE_SIZE");
  dart_unit_locality_t *mine;
  TEST_OK(dart_unit_locality(DART_TEAM_ALL, (dart_team_unit_t){myid}, &mine));
  TEST_CHECK(mine->unit.id == myid && mine->team == DART_TEAM_ALL);
  if (sim != NULL && atoi(sim) > 0) TEST_CHECK(strchr(mine->hwinfo.host, '#'));
  /* Records are mutable and persistent (DASH writes hwinfo fields). */
  mine->hwinfo.num_cores = 42;
  dart_unit_locality_t *again;
  TEST_OK(dart_unit_locality(DART_TEAM_ALL, (dart_team_unit_t){myid}, &again));
  TEST_CHECK(again->hwinfo.num_cores == 42);

  check_split(root, DART_LOCALITY_SCOPE_NODE);
  check_split(root, DART_LOCALITY_SCOPE_NUMA);
  check_split(root, DART_LOCALITY_SCOPE_CORE);
  check_group_split(root, DART_LOCALITY_SCOPE_NODE, 8);
  check_group_split(root, DART_LOCALITY_SCOPE_CORE, 2);
  check_bad_input();
  check_round_trips(root);
  check_subteam();

  /* ALL's locality can be finalized and rebuilt collectively. */
  TEST_OK(dart_team_locality_finalize(DART_TEAM_ALL));
  TEST_EQ_RET(dart_domain_team_locality(DART_TEAM_ALL, ".", &root),
              DART_ERR_INVAL);
  TEST_OK(dart_team_locality_init(DART_TEAM_ALL));
  check_team(DART_TEAM_ALL, nunits, gids);
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_exit());
  if (myid == 0) printf("locality (%d units, %d nodes): OK\n", nunits, nodes);
  return 0;
}
