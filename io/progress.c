#include <stdio.h>
#include <unistd.h>
#include <mpi.h>
#include "progress.h"

void hm_progress_init(hm_progress *p, int rank, int quiet) {
  p->enabled = rank == 0 && !quiet && isatty(fileno(stderr));
  p->t_start = p->t_last = MPI_Wtime();
  p->done_start = -1;
}

void hm_progress_update(hm_progress *p, int done, int total) {
  if (!p->enabled) return;
  if (p->done_start < 0) p->done_start = done - 2;
  double now = MPI_Wtime();
  if (now - p->t_last < 0.5 && done < total) return;
  p->t_last = now;
  double rate = (done - p->done_start) / (now - p->t_start + 1e-12);
  double eta = rate > 0 ? (total - done) / rate : 0;
  fprintf(stderr, "\r  moments %d/%d  %.0f moments/s  ETA %.0f s   ", done, total, rate, eta);
  fflush(stderr);
}

void hm_progress_finish(hm_progress *p) {
  if (p->enabled) fprintf(stderr, "\r%60s\r", "");
}
