/*
 * Linked into every MPI test: with DART_TEST_APPINIT=1 in the environment,
 * the test process initializes MPI itself before main() (as DASH and many
 * MPI+PGAS applications do, with MPI_Init and the MPI's default settings),
 * so dart_init finds MPI running and must cope with whatever the MPI chose
 * (for Open MPI: its osc/rdma component, which DART avoids when it starts
 * MPI). DART_TEST_APPINIT=multiple asks for MPI_THREAD_MULTIPLE instead.
 * MPI is finalized at exit. CTest runs these as the "app" variants.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static void appinit_finalize(void)
{
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Finalize();
}

__attribute__((constructor)) static void appinit(void)
{
  const char *e = getenv("DART_TEST_APPINIT");
  if (e == NULL || e[0] == '\0' || strcmp(e, "0") == 0) return;
  if (strcmp(e, "multiple") == 0) {
    int provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(NULL, NULL);
  }
  atexit(appinit_finalize);
}
