/* method = evolution: a start state (random-phase vectors, or one orbital of one cell) propagated by
 * exp(-i H dt) for `steps` steps; per step its norm, mean position and spread (variance) along the
 * lattice's three cell axes -> /evolution. Positions are cell indices (x, y, z of the cell a row's
 * orbital belongs to, rows numbered orbitals x cell + orbital): a packet must not cross a periodic
 * boundary for its spread to mean a distance. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "checkpoint_state.h"
#include "run_state.h"

enum { PHASE_BUILD, PHASE_BOUNDS, PHASE_STEPS, PHASE_CHECKPOINT, PHASE_IO, PHASES };
static const char *const phase_name[PHASES] = {"build", "bounds", "steps", "checkpoint", "io"};

/* What the run keeps per time row t = 0 .. steps: its time, every column's norm, the mean position
 * and the spread. */
typedef struct {
  int R, T;
  double *time, *norm, *position, *spread; /* [T + 1], [T + 1][R], [T + 1][3], [T + 1][3] */
} evolution_rows;

enum { CHECKPOINT_VERSION = 1, HEAD = 6 }; /* version, t, emin, emax, R, T; then rows 0 .. t */

/* Collective: the state after step t (psi) and rows 0 .. t, with the interval, so that a restart
 * propagates with the same coefficients: bit for bit. */
static int checkpoint_write(run_state *s, hm_evolution *ev, hm_mvec *psi, const evolution_rows *r, int t) {
  run_mark m = {0};
  run_mark_now(s, &m);
  double emin, emax;
  int st = hm_evolution_interval(ev, &emin, &emax);
  if (!st) st = hm_evolution_get_state(ev, psi);
  const int rows = t + 1, n = HEAD + rows * (1 + r->R + 6);
  double *v = malloc(sizeof *v * (size_t)n);
  if (!st && !v) st = HM_ERR_MEMORY;
  if (!st) {
    const double head[HEAD] = {CHECKPOINT_VERSION, t, emin, emax, r->R, r->T};
    memcpy(v, head, sizeof head);
    double *p = v + HEAD;
    memcpy(p, r->time, sizeof *p * rows), p += rows;
    memcpy(p, r->norm, sizeof *p * (size_t)rows * r->R), p += (size_t)rows * r->R;
    memcpy(p, r->position, sizeof *p * 3 * rows), p += 3 * rows;
    memcpy(p, r->spread, sizeof *p * 3 * rows);
    hm_mvec *blocks[1] = {psi};
    st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "evolution", 1, blocks, n, v,
                                   run_identity(s));
  }
  free(v);
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

/* Collective: a checkpoint's interval, rows and step; the state is read into psi by the caller.
 * Refused (exit 2) where it does not fit this deck's vectors and steps. */
static int checkpoint_read(run_state *s, evolution_rows *r, int *t, double *emin, double *emax) {
  const char *path = s->args->checkpoint_path;
  int n;
  double *v;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, path, "evolution", &n, &v));
  const int ok = n >= HEAD && v[0] == CHECKPOINT_VERSION && v[4] == r->R && v[5] == r->T && v[1] >= 0 &&
                 v[1] <= r->T && n == HEAD + (int)(v[1] + 1) * (1 + r->R + 6);
  if (!ok) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: checkpoint '%s' refused: not an evolution checkpoint of %d vectors and %d steps\n",
              path, r->R, r->T);
    free(v);
    return HM_EXIT_USAGE;
  }
  *t = (int)v[1], *emin = v[2], *emax = v[3];
  const int rows = *t + 1;
  const double *p = v + HEAD;
  memcpy(r->time, p, sizeof *p * rows), p += rows;
  memcpy(r->norm, p, sizeof *p * (size_t)rows * r->R), p += (size_t)rows * r->R;
  memcpy(r->position, p, sizeof *p * 3 * rows), p += 3 * rows;
  memcpy(r->spread, p, sizeof *p * 3 * rows);
  free(v);
  return HM_SUCCESS;
}

