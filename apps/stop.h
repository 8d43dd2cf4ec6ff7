/* Stopping a run early on the scheduler's request: SIGTERM, SIGINT or SIGUSR1 (caught on every
 * rank, a flag only), or the walltime ([run] walltime, SLURM_JOB_END_TIME) running out. The
 * solvers ask run_stop_poll at their step boundaries; the ranks agree there, the method writes
 * a checkpoint and the program exits HM_EXIT_STOPPED. */
#ifndef HAMLET_STOP_H
#define HAMLET_STOP_H

enum { RUN_STOP_NONE = 0, RUN_STOP_WALLTIME = 1000 }; /* else: the signal's number */

typedef struct {
  double deadline;        /* MPI_Wtime() by which the run must have ended (rank 0); 0 = none */
  double checkpoint_s;    /* measured duration of the last checkpoint; < 0 before the first */
  double last_agreed;     /* MPI_Wtime() of the last agreement (rank 0); 0 = none yet */
  double step_s;          /* longest time between two agreements seen (rank 0) */
  int reason;             /* agreed by every rank: RUN_STOP_* or the signal's number */
} run_stop;

/* Catch SIGTERM, SIGINT and SIGUSR1 on this process (call once, before the work starts). */
int run_stop_install(void);
/* walltime: seconds from now (0 = none); SLURM_JOB_END_TIME (epoch seconds) tightens it. */
void run_stop_init(run_stop *st, double walltime);
/* The solvers' stop callback (user = run_stop *): collective, the same answer on every rank. */
int run_stop_poll(void *user);
/* Every checkpoint tells how long it took: the walltime margin is made from it. */
void run_stop_checkpoint_took(run_stop *st, double seconds);
/* "SIGTERM", "SIGINT", "SIGUSR1" or "the walltime". */
const char *run_stop_reason(const run_stop *st);
#endif
