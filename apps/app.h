/* Shared by the hamlet program's subcommands. */
#ifndef HAMLET_APP_H
#define HAMLET_APP_H
#include "hamlet.h"

typedef struct {
  const char *deck_path;       /* run: the deck */
  const char *checkpoint_path; /* restart: the checkpoint */
  const char *output;          /* -o, overrides the deck's output */
  int quiet;
} hm_run_args;

/* Exit codes the program uses. */
enum { HM_EXIT_OK = 0, HM_EXIT_FAIL = 1, HM_EXIT_USAGE = 2, HM_EXIT_NOT_CONVERGED = 3, HM_EXIT_STOPPED = 4 };

/* MPI_Init_thread at the level hamlet needs (MPI_THREAD_FUNNELED: OpenMP threads in each rank,
 * MPI only from the main thread); a library that gives less is refused: HM_EXIT_FAIL, MPI finalized. */
int hm_app_mpi_init(int *argc, char ***argv);
int hm_app_run(const hm_run_args *args); /* collective; returns an exit code */
#endif