/* The start block: R random-phase columns normalised to 1, or the unit vector of the deck's orbital. */
static void make_start(run_state *s, hm_matrix *H, hm_mvec **psi) {
  const hm_deck *d = &s->deck;
  const hm_dist *dist;
  int64_t first, local, n;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_dist_range(dist, &first, &local, &n));
  const int R = d->evolution.vectors;
  APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, R, psi));
  if (!d->evolution.start_site) {
    APP_CALL(hm_mvec_random_phase(*psi, d->evolution.seed));
    double complex *scale = malloc(sizeof *scale * R), *zero = calloc((size_t)R, sizeof *zero);
    for (int j = 0; j < R; j++) scale[j] = 1 / sqrt((double)n);
    APP_CALL(hm_mvec_axpby(*psi, scale, *psi, zero));
    free(scale);
    free(zero);
    return;
  }
  const int no = s->site_orbitals;
  if (d->evolution.orbital >= no) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: [evolution] start = %s: orbital %d, but the model has %d orbital%s per cell "
              "(0 to %d)\n", d->name, d->evolution.start_text, d->evolution.orbital, no, no == 1 ? "" : "s", no - 1);
    hm_app_exit(HM_EXIT_USAGE);
  }
  const int64_t *c = d->evolution.site;
  const int64_t row = no * (c[0] + d->ti.nx * (c[1] + d->ti.ny * c[2])) + d->evolution.orbital;
  double complex *e = calloc((size_t)local + 1, sizeof *e);
  if (row >= first && row < first + local) e[row - first] = 1;
  APP_CALL(hm_mvec_set(*psi, e));
  free(e);
}

/* Collective: norm^2, <x_a> and <x_a^2> (cell indices) summed over this rank's rows, then over ranks,
 * of every column; position and spread averaged over the columns. */
