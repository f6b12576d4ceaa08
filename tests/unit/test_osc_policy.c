/* Unit tests (no MPI) of two start-up decisions read from configuration
 * and measurement: Open MPI's "osc" component lists (transport/osc_list.h:
 * the thread-level check and the backing-file work-around read
 * OMPI_MCA_osc with them) and the rule of DART_COLL_WAIT=auto on an
 * oversubscribed node (dart__coll_wait_prefers_block). */
#include <string.h>

#include "dart_policy.h"
#include "dart_test.h"
#include "transport/osc_list.h"

static void test_list_names(void)
{
  TEST_CHECK(dart__osc_list_names("ucx,sm", "sm"));
  TEST_CHECK(dart__osc_list_names("ucx, sm", "ucx"));
  TEST_CHECK(dart__osc_list_names("^rdma", "rdma"));
  TEST_CHECK(dart__osc_list_names("^ucx,rdma", "rdma"));
  TEST_CHECK(!dart__osc_list_names("sm,pt2pt", "rdma"));
  TEST_CHECK(!dart__osc_list_names("rdmax", "rdma")); /* whole names */
  TEST_CHECK(!dart__osc_list_names("^", "rdma"));
  TEST_CHECK(!dart__osc_list_names("", "rdma"));
}

static void test_list_leaves_out(void)
{
  /* dart_init's own setting and the user's usual ones */
  TEST_CHECK(dart__osc_list_leaves_out("^rdma", "rdma"));
  TEST_CHECK(dart__osc_list_leaves_out("ucx,sm", "rdma"));
  TEST_CHECK(dart__osc_list_leaves_out("sm,pt2pt", "rdma"));
  TEST_CHECK(!dart__osc_list_leaves_out("rdma,sm", "rdma"));
  TEST_CHECK(!dart__osc_list_leaves_out("^ucx", "rdma"));
  TEST_CHECK(!dart__osc_list_leaves_out("^ucx", "sm"));
  TEST_CHECK(dart__osc_list_leaves_out("^ucx", "ucx"));
  /* not set: Open MPI picks, which may be rdma */
  TEST_CHECK(!dart__osc_list_leaves_out(NULL, "rdma"));
  TEST_CHECK(!dart__osc_list_leaves_out("", "rdma"));
}

/* dart_init's own setting from what Open MPI's launcher says */
static void test_default(void)
{
  TEST_CHECK(strcmp(dart__osc_default("4", "4", 0), "^ucx,pt2pt") == 0);
  TEST_CHECK(strcmp(dart__osc_default("2", "2", 0), "^ucx,pt2pt") == 0);
  /* one process: osc/rdma creates no window on one process */
  TEST_CHECK(strcmp(dart__osc_default("1", "1", 0), "^rdma") == 0);
  /* several nodes, simulated nodes, no or bad launcher variables */
  TEST_CHECK(strcmp(dart__osc_default("4", "2", 0), "^rdma") == 0);
  TEST_CHECK(strcmp(dart__osc_default("4", "4", 2), "^rdma") == 0);
  TEST_CHECK(strcmp(dart__osc_default(NULL, "4", 0), "^rdma") == 0);
  TEST_CHECK(strcmp(dart__osc_default("4", NULL, 0), "^rdma") == 0);
  TEST_CHECK(strcmp(dart__osc_default("", "", 0), "^rdma") == 0);
  TEST_CHECK(strcmp(dart__osc_default("4x", "4x", 0), "^rdma") == 0);
  TEST_CHECK(strcmp(dart__osc_default("-4", "-4", 0), "^rdma") == 0);
  TEST_CHECK(strcmp(dart__osc_default("99999999999999999999",
                                      "99999999999999999999", 0),
                    "^rdma") == 0);
  TEST_CHECK(strcmp(dart__osc_default("04", "4", 0), "^ucx,pt2pt") == 0);
  /* the setting it gives leaves what it means to leave */
  TEST_CHECK(!dart__osc_list_leaves_out("^ucx,pt2pt", "rdma"));
  TEST_CHECK(!dart__osc_list_leaves_out("^ucx,pt2pt", "sm"));
  TEST_CHECK(dart__osc_list_leaves_out("^ucx,pt2pt", "ucx"));
  TEST_CHECK(dart__osc_list_leaves_out("^ucx,pt2pt", "pt2pt"));
}

/* Times (us per 8-byte allreduce) as the probe measured them at 4 units
 * on 2 cores. */
static void test_coll_wait_rule(void)
{
  /* Open MPI idle and loaded: the blocking call stays */
  TEST_CHECK(dart__coll_wait_prefers_block(12.94, 23.81));
  TEST_CHECK(dart__coll_wait_prefers_block(59.06, 44.45)); /* 1.33x */
  TEST_CHECK(dart__coll_wait_prefers_block(57.62, 41.02)); /* 1.40x */
  TEST_CHECK(dart__coll_wait_prefers_block(2.0, 1.0));     /* the edge */
  /* MPICH polls: yield */
  TEST_CHECK(!dart__coll_wait_prefers_block(2740.64, 208.56));
  TEST_CHECK(!dart__coll_wait_prefers_block(3006.32, 862.05)); /* 3.5x */
  TEST_CHECK(!dart__coll_wait_prefers_block(2.01, 1.0));
}

int main(void)
{
  test_list_names();
  test_list_leaves_out();
  test_default();
  test_coll_wait_rule();
  printf("unit_osc_policy: OK\n");
  return 0;
}
