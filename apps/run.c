/* hamlet run / hamlet restart: deck -> TI Hamiltonian -> KPM moments (with checkpoints) -> DOS
 * -> one HDF5 file, written atomically. A failure prints hamlet's message and ends every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>
#include "app.h"
#include "deck.h"
#include "energy.h"
#include "progress.h"

enum { PHASE_BUILD, PHASE_BOUNDS, PHASE_MOMENTS, PHASE_RECONSTRUCTION, PHASE_CHECKPOINT, PHASE_IO, PHASES };
static const char *phase_name[PHASES] = {"build", "bounds", "moments", "reconstruction", "checkpoint", "io"};

typedef struct {
  hm_deck deck;
  hm_context *ctx;
  int rank, size;
  char checkpoint_path[HM_PATH_MAX];
  double seconds[PHASES];
  hm_energy_meter *energy;  /* GPU (NVML) and CPU package (RAPL) meters of this node, if any */
  int nmeters;
  double *joules;           /* [PHASES][nmeters] */
  int checkpoints_written;
  hm_progress progress;
  useconds_t test_delay_us; /* HAMLET_TEST_STEP_DELAY_US: slows steps so tests can kill a run mid-way */
} run_state;

/* Library failures end the whole run: print, then abort every rank (others may wait in MPI). */
#define APP_CALL(expr)                                                                        \
  do {                                                                                        \
    if (expr) {                                                                               \
      fprintf(stderr, "hamlet: rank %d failed:\n%s", s->rank, hm_error_message());            \
      MPI_Abort(MPI_COMM_WORLD, HM_EXIT_FAIL);                                                \
    }                                                                                         \
  } while (0)

/* A phase's start: wall time and meter readings; phase_add charges what passed since to a phase. */
typedef struct {
  double t;
  double *joules;
} mark;

static void mark_now(run_state *s, mark *m) {
  m->t = MPI_Wtime();
  if (!m->joules) m->joules = calloc((size_t)s->nmeters + 1, sizeof(double));
  APP_CALL(m->joules == NULL || hm_energy_read(s->energy, m->joules));
}

static void phase_add(run_state *s, const mark *m, int phase) {
  s->seconds[phase] += MPI_Wtime() - m->t;
  APP_CALL(hm_energy_add_since(s->energy, m->joules, s->joules + (size_t)phase * s->nmeters));
}

static void on_progress(int done, int total, void *user) {
  run_state *s = user;
  if (s->test_delay_us) usleep(s->test_delay_us);
  hm_energy_poll(s->energy); /* often enough that no RAPL counter wraps unseen */
  hm_progress_update(&s->progress, done, total);
}

static int on_checkpoint(hm_kpm *kpm, void *user) {
  run_state *s = user;
  mark m = {0};
  mark_now(s, &m);
  int st = hm_checkpoint_write(kpm, s->checkpoint_path, s->deck.text);
  phase_add(s, &m, PHASE_CHECKPOINT);
  free(m.joules);
  s->checkpoints_written++;
  return st;
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
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  st = hm_deck_parse_string(text, path, &s->deck);
  free(text);
  if (st && s->rank == 0) fprintf(stderr, "hamlet: %s", hm_error_message());
  return st;
}

static void print_summary(const run_state *s, hm_kpm *kpm, const hm_matrix *H, int dos_points, const char *output) {
  if (s->rank != 0) return;
  int64_t n, nnz;
  hm_matrix_info(H, &n, &nnz, NULL);
  double emin, emax;
  hm_kpm_interval(kpm, &emin, &emax);
  const hm_ti_params *p = &s->deck.ti;
  const char *bc[2] = {"periodic", "open"};
  const int M = s->deck.kpm.moments, R = s->deck.kpm.vectors;
  printf("hamlet %s: KPM density of states\n", hm_version());
  printf("  hamiltonian  ti %lld x %lld x %lld (%s %s %s), t = %g, m = %g: N = %lld, nnz = %lld (%.1f per row)\n",
         (long long)p->nx, (long long)p->ny, (long long)p->nz, bc[p->boundary[0]], bc[p->boundary[1]],
         bc[p->boundary[2]], p->t, p->m, (long long)n, (long long)nnz, (double)nnz / (double)n);
  hm_backend backend = HM_BACKEND_CPU;
  hm_context_backend(s->ctx, &backend);
  printf("  parallel     %d rank%s x %d thread%s, backend %s\n", s->size, s->size > 1 ? "s" : "",
         omp_get_max_threads(), omp_get_max_threads() > 1 ? "s" : "", backend == HM_BACKEND_CUDA ? "cuda" : "cpu");
  printf("  interval     [%.6g, %.6g]\n", emin, emax);
  printf("  moments      %d x %d random vectors: %.3f s (%.3g us per vector per step)\n", M, R,
         s->seconds[PHASE_MOMENTS], 1e6 * s->seconds[PHASE_MOMENTS] / (R * (M / 2.0)));
  printf("  dos          %d energies, %s kernel\n", dos_points, s->deck.dos.kernel == HM_KERNEL_JACKSON ? "Jackson" : "Lorentz");
  printf("  timing      ");
  for (int i = 0; i < PHASES; i++) printf(" %s %.3f s%s", phase_name[i], s->seconds[i], i + 1 < PHASES ? "," : "\n");
  if (s->checkpoints_written) printf("  checkpoints  %d written to %s\n", s->checkpoints_written, s->checkpoint_path);
  printf("  output       %s\n", output);
}

