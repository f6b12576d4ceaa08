/*
 * MPI errors inside collectives come back as dart_ret_t (issue 15, item 5),
 * in both wait modes (blocking MPI call; non-blocking call + yielding
 * wait), and DART leaves the handler of MPI_COMM_WORLD alone.
 *
 * The error: on a team of global units {0, 1} a broadcast whose root sends
 * more elements than the other unit takes: MPI_ERR_TRUNCATE at the
 * receiver with both MPIs in both modes. With two units there is no
 * intermediate unit that could stop forwarding, so nobody waits forever.
 * A gather or reduce with a member sending more than the root takes fails
 * at the root with Open MPI and with MPICH's blocking calls; MPICH's
 * non-blocking ones complete without an error (accepted here). Afterwards the
 * team works as before. White-box (static library): checks the error
 * handler of DART's communicators and forces each wait mode.
 */
#include <mpi.h>
#include <string.h>

#include "coll/coll_internal.h"
#include "dart_test.h"

static int me;

static void check_returns(MPI_Comm c, const char *what)
{
  MPI_Errhandler h;
  TEST_CHECK(MPI_Comm_get_errhandler(c, &h) == MPI_SUCCESS);
  TEST_CHECK_MSG(h == MPI_ERRORS_RETURN, "%s does not return errors", what);
  MPI_Errhandler_free(&h);
}

/* Expected code of a truncating collective: the receiving side fails. */
static int want(bool receives)
{
  return receives ? DART_ERR_OTHER : DART_OK;
}

static void truncations(dart_team_t pair, const char *mode)
{
  const dart_team_unit_t root = {0};
  long snd[16], rcv[32];
  for (int i = 0; i < 16; i++) snd[i] = 100 * me + i;
  /* bcast: the root sends 8, unit 1 takes 4 */
  long b[16];
  memcpy(b, snd, sizeof b);
  int rc = dart_bcast(b, me == 0 ? 8 : 4, DART_TYPE_LONG, root, pair);
  TEST_CHECK_MSG(rc == want(me == 1), "%s: bcast returned %d", mode, rc);
  /* gather: unit 1 sends 8, the root takes 4 per unit */
  rc = dart_gather(snd, rcv, me == 0 ? 4 : 8, DART_TYPE_LONG, root, pair);
  TEST_CHECK_MSG(rc == want(me == 0) || (me == 0 && rc == DART_OK),
                 "%s: gather returned %d", mode, rc);
  /* reduce: unit 1 contributes 8, the root reduces 4 */
  rc = dart_reduce(snd, rcv, me == 0 ? 4 : 8, DART_TYPE_LONG, DART_OP_SUM, root,
                   pair);
  TEST_CHECK_MSG(rc == want(me == 0) || (me == 0 && rc == DART_OK),
                 "%s: reduce returned %d", mode, rc);
  /* the team still works */
  long v[4] = {0};
  if (me == 0)
    for (int i = 0; i < 4; i++) v[i] = 7 + i;
  TEST_OK(dart_bcast(v, 4, DART_TYPE_LONG, root, pair));
  for (int i = 0; i < 4; i++) TEST_CHECK(v[i] == 7 + i);
  TEST_OK(dart_allreduce(snd, rcv, 2, DART_TYPE_LONG, DART_OP_SUM, pair));
  TEST_CHECK(rcv[0] == 100 && rcv[1] == 102);
  TEST_OK(dart_barrier(pair));
}

int main(int argc, char **argv)
{
  int init = 0;
  MPI_Initialized(&init);
  MPI_Errhandler world_before = MPI_ERRORS_ARE_FATAL;
  if (init) MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_before);
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t id;
  size_t n;
  TEST_OK(dart_myid(&id));
  TEST_OK(dart_size(&n));
  me = id.id;
  TEST_CHECK_MSG(n >= 2, "needs 2 units");

  check_returns(dart__g.comm, "DART's world communicator");
  dart__team_t *all = dart__team_get(DART_TEAM_ALL);
  check_returns(all->comm, "DART_TEAM_ALL's communicator");
  check_returns(all->node_comm, "DART_TEAM_ALL's node communicator");

  dart_group_t g;
  TEST_OK(dart_group_create(&g));
  TEST_OK(dart_group_addmember(g, (dart_global_unit_t){0}));
  TEST_OK(dart_group_addmember(g, (dart_global_unit_t){1}));
  dart_team_t pair = DART_TEAM_NULL;
  TEST_OK(dart_team_create(DART_TEAM_ALL, g, &pair));
  TEST_OK(dart_group_destroy(&g));
  if (me < 2) {
    dart__team_t *t = dart__team_get(pair);
    check_returns(t->comm, "the pair team's communicator");
    check_returns(t->node_comm, "the pair team's node communicator");
    dart__coll_wait_mode = DART__COLL_WAIT_YIELD;
    truncations(pair, "yield");
    dart__coll_wait_mode = DART__COLL_WAIT_BLOCK;
    truncations(pair, "block");
    dart__coll_wait_mode = DART__COLL_WAIT_AUTO;
  }
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  if (pair != DART_TEAM_NULL) TEST_OK(dart_team_destroy(&pair));

  MPI_Errhandler world_after;
  TEST_CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_after) ==
             MPI_SUCCESS);
  TEST_CHECK_MSG(world_after == world_before,
                 "DART changed MPI_COMM_WORLD's error handler");
  MPI_Errhandler_free(&world_after);
  if (init) MPI_Errhandler_free(&world_before);
  TEST_OK(dart_exit());
  if (me == 0) printf("test_coll_errors: OK (%zu units)\n", n);
  return 0;
}
