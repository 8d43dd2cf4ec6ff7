/* Signals and walltime: the handler only records the signal; run_stop_poll, called by every rank
 * at the same step boundaries, agrees with one MPI_Allreduce(MAX) of an int whether to stop (rank
 * 0's clock decides the walltime). A signal that reaches only mpiexec is forwarded by Hydra to
 * every rank; one sent to every process arrives everywhere; either way the maximum is the same. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "stop.h"

static volatile sig_atomic_t caught_signal = 0;

static void on_signal(int signo) { caught_signal = signo; }

int run_stop_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART; /* MPI and I/O calls continue; the flag is read at the next step */
  const int signals[] = {SIGTERM, SIGINT, SIGUSR1};
  for (int i = 0; i < 3; i++)
    if (sigaction(signals[i], &sa, NULL)) return 1;
  return 0;
}

void run_stop_init(run_stop *st, double walltime) {
  memset(st, 0, sizeof *st);
  st->checkpoint_s = -1;
  const double now = MPI_Wtime();
  if (walltime > 0) st->deadline = now + walltime;
  const char *end = getenv("SLURM_JOB_END_TIME");
  char *tail = NULL;
  const double end_epoch = end ? strtod(end, &tail) : 0;
  if (end && tail != end && *tail == '\0' && end_epoch > 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    const double slurm = now + (end_epoch - (ts.tv_sec + 1e-9 * ts.tv_nsec));
    if (!st->deadline || slurm < st->deadline) st->deadline = slurm;
  }
}

void run_stop_checkpoint_took(run_stop *st, double seconds) { st->checkpoint_s = seconds; }

/* Stop when the time left is less than a checkpoint plus a step, with room to spare: twice the
 * last checkpoint's duration (2 s before the first is measured) and twice the longest step. */
static int walltime_over(run_stop *st, double now) {
  if (!st->deadline) return 0;
  const double checkpoint = st->checkpoint_s >= 0 ? 2 * st->checkpoint_s : 2.0;
  return st->deadline - now < checkpoint + 2 * st->step_s;
}

int run_stop_poll(void *user) {
  run_stop *st = user;
  if (st->reason) return 1;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int mine = caught_signal;
  if (rank == 0) {
    const double now = MPI_Wtime();
    if (st->last_agreed > 0) st->step_s = fmax(st->step_s, now - st->last_agreed); /* not the set-up before */
    st->last_agreed = now;
    if (walltime_over(st, now)) mine = RUN_STOP_WALLTIME;
  }
  int agreed = 0;
  MPI_Allreduce(&mine, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  st->reason = agreed;
  return agreed != RUN_STOP_NONE;
}

const char *run_stop_reason(const run_stop *st) {
  switch (st->reason) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGUSR1: return "SIGUSR1";
    case RUN_STOP_WALLTIME: return "the walltime";
    default: return "a request";
  }
}
