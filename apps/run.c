/* hamlet run / hamlet restart: the harness every method shares: deck (read on rank 0, parsed
 * everywhere), context, energy meters, phase timing, the Hamiltonian, and the common groups of the
 * result file (/input, /provenance, /hamiltonian, /timing, /energy), written atomically. The
 * method (run_<method>.c) does the solving and writes its own groups. A failure prints hamlet's
 * message and ends every rank. */
#include <string.h>
#include <omp.h>
#include "checkpoint_identity.h"
#include "checkpoint_state.h"
#include "deck_files.h"
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

/* Rank 0 reads the deck file and broadcasts its text; every rank parses the same text. */
static int load_deck(run_state *s, const char *path, const char *text_in) {
  char *text = NULL;
  long len = 0;
  int st = HM_SUCCESS;
  if (text_in) {
    text = strdup(text_in);
  } else if (s->rank == 0) {
    st = hm_deck_read_file(path, &text);
    if (st) fprintf(stderr, "hamlet: %s", hm_error_message());
  }
  MPI_Bcast(&st, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (st) return st;
  if (!text_in) {
    if (s->rank == 0) len = (long)strlen(text);
    MPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (s->rank != 0) text = calloc((size_t)len + 1, 1);
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD); /* len <= MAX_DECK_BYTES (1 MiB, io/deck.c) */
  }
  st = hm_deck_parse_string(text, path, &s->deck);
  free(text);
  if (st && s->rank == 0) fprintf(stderr, "hamlet: %s", hm_error_message());
  return st;
}

/* A restart takes the deck from the checkpoint (and for KPM the interval, bit for bit). */
static int read_restart_header(run_state *s, char **saved_deck) {
  hm_context *ctx0 = NULL;
  APP_CALL(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx0));
  int is_kpm = 0;
  int st = hm_checkpoint_read_deck(ctx0, s->args->checkpoint_path, saved_deck, &is_kpm);
  if (!st && is_kpm) {
    free(*saved_deck);
    st = hm_checkpoint_read_header(ctx0, s->args->checkpoint_path, saved_deck, &s->restart_emin, &s->restart_emax);
  }
  if (st && s->rank == 0) fprintf(stderr, "hamlet: %s", hm_error_message());
  hm_context_destroy(&ctx0);
  return st;
}

int run_stopped(run_state *s, const char *where) {
  if (s->rank == 0) {
    fprintf(stderr, "hamlet: stopped by %s %s; continue with: hamlet restart %s\n", run_stop_reason(&s->stop), where,
            s->checkpoint_path);
    fflush(stderr);
  }
  return HM_EXIT_STOPPED;
}

/* Checkpoints carry the identity of H; a restart refuses one of another Hamiltonian. */
static int check_hamiltonian_identity(run_state *s, hm_matrix *H) {
  APP_CALL(hm_ham_identity_compute(H, s->deck.text, &s->identity));
  s->identity_known = 1;
  if (!s->args->checkpoint_path) return HM_SUCCESS;
  int st = hm_checkpoint_identity_check(s->ctx, s->args->checkpoint_path, &s->identity);
  if (st && s->rank == 0) fprintf(stderr, "hamlet: %s", hm_error_message());
  return st;
}

int hm_app_run(const hm_run_args *args) {
  run_state state = {0}, *s = &state;
  s->args = args;
  MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s->size);
  run_choose_threads(s);
#ifdef HAMLET_TEST_HOOKS
  const char *delay = getenv("HAMLET_TEST_STEP_DELAY_US");
  s->test_delay_us = delay ? (useconds_t)atol(delay) : 0;
#endif

  char *saved_deck = NULL;
  if (args->checkpoint_path && read_restart_header(s, &saved_deck)) return HM_EXIT_USAGE;
  const char *name = args->checkpoint_path ? args->checkpoint_path : args->deck_path;
  if (load_deck(s, name, saved_deck)) return HM_EXIT_USAGE;
  free(saved_deck);
  hm_deck *d = &s->deck;
  hm_deck_resolve_inputs(d); /* before the paths are checked: the files protected are the files read */
  s->output = args->output ? args->output : d->output;
  hm_deck_checkpoint_path(d, s->checkpoint_path, sizeof s->checkpoint_path);
  if (args->checkpoint_path) /* a restart continues its own checkpoint, never another run's */
    snprintf(s->checkpoint_path, sizeof s->checkpoint_path, "%s", args->checkpoint_path);
  if (run_check_paths(s)) {
    hm_deck_free(d);
    return HM_EXIT_USAGE;
  }
  hm_progress_init(&s->progress, s->rank, args->quiet, d->progress_seconds, run_progress_unit(d));
  run_stop_init(&s->stop, d->walltime);

  if (hm_context_create(MPI_COMM_WORLD, d->backend, &s->ctx)) {
    if (s->rank == 0) fprintf(stderr, "hamlet: %s", hm_error_message());
    return HM_EXIT_USAGE;
  }
  hm_backend resolved;
  APP_CALL(hm_context_backend(s->ctx, &resolved));
  int on_gpu = resolved == HM_BACKEND_CUDA, gpu_ranks = 0;
  MPI_Allreduce(&on_gpu, &gpu_ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (gpu_ranks == 0 || gpu_ranks == s->size) snprintf(s->backend_text, sizeof s->backend_text, "%s", gpu_ranks ? "cuda" : "cpu");
  else snprintf(s->backend_text, sizeof s->backend_text, "mixed (%d on GPUs, %d on CPUs)", gpu_ranks, s->size - gpu_ranks);
  if (d->backend == HM_BACKEND_MIXED && resolved == HM_BACKEND_CUDA) APP_CALL(hm_context_set_weight(s->ctx, d->gpu_weight));
  APP_CALL(hm_energy_open(&s->energy));
  /* read every second from a thread: no RAPL wrap is missed inside one long call (a dense solve) */
  APP_CALL(hm_energy_start_polling(s->energy, 1.0));
  APP_CALL(hm_energy_count(s->energy, &s->nmeters));
  s->joules = calloc((size_t)RUN_MAX_PHASES * s->nmeters + 1, sizeof(double));
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_matrix *H, *M;
  run_build_model(s, &H, &M);
  APP_CALL(hm_matrix_info(H, &s->rows, NULL, NULL));
  run_phase_add(s, &m, 0); /* phase 0 is "build" in every method */
  free(m.joules);
  if (check_hamiltonian_identity(s, H)) return HM_EXIT_USAGE;

  int code = HM_EXIT_FAIL;
  switch (d->solver.method) {
    case HM_METHOD_KPM: code = run_kpm(s, H); break;
    case HM_METHOD_LOBPCG: code = run_lobpcg(s, H, M); break;
    case HM_METHOD_DENSE: code = run_dense(s, H, M); break;
    case HM_METHOD_IDR: code = run_idr(s, H); break;
    case HM_METHOD_CONDUCTIVITY: code = run_conductivity(s, H); break;
    case HM_METHOD_MARKER: code = run_marker(s, H); break;
    case HM_METHOD_SPECTRAL: code = run_spectral(s, H); break;
    case HM_METHOD_INTERIOR: code = run_interior(s, H); break;
    case HM_METHOD_EVOLUTION: code = run_evolution(s, H); break;
  }

  hm_matrix_destroy(&M);
  hm_matrix_destroy(&H);
  hm_context_destroy(&s->ctx);
  hm_energy_close(&s->energy);
  free(s->joules);
  hm_deck_free(d);
  hm_app_on_failure(NULL, NULL);
  free(s->binding);
  return code;
}
