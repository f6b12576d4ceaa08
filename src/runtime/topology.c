/* Node topology of the job: real shared-memory nodes or simulated ones. */
#include <stdlib.h>

#include "dart_mpi.h"
#include "transport/probe.h"

typedef struct {
  long key;
  int unit;
} dart__keyed_unit_t;

static int dart__keyed_cmp(const void *a, const void *b)
{
  const dart__keyed_unit_t *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->unit > y->unit) - (x->unit < y->unit);
}

/*
 * Units with equal keys share a node; nodes are numbered by their lowest
 * unit id. O(n log n). keys[] is reused as scratch space.
 */
static void dart__topology_number(long *keys, int n, int *node_of, int *nnodes)
{
  dart__keyed_unit_t *ku = malloc((size_t)n * sizeof *ku);
  if (ku == NULL) { /* fall back to one node per unit: always correct */
    for (int u = 0; u < n; u++) node_of[u] = u;
    *nnodes = n;
    return;
  }
  for (int u = 0; u < n; u++) ku[u] = (dart__keyed_unit_t){keys[u], u};
  qsort(ku, (size_t)n, sizeof *ku, dart__keyed_cmp);
  /* first pass: leader (lowest unit) of each unit's group, marked in keys */
  for (int i = 0, leader = 0; i < n; i++) {
    if (i == 0 || ku[i].key != ku[i - 1].key) leader = ku[i].unit;
    node_of[ku[i].unit] = leader;
  }
  /* second pass: number leaders in ascending unit order */
  int count = 0;
  for (int u = 0; u < n; u++) keys[u] = (node_of[u] == u) ? count++ : -1;
  for (int u = 0; u < n; u++) node_of[u] = (int)keys[node_of[u]];
  *nnodes = count;
  free(ku);
}

/*
 * Every unit gets a node index. Units share a node when MPI says they can
 * share memory (MPI_COMM_TYPE_SHARED); with DART_SIM_NODE_SIZE=k each real
 * node is further cut into groups of k consecutive units. Nodes are numbered
 * in order of their lowest global unit id.
 */
dart_ret_t dart__topology_init(void)
{
  dart_ret_t ret = DART_OK;
  MPI_Comm real = MPI_COMM_NULL;
  long *keys = NULL;
  DART__MPI(dart__mpi_rendezvous(dart__g.comm));
  DART__MPI(MPI_Comm_split_type(dart__g.comm, MPI_COMM_TYPE_SHARED,
                                dart__g.myid, MPI_INFO_NULL, &real));
  int local_rank = 0;
  DART__MPI_GOTO(MPI_Comm_rank(real, &local_rank), ret, out);
  DART__MPI_GOTO(MPI_Comm_size(real, &dart__g.real_node_units), ret, out);
  /* {node leader, shared windows work}: both agreed by MIN */
  int mine[2] = {dart__g.myid, dart__caps_shared_windows(real)}, node[2];
  DART__MPI_GOTO(dart__mpi_allreduce(mine, node, 2, MPI_INT, MPI_MIN, real),
                 ret, out);
  int leader = node[0];
  dart__caps_set_shared(node[1] != 0);
  long k = dart__env.sim_node_size;
  if (k < 0) {
    DART_LOG_WARN("ignoring negative DART_SIM_NODE_SIZE=%ld", k);
    k = 0;
  }
  if (!node[1]) {
    DART_LOG_DEBUG("no shared-memory windows: every unit is its own node");
    k = 1;
  }
  /* key = (real node leader, sub-node within it) packed into one long */
  long mykey =
      (long)leader * ((long)dart__g.size + 1) + (k > 0 ? local_rank / k : 0);
  keys = malloc((size_t)dart__g.size * sizeof *keys);
  dart__g.node_of_unit = malloc((size_t)dart__g.size * sizeof(int));
  if (keys == NULL || dart__g.node_of_unit == NULL) {
    DART_LOG_ERROR("out of memory");
    ret = DART_ERR_NOMEM;
    goto out;
  }
  DART__MPI_GOTO(dart__mpi_allgather(&mykey, 1, MPI_LONG, keys, dart__g.comm),
                 ret, out);
  dart__topology_number(keys, dart__g.size, dart__g.node_of_unit,
                        &dart__g.num_nodes);
out:
  free(keys);
  if (real != MPI_COMM_NULL) DART__MPI_LOG(MPI_Comm_free(&real));
  return ret;
}

void dart__topology_fini(void)
{
  free(dart__g.node_of_unit);
  dart__g.node_of_unit = NULL;
  dart__g.num_nodes = 0;
}