static void write_output(run_state *s, hm_kpm *kpm, hm_matrix *H, hm_dos *dos, const char *path) {
  mark m = {0};
  mark_now(s, &m);
  hm_output *out;
  APP_CALL(hm_output_create(s->ctx, path, &out));
  APP_CALL(hm_output_write_input(out, s->deck.text));
  APP_CALL(hm_output_write_provenance(out));
  APP_CALL(hm_output_write_ti(out, &s->deck.ti, H));
  APP_CALL(hm_output_write_kpm(out, kpm, &s->deck.dos));
  APP_CALL(hm_output_write_dos(out, dos));
  phase_add(s, &m, PHASE_IO);
  free(m.joules);
  char name[64];
  for (int i = 0; i < PHASES; i++) {
    snprintf(name, sizeof name, "/timing/%s", phase_name[i]);
    APP_CALL(hm_output_write_scalar(out, name, s->seconds[i], "s"));
  }
  APP_CALL(hm_energy_write(out, s->energy, PHASES, phase_name, s->joules));
  APP_CALL(hm_output_commit(&out));
}

/* Without OMP_NUM_THREADS, share this node's cores among its ranks: oversubscribed OpenMP
 * threads spinning against MPI progress cost orders of magnitude. */
static void choose_threads(void) {
  if (getenv("OMP_NUM_THREADS")) return;
  MPI_Comm node;
  int on_node = 1;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  int threads = omp_get_num_procs() / on_node;
  omp_set_num_threads(threads > 0 ? threads : 1);
}

int hm_app_run(const hm_run_args *args) {
  run_state state = {0}, *s = &state;
  choose_threads();
  MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s->size);
  const char *delay = getenv("HAMLET_TEST_STEP_DELAY_US");
  s->test_delay_us = delay ? (useconds_t)atol(delay) : 0;

  /* A restart takes the deck and the interval from the checkpoint. */
  char *saved_deck = NULL;
  double emin = 0, emax = 0;
  hm_context *ctx0 = NULL;
  if (args->checkpoint_path) {
    APP_CALL(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx0));
    if (hm_checkpoint_read_header(ctx0, args->checkpoint_path, &saved_deck, &emin, &emax)) {
      if (s->rank == 0) fprintf(stderr, "hamlet: %s", hm_error_message());
      hm_context_destroy(&ctx0);
      return HM_EXIT_USAGE;
    }
    hm_context_destroy(&ctx0);
  }
  const char *name = args->checkpoint_path ? args->checkpoint_path : args->deck_path;
  if (load_deck(s, name, saved_deck)) return HM_EXIT_USAGE;
  free(saved_deck);
  hm_deck *d = &s->deck;
  const char *output = args->output ? args->output : d->output;
  hm_deck_checkpoint_path(d, s->checkpoint_path, sizeof s->checkpoint_path);
  hm_progress_init(&s->progress, s->rank, args->quiet);

  if (hm_context_create(MPI_COMM_WORLD, d->backend, &s->ctx)) {
    if (s->rank == 0) fprintf(stderr, "hamlet: %s", hm_error_message());
    return HM_EXIT_USAGE;
  }
  APP_CALL(hm_energy_open(&s->energy));
  APP_CALL(hm_energy_count(s->energy, &s->nmeters));
  s->joules = calloc((size_t)PHASES * s->nmeters + 1, sizeof(double));
  mark m = {0};
  mark_now(s, &m);
  hm_matrix *H;
  APP_CALL(hm_ti_build(s->ctx, &d->ti, &H));
  phase_add(s, &m, PHASE_BUILD);

  hm_kpm_options opt = d->kpm;
  if (args->checkpoint_path) { /* the saved interval, bit for bit */
    opt.bounds = HM_BOUNDS_GIVEN;
    opt.emin = emin;
    opt.emax = emax;
  }
  opt.progress = on_progress;
  opt.progress_user = s;
  opt.checkpoint = on_checkpoint;
  opt.checkpoint_user = s;
  mark_now(s, &m);
  hm_kpm *kpm;
  APP_CALL(hm_kpm_create(H, &opt, &kpm));
  if (args->checkpoint_path) APP_CALL(hm_checkpoint_restore(kpm, args->checkpoint_path));
  phase_add(s, &m, PHASE_BOUNDS);

  mark_now(s, &m);
  APP_CALL(hm_kpm_run(kpm));
  phase_add(s, &m, PHASE_MOMENTS);
  s->seconds[PHASE_MOMENTS] -= s->seconds[PHASE_CHECKPOINT]; /* checkpoints ran inside the moments */
  for (int i = 0; i < s->nmeters; i++)
    s->joules[PHASE_MOMENTS * s->nmeters + i] -= s->joules[PHASE_CHECKPOINT * s->nmeters + i];
  hm_progress_finish(&s->progress);

  mark_now(s, &m);
  const int M = opt.moments, R = opt.vectors;
  double *mu = malloc(sizeof(double) * M), *mu_vec = malloc(sizeof(double) * (size_t)M * R);
  APP_CALL(hm_kpm_moments(kpm, mu, mu_vec));
  double scale, shift;
  int64_t n;
  APP_CALL(hm_kpm_info(kpm, NULL, NULL, NULL, &scale, &shift, &n));
  hm_dos *dos;
  APP_CALL(hm_dos_create(M, R, mu_vec, scale, shift, n, &d->dos, &dos));
  phase_add(s, &m, PHASE_RECONSTRUCTION);
  free(m.joules);
  free(mu);
  free(mu_vec);

  write_output(s, kpm, H, dos, output);
  int points = 0;
  hm_dos_size(dos, &points);
  print_summary(s, kpm, H, points, output);

  hm_dos_destroy(&dos);
  hm_kpm_destroy(&kpm);
  hm_matrix_destroy(&H);
  hm_context_destroy(&s->ctx);
  hm_energy_close(&s->energy);
  free(s->joules);
  hm_deck_free(d);
  return HM_EXIT_OK;
}