static void moments_of(run_state *s, hm_evolution *ev, hm_mvec *psi, double complex *rows, int64_t first,
                       int64_t local, double *norm, double position[3], double spread[3]) {
  const hm_deck *d = &s->deck;
  const int R = d->evolution.vectors, no = s->site_orbitals;
  APP_CALL(hm_evolution_get_state(ev, psi));
  APP_CALL(hm_mvec_get(psi, rows));
  double *m = calloc((size_t)7 * R, sizeof *m); /* per column: |psi|^2, x, y, z, x^2, y^2, z^2 */
  for (int64_t i = 0; i < local; i++) {
    int64_t cell = (first + i) / no;
    double xyz[3] = {(double)(cell % d->ti.nx), (double)(cell / d->ti.nx % d->ti.ny), (double)(cell / d->ti.nx / d->ti.ny)};
    for (int j = 0; j < R; j++) {
      double p = creal(rows[i * R + j] * conj(rows[i * R + j]));
      m[7 * j] += p;
      for (int a = 0; a < 3; a++) {
        m[7 * j + 1 + a] += p * xyz[a];
        m[7 * j + 4 + a] += p * xyz[a] * xyz[a];
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, m, 7 * R, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int a = 0; a < 3; a++) position[a] = spread[a] = 0;
  for (int j = 0; j < R; j++) {
    norm[j] = sqrt(m[7 * j]);
    for (int a = 0; a < 3; a++) {
      double mean = m[7 * j + 1 + a] / m[7 * j];
      position[a] += mean / R;
      spread[a] += (m[7 * j + 4 + a] / m[7 * j] - mean * mean) / R;
    }
  }
  free(m);
}

int run_evolution(run_state *s, hm_matrix *H, hm_matrix *mass) {
  (void)mass; /* none: a standard problem */
  hm_deck *d = &s->deck;
  run_set_phases(s, PHASES, phase_name);
  hm_evolution_options opt;
  APP_CALL(hm_evolution_options_default(&opt));
  opt.dt = d->evolution.dt;
  opt.accuracy = d->evolution.accuracy;
  opt.bounds = d->kpm.bounds;
  opt.lanczos_steps = d->kpm.lanczos_steps;
  opt.bounds_margin = d->kpm.bounds_margin;
  const int R = d->evolution.vectors, T = d->evolution.steps;
  evolution_rows r = {R, T, malloc(sizeof(double) * (T + 1)), malloc(sizeof(double) * (size_t)(T + 1) * R),
                      malloc(sizeof(double) * 3 * (T + 1)), malloc(sizeof(double) * 3 * (T + 1))};
  if (!r.time || !r.norm || !r.position || !r.spread) APP_CALL(HM_ERR_MEMORY);
  int t0 = -1; /* the last row a checkpoint holds (-1: none) */
  if (s->args->checkpoint_path) { /* the interval of the checkpoint, given: the same coefficients */
    if (checkpoint_read(s, &r, &t0, &opt.emin, &opt.emax)) return HM_EXIT_USAGE;
    opt.bounds = HM_BOUNDS_GIVEN;
  }
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_mvec *psi;
  make_start(s, H, &psi);
  if (t0 >= 0) APP_CALL_INPUT(hm_state_checkpoint_read_blocks(s->ctx, s->args->checkpoint_path, 1, &psi));
  hm_evolution *ev;
  APP_CALL(hm_evolution_create(H, R, &opt, &ev));
  APP_CALL(hm_evolution_set_state(ev, psi));
  run_phase_add(s, &m, PHASE_BOUNDS);

  run_mark_now(s, &m);
  const hm_dist *dist;
  int64_t first, local;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_dist_range(dist, &first, &local, NULL));
  double complex *rows = malloc(sizeof *rows * (size_t)(local * R + 1));
  double *time = r.time, *norm = r.norm, *position = r.position, *spread = r.spread, last = MPI_Wtime();
  for (int t = t0 + 1; t <= T; t++) {
    if (t > 0) APP_CALL(hm_evolution_step(ev, 1));
    time[t] = t * opt.dt;
    moments_of(s, ev, psi, rows, first, local, norm + (size_t)t * R, position + 3 * t, spread + 3 * t);
    hm_progress_update(&s->progress, t, T);
    RUN_TEST_DELAY(s);
    if (t == T) break;
    if (run_checkpoint_due(s, t, last)) {
      APP_CALL(checkpoint_write(s, ev, psi, &r, t));
      last = MPI_Wtime();
    }
    if (run_stop_poll(&s->stop)) { /* signal or walltime: the state after step t and rows 0 .. t */
      hm_progress_finish(&s->progress);
      APP_CALL(checkpoint_write(s, ev, psi, &r, t));
      char where[64];
      snprintf(where, sizeof where, "after time step %d of %d", t, T);
      free(m.joules);
      free(rows), free(time), free(norm), free(position), free(spread);
      hm_evolution_destroy(&ev);
      hm_mvec_destroy(&psi);
      return run_stopped(s, where);
    }
  }
  hm_progress_finish(&s->progress);
  run_phase_add(s, &m, PHASE_STEPS);
  run_phase_exclude(s, PHASE_STEPS, PHASE_CHECKPOINT); /* checkpoints ran inside the steps */

  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  const int64_t dt[1] = {T + 1}, dn[2] = {T + 1, R}, d3[2] = {T + 1, 3};
  APP_CALL(hm_output_write_array(out, "/evolution/time", HM_REAL, 1, dt, time, "1/energy (hbar = 1)",
                                 "time t of each row (step x dt; row 0 is the start)"));
  APP_CALL(hm_output_write_array(out, "/evolution/norm", HM_REAL, 2, dn, norm, "1", "||psi_r(t)|| of each start vector"));
  APP_CALL(hm_output_write_array(out, "/evolution/position", HM_REAL, 2, d3, position, "lattice cells",
                                 "<x>, <y>, <z> (cell indices along a1, a2, a3), averaged over the start vectors"));
  APP_CALL(hm_output_write_array(out, "/evolution/spread", HM_REAL, 2, d3, spread, "lattice cells^2",
                                 "<x^2> - <x>^2 and likewise for y, z (cell indices), averaged over the start vectors"));
  int order;
  double emin, emax;
  APP_CALL(hm_evolution_info(ev, NULL, NULL, NULL, &order));
  APP_CALL(hm_evolution_interval(ev, &emin, &emax));
  APP_CALL(hm_output_write_attribute(out, "/evolution", "method", "chebyshev"));
  APP_CALL(hm_output_write_attribute(out, "/evolution", "start", d->evolution.start_text));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "dt", opt.dt));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "accuracy", opt.accuracy));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "order", order));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "emin", emin));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "emax", emax));
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  if (s->rank == 0) {
    run_print_header(s, "time evolution (Chebyshev propagator)", H);
    printf("  interval     [%.6g, %.6g]\n", emin, emax);
    printf("  steps        %d of dt = %g (%d terms each, accuracy %g), %d vector%s: %.3f s\n", T, opt.dt, order,
           opt.accuracy, R, R == 1 ? "" : "s", s->seconds[PHASE_STEPS]);
    printf("  final        t = %g, spread %.6g %.6g %.6g\n", time[T], spread[3 * T], spread[3 * T + 1], spread[3 * T + 2]);
    run_print_timing(s);
  }
  free(rows); free(time); free(norm); free(position); free(spread);
  hm_evolution_destroy(&ev);
  hm_mvec_destroy(&psi);
  return HM_EXIT_OK;
}
