/* Progress of long runs on rank 0: moments done, rate and ETA, redrawn on one line at most twice
 * a second, only when stderr is a terminal and not quiet. */
#ifndef HAMLET_PROGRESS_H
#define HAMLET_PROGRESS_H

typedef struct {
  int enabled;
  double t_start, t_last;
  int done_start; /* moments already done when this run started (restart) */
} hm_progress;

void hm_progress_init(hm_progress *p, int rank, int quiet);
void hm_progress_update(hm_progress *p, int done, int total);
void hm_progress_finish(hm_progress *p);
#endif
