/* Rank 0's progress line: redrawn in place on a terminal, appended with a UTC time stamp to a
 * batch log (a scheduler's output file keeps every line, so redrawing would only add noise). */
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "progress.h"

void hm_progress_init(hm_progress *p, int rank, int quiet, double interval, const char *unit) {
  p->stream = stderr;
  p->batch = !isatty(fileno(stderr));
  p->interval = interval;
  p->unit = unit ? unit : "steps";
  p->enabled = rank == 0 && !quiet && (!p->batch || interval > 0);
  p->t_start = p->t_last = MPI_Wtime();
  p->done_start = -1;
  p->detail[0] = '\0';
}

void hm_progress_set_detail(hm_progress *p, const char *detail) {
  snprintf(p->detail, sizeof p->detail, "%s%s", detail && detail[0] ? ", " : "", detail ? detail : "");
}

static void print_batch_line(const hm_progress *p, int done, int total, double rate, double eta) {
  char stamp[32];
  time_t now = time(NULL);
  struct tm utc;
  gmtime_r(&now, &utc);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  double percent = total > 0 ? 100.0 * done / total : 100.0;
  fprintf(p->stream, "%s hamlet: %s %d/%d (%.1f%%), %.3g %s/s, ETA %.0f s%s\n", stamp, p->unit, done, total, percent,
          rate, p->unit, eta, p->detail);
  fflush(p->stream);
}

void hm_progress_update(hm_progress *p, int done, int total) {
  if (!p->enabled) return;
  double now = MPI_Wtime();
  /* The first update marks where this run started (a restart starts mid-way), so the rate counts
   * only the work done here. */
  if (p->done_start < 0) {
    p->done_start = done;
    p->t_start = now;
    return;
  }
  double wait = p->batch ? p->interval : 0.5;
  if (now - p->t_last < wait && (done < total || p->batch)) return;
  if (now <= p->t_start) return;
  p->t_last = now;
  double rate = (done - p->done_start) / (now - p->t_start);
  double eta = rate > 0 ? (total - done) / rate : 0;
  if (p->batch) {
    print_batch_line(p, done, total, rate, eta);
  } else {
    fprintf(p->stream, "\r  %s %d/%d  %.0f %s/s  ETA %.0f s%s   ", p->unit, done, total, rate, p->unit, eta, p->detail);
    fflush(p->stream);
  }
}

void hm_progress_finish(hm_progress *p) {
  if (p->enabled && !p->batch) fprintf(p->stream, "\r%60s\r", "");
}
