/*
 * Node topology of the job: real shared-memory nodes or simulated ones.
 *
 * Every unit learns its own node index and the number of nodes, in
 * O(log P) time and memory per unit: no unit gathers a record of every
 * unit. A node's first unit (its head) counts the heads of lower rank
 * (MPI_Exscan), which numbers nodes in order of their lowest global unit;
 * the other units of the node read their head's number from a node-sized
 * exchange on the shared-memory communicator.
 */
#include <stdlib.h>

#include "dart_modules.h"
#include "dart_mpi.h"
#include "globmem/dart_segment.h"
#include "transport/probe.h"
#include "transport/wait.h"

dart_ret_t dart__topology_init(void)
{
  dart_ret_t ret = DART_OK;
  MPI_Comm real = MPI_COMM_NULL;
  int *heads = NULL;
  DART__MPI(dart__mpi_rendezvous(dart__g.comm));
  DART__MPI(MPI_Comm_split_type(dart__g.comm, MPI_COMM_TYPE_SHARED,
                                dart__g.myid, MPI_INFO_NULL, &real));
  int local_rank = 0;
  DART__MPI_GOTO(MPI_Comm_rank(real, &local_rank), ret, out);
  DART__MPI_GOTO(MPI_Comm_size(real, &dart__g.real_node_units), ret, out);
  /* shared windows work on the node: agreed by MIN */
  int mine = dart__caps_shared_windows(real), shared = 0;
  DART__MPI_GOTO(dart__mpi_allreduce(&mine, &shared, 1, MPI_INT, MPI_MIN, real),
                 ret, out);
  dart__caps_set_shared(shared != 0);
  long k = dart__env.sim_node_size;
  if (k < 0) {
    DART_LOG_WARN("ignoring negative DART_SIM_NODE_SIZE=%ld", k);
    k = 0;
  }
  if (!shared) {
    DART_LOG_DEBUG("no shared-memory windows: every unit is its own node");
    k = 1;
  }
  /* The head of each (simulated) node: the first of k consecutive ranks of
   * the real node's communicator, which is ordered by global unit id. */
  int head_rank = k > 0 ? local_rank - local_rank % k : 0;
  int is_head = local_rank == head_rank, before = 0;
  DART__MPI_GOTO(
      dart__mpi_exscan(&is_head, &before, 1, MPI_INT, MPI_SUM, dart__g.comm),
      ret, out);
  if (dart__g.myid == 0) before = 0; /* MPI leaves rank 0's result unset */
  DART__MPI_GOTO(dart__mpi_allreduce(&is_head, &dart__g.num_nodes, 1, MPI_INT,
                                     MPI_SUM, dart__g.comm),
                 ret, out);
  if (k == 1) {
    dart__g.my_node = before;
  } else {
    heads = malloc((size_t)dart__g.real_node_units * sizeof *heads);
    if (heads == NULL) {
      DART_LOG_ERROR("out of memory (%d node units)", dart__g.real_node_units);
      ret = DART_ERR_NOMEM;
      goto out;
    }
    DART__MPI_GOTO(dart__mpi_allgather(&before, 1, MPI_INT, heads, real), ret,
                   out);
    dart__g.my_node = heads[head_rank];
  }
out:
  free(heads);
  if (real != MPI_COMM_NULL) DART__MPI_LOG(MPI_Comm_free(&real));
  return ret;
}

void dart__topology_fini(void)
{
  dart__g.my_node = 0;
  dart__g.num_nodes = 0;
}
