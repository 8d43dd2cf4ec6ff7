/* What a batch job's log and result need beyond the method's numbers: the unit of the progress
 * lines and the peak memory (summary line and /memory). */
#include "run_state.h"

const char *run_progress_unit(const hm_deck *d) {
  switch (d->solver.method) {
    case HM_METHOD_KPM:
    case HM_METHOD_SPECTRAL: return "moments";
    case HM_METHOD_MARKER: return "cells";
    case HM_METHOD_IDR: return d->solver.problem == 1 /* green */ ? "energies" : "iterations";
    case HM_METHOD_LOBPCG: return d->solver.transform && d->solver.outer != 0 ? "restarts" : "iterations"; /* krylov_schur */
    default: return "iterations";
  }
}

void run_memory_write(run_state *s, hm_output *out) {
  APP_CALL(hm_memory_gather(s->ctx, &s->memory));
  APP_CALL(hm_memory_write(out, &s->memory));
}

void run_print_memory(const run_state *s) {
  const double mib = 1024.0 * 1024.0;
  printf("  memory       host peak %.1f to %.1f MiB per rank", s->memory.host_min / mib, s->memory.host_max / mib);
  if (s->memory.device_max > 0) printf(", device peak up to %.1f MiB", s->memory.device_max / mib);
  printf("\n");
  /* the largest rank's peak over its share of the rows: what a host of given memory can hold */
  if (s->rows > 0)
    printf("  per orbital  host %.1f B\n", (double)s->memory.host_max * s->size / (double)s->rows);
}
