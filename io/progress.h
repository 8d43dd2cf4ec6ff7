/* Progress of long runs on rank 0: work done, rate and ETA in the method's unit (moments,
 * iterations, energies). On a terminal one line is redrawn at most twice a second; in a batch
 * log (stderr not a terminal) a timestamped line is written every `interval` seconds, so a
 * user reading the job's log sees how far the run is. Nothing with --quiet or interval 0 (batch). */
#ifndef HAMLET_PROGRESS_H
#define HAMLET_PROGRESS_H
#include <stdio.h>

typedef struct {
  int enabled;
  int batch;             /* stderr is not a terminal: timestamped lines, one per interval */
  double interval;       /* batch: seconds between lines */
  const char *unit;      /* "moments", "iterations", "energies" */
  FILE *stream;          /* stderr */
  double t_start, t_last;
  int done_start;        /* work already done when this run started (restart); -1 = not seen yet */
  char detail[96];       /* appended to each line (e.g. converged pairs); empty = none */
} hm_progress;

/* interval: seconds between batch lines (0 = none in batch logs); unit names what is counted. */
void hm_progress_init(hm_progress *p, int rank, int quiet, double interval, const char *unit);
void hm_progress_update(hm_progress *p, int done, int total);
void hm_progress_finish(hm_progress *p);
/* Text appended to the next lines (", <detail>"), e.g. a solver's converged count; NULL clears it. */
void hm_progress_set_detail(hm_progress *p, const char *detail);
#endif
