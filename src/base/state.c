/*
 * Process-wide state of base: dart__g (filled by the runtime's dart_init,
 * read by every layer) and the wait word of dart_watch.h (written by every
 * wait, read by the transport's progress thread). Defined here so that
 * base reads nothing defined above it.
 */
#include "dart_mpi.h"
#include "dart_watch.h"

dart__global_t dart__g = {.myid = -1, .comm = MPI_COMM_NULL};

unsigned long dart__wait_word;
