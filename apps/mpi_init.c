/* hamlet's ranks run OpenMP threads, and only the thread that called MPI_Init_thread calls MPI
 * (the energy poller and the OpenMP kernels never do): MPI_THREAD_FUNNELED is the level needed. */
#include <stdio.h>
#include <mpi.h>
#include "app.h"

static const char *level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown level";
  }
}

int hm_app_mpi_init(int *argc, char ***argv) {
  int provided = MPI_THREAD_SINGLE, rank = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "hamlet: MPI_Init_thread failed\n");
    return HM_EXIT_FAIL;
  }
  if (provided >= MPI_THREAD_FUNNELED) return HM_EXIT_OK;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    fprintf(stderr,
            "hamlet: the MPI library provides only %s; hamlet needs MPI_THREAD_FUNNELED (OpenMP threads in each "
            "rank, MPI from the main thread only): use an MPI library built with thread support\n",
            level_name(provided));
  MPI_Finalize();
  return HM_EXIT_FAIL;
}
