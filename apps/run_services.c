/* What every method's run uses from the harness: phases with their time and energy, the result
 * file opened with the common groups and committed with /timing and /energy, the summary's header
 * and timing lines, and the message of a stopped run. */
#include <omp.h>
#include "run_state.h"

void run_mark_now(run_state *s, run_mark *m) {
  m->t = MPI_Wtime();
  if (!m->joules) m->joules = calloc((size_t)s->nmeters + 1, sizeof(double));
  APP_CALL(m->joules == NULL || hm_energy_read(s->energy, m->joules));
}

void run_phase_add(run_state *s, const run_mark *m, int phase) {
  s->seconds[phase] += MPI_Wtime() - m->t;
  APP_CALL(hm_energy_add_since(s->energy, m->joules, s->joules + (size_t)phase * s->nmeters));
}

void run_checkpoint_done(run_state *s, run_mark *m, int phase) {
  run_phase_add(s, m, phase);
  free(m->joules);
  m->joules = NULL;
  run_stop_checkpoint_took(&s->stop, MPI_Wtime() - m->t);
  s->checkpoints_written++;
}

void run_phase_exclude(run_state *s, int outer, int inner) {
  s->seconds[outer] -= s->seconds[inner];
  for (int i = 0; i < s->nmeters; i++) s->joules[outer * s->nmeters + i] -= s->joules[inner * s->nmeters + i];
}

void run_set_phases(run_state *s, int n, const char *const *names) {
  /* The build ran before the method named its phases: it stays phase 0 ("build" in every method). */
  s->nphases = n < RUN_MAX_PHASES ? n : RUN_MAX_PHASES;
  s->phase_name = names;
}

/* After an agreed failure: the unfinished result file goes, the previous result stays. */
static void remove_unfinished_output(void *user) {
  run_state *s = user;
  if (s->open_output && *s->open_output) hm_output_destroy(s->open_output);
}

void run_output_open(run_state *s, const hm_matrix *H, hm_output **out) {
  APP_CALL(hm_output_create(s->ctx, s->output, out));
  s->open_output = out;
  hm_app_on_failure(remove_unfinished_output, s);
  APP_CALL(hm_output_write_input(*out, s->deck.text));
  APP_CALL(hm_output_write_provenance(*out));
  run_write_model(s, *out, H);
}

void run_output_commit(run_state *s, hm_output **out, const run_mark *io_start, int io_phase) {
  run_phase_add(s, io_start, io_phase);
  char name[64];
  for (int i = 0; i < s->nphases; i++) {
    snprintf(name, sizeof name, "/timing/%s", s->phase_name[i]);
    APP_CALL(hm_output_write_scalar(*out, name, s->seconds[i], "s"));
  }
  APP_CALL(hm_energy_write(*out, s->energy, s->nphases, (const char **)s->phase_name, s->joules));
  run_memory_write(s, *out);
  s->open_output = NULL; /* a failed commit removes its .tmp itself */
  APP_CALL(hm_output_commit(out));
}

void run_print_header(const run_state *s, const char *title, const hm_matrix *H) {
  printf("hamlet %s: %s\n", hm_version(), title);
  run_print_model(s, H);
  printf("  parallel     %d rank%s x %d thread%s, backend %s\n", s->size, s->size > 1 ? "s" : "",
         omp_get_max_threads(), omp_get_max_threads() > 1 ? "s" : "", s->backend_text);
  run_print_binding(s);
}

void run_print_timing(const run_state *s) {
  printf("  timing      ");
  for (int i = 0; i < s->nphases; i++)
    printf(" %s %.3f s%s", s->phase_name[i], s->seconds[i], i + 1 < s->nphases ? "," : "\n");
  run_print_memory(s);
  if (s->checkpoints_written) printf("  checkpoints  %d written to %s\n", s->checkpoints_written, s->checkpoint_path);
  printf("  output       %s\n", s->output);
}

int run_stopped(run_state *s, const char *where) {
  if (s->rank == 0) {
    fprintf(stderr, "hamlet: stopped by %s %s; continue with: hamlet restart %s\n", run_stop_reason(&s->stop), where,
            s->checkpoint_path);
    fflush(stderr);
  }
  return HM_EXIT_STOPPED;
}

#ifdef HAMLET_TEST_HOOKS
void run_test_delay(run_state *s) {
  if (s->test_delay_us) usleep(s->test_delay_us);
  if (s->test_step_file && s->rank == 0) {
    FILE *f = fopen(s->test_step_file, "w");
    if (f) fclose(f);
  }
  s->test_step_file = NULL; /* once */
}
#endif

int run_checkpoint_due(const run_state *s, int done, double t_last) {
  const hm_deck *d = &s->deck;
  int due = d->checkpoint_every > 0 && done % d->checkpoint_every == 0;
  if (d->checkpoint_seconds > 0) {
    int late = MPI_Wtime() - t_last >= d->checkpoint_seconds;
    MPI_Bcast(&late, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0's clock decides for every rank */
    due |= late;
  }
  return due;
}
