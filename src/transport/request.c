/*
 * MPI errors come back as dart_ret_t: completion of MPI requests.
 *
 * Every communicator DART creates carries MPI_ERRORS_RETURN: DART's
 * duplicate of MPI_COMM_WORLD gets it in dart_init, and everything else
 * (node communicators, team communicators, the progress thread's
 * duplicate) is split or duplicated from it and inherits it (the MPI
 * standard has duplicates and splits inherit it); team.c sets it again on team
 * and node communicators, and window.c on every window. DART never changes the
 * handler of the application's MPI_COMM_WORLD, with one exception below.
 *
 * Open MPI 4.1 reports the error of a failed non-blocking collective
 * through MPI_COMM_WORLD's handler instead of the handler of the request's
 * communicator (libnbc's requests carry none; raw-MPI check: an MPI_Ibcast
 * with a larger count at the root than at the receivers, on a communicator
 * with MPI_ERRORS_RETURN, aborts the job in MPI_Test "on communicator
 * MPI_COMM_WORLD" with MPI_ERR_TRUNCATE). DART therefore polls its
 * requests with MPI_Request_get_status, which never invokes a handler, and
 * completes a finished request with MPI_Test while MPI_COMM_WORLD returns
 * errors, restoring the application's handler right after. It does so
 * with every MPI: which MPIs misroute these errors cannot be probed short
 * of aborting the job, and the extra calls come only once per finished
 * request. During those
 * few calls an error that another thread of the application raises on
 * MPI_COMM_WORLD is returned instead of handled (docs/design.md §6).
 */
#include <pthread.h>

#include "dart_mpi.h"
#include "transport/wait.h"

static pthread_mutex_t world_handler_lock = PTHREAD_MUTEX_INITIALIZER;

/* MPI_Test of a finished request while MPI_COMM_WORLD returns errors. */
static int test_returning(MPI_Request *req, int *done)
{
  pthread_mutex_lock(&world_handler_lock);
  MPI_Errhandler app;
  int rc = MPI_Comm_get_errhandler(MPI_COMM_WORLD, &app);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) {
      rc = MPI_Test(req, done, MPI_STATUS_IGNORE);
      int rc2 = MPI_Comm_set_errhandler(MPI_COMM_WORLD, app);
      if (rc == MPI_SUCCESS) rc = rc2;
    }
    int rc3 = MPI_Errhandler_free(&app);
    if (rc == MPI_SUCCESS) rc = rc3;
  }
  pthread_mutex_unlock(&world_handler_lock);
  return rc;
}

int dart__mpi_test(MPI_Request *req, int *done)
{
  int rc = MPI_Request_get_status(*req, done, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS || !*done) return rc;
  return test_returning(req, done);
}
