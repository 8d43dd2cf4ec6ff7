/* hamlet run / hamlet restart: the harness every method shares: deck (read on rank 0, parsed
 * everywhere), paths, context, energy meters, the Hamiltonian and its identity, then the method of the
 * deck from the table below (run_<method>.c), which solves and writes its groups with the services of
 * run_services.c. A failure prints hamlet's message and ends every rank. */
#include <string.h>
#include "checkpoint_identity.h"
#include "checkpoint_state.h"
#include "deck_files.h"
#include "run_state.h"

/* The methods: each names its phases, solves, writes its groups and returns an exit code. */
static const struct {
  int method; /* hm_deck_method */
  int (*run)(run_state *s, hm_matrix *H, hm_matrix *M);
} run_methods[] = {
    {HM_METHOD_KPM, run_kpm},           {HM_METHOD_LOBPCG, run_lobpcg},         {HM_METHOD_DENSE, run_dense},
    {HM_METHOD_IDR, run_idr},           {HM_METHOD_CONDUCTIVITY, run_conductivity}, {HM_METHOD_MARKER, run_marker},
    {HM_METHOD_SPECTRAL, run_spectral}, {HM_METHOD_INTERIOR, run_interior},     {HM_METHOD_EVOLUTION, run_evolution},
};

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
  s->test_step_file = getenv("HAMLET_TEST_STEP_FILE");
#endif

  char *saved_deck = NULL;
  if (args->checkpoint_path && read_restart_header(s, &saved_deck)) return HM_EXIT_USAGE;
  const char *name = args->checkpoint_path ? args->checkpoint_path : args->deck_path;
  if (load_deck(s, name, saved_deck)) return HM_EXIT_USAGE;
  free(saved_deck);
  hm_deck *d = &s->deck;
  hm_deck_resolve_inputs(d); /* before the paths are checked: the files protected are the files read */
  s->output = args->output ? args->output : d->output;
  if (args->export_only) { /* the entries, whatever storage and arithmetic the deck's methods would use */
    const char *dot = strrchr(s->output, '.');
    const int stem = dot ? (int)(dot - s->output) : (int)strlen(s->output);
    snprintf(s->export_mass, sizeof s->export_mass, "%.*s_mass.mtx", stem, s->output);
    for (int a = 0; a < 3; a++)
      snprintf(s->export_velocity[a], sizeof s->export_velocity[a], "%.*s_v%c.mtx", stem, s->output, 'x' + a);
    d->lattice.storage = 1;
    d->lattice.arithmetic = 0;
    s->export_h5 = dot && !strcmp(dot, ".h5");
  }
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
  if (args->export_only) code = run_export(s, H, M);
  else
    for (size_t i = 0; i < sizeof run_methods / sizeof run_methods[0]; i++)
      if (run_methods[i].method == d->solver.method) code = run_methods[i].run(s, H, M);

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
