/* Shared by the hamlet program's subcommands. */
#ifndef HAMLET_APP_H
#define HAMLET_APP_H
#include "hamlet.h"

typedef struct {
  const char *deck_path;       /* run: the deck */
  const char *checkpoint_path; /* restart: the checkpoint */
  const char *output;          /* -o, overrides the deck's output */
  int quiet;
  int export_only;             /* export: write the deck's H (and mass) as Matrix Market files to output */
  int export_velocity;         /* export --velocity: the velocities v_a to write, bits 1 x, 2 y, 4 z */
} hm_run_args;

/* Exit codes the program uses. */
enum { HM_EXIT_OK = 0, HM_EXIT_FAIL = 1, HM_EXIT_USAGE = 2, HM_EXIT_NOT_CONVERGED = 3, HM_EXIT_STOPPED = 4 };

/* MPI_Init_thread at the level hamlet needs (MPI_THREAD_FUNNELED: OpenMP threads in each rank,
 * MPI only from the main thread); a library that gives less is refused: HM_EXIT_FAIL, MPI finalized. */
int hm_app_mpi_init(int *argc, char ***argv);
int hm_app_run(const hm_run_args *args); /* collective; returns an exit code */
/* hamlet post: sigma anew from a result's stored conductivity moments (post.c); an exit code. */
int hm_app_post(int argc, char **argv, int rank);
/* hamlet structure tbg ...: a structure file written (structure_cli.c); an exit code on every rank. */
int hm_app_structure(int argc, char **argv, int rank);

/* The exit code of a library status: HM_ERR_DECK, HM_ERR_INPUT -> 2; HM_ERR_NOT_CONVERGED -> 3;
 * HM_ERR_STOPPED -> 4; any other failure -> 1. */
int hm_app_exit_code(int status);
/* Failure handling (app_fail.c): init after MPI_Init (collective); hm_app_fail prints this rank's
 * message and ends the program through hm_app_exit, which waits a few seconds for every rank, then
 * finalizes and exits with the worst code, or calls MPI_Abort when some rank never comes. */
void hm_app_fail_init(void);
void hm_app_fail_free(void);
_Noreturn void hm_app_exit(int code);
/* A collective clean-up hm_app_exit runs once every rank has arrived (NULL: none). */
void hm_app_on_failure(void (*fn)(void *), void *arg);
_Noreturn void hm_app_fail(int rank, int status);
#endif
