/* method = evolution: a start state (random-phase vectors, or one orbital of one cell) propagated by
 * exp(-i H dt) for `steps` steps; per step its norm, mean position and spread (variance) along the
 * lattice's three cell axes -> /evolution. Positions are cell indices (x, y, z of the cell a row's
 * orbital belongs to, rows numbered orbitals x cell + orbital): a packet must not cross a periodic
 * boundary for its spread to mean a distance.
 * [evolution] msd: per direction a the Kubo-Greenwood mean-square displacement
 *   Delta X_a^2(E, t) = sum_r <chi_r|delta(E - H)|chi_r> / sum_r <phi_r|delta(E - H)|phi_r>,
 * chi_r = [X_a, U(t)] phi_r carried by the evolution beside the state (from the lattice's velocity
 * v_a = i[H, X_a]: cartesian bond vectors, no wrap at periodic boundaries), delta(E - H) by the Jackson-damped
 * Chebyshev series of each block (KPM); its error from the spread of the start vectors' ratios. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "checkpoint_state.h"
#include "run_state.h"

enum { PHASE_BUILD, PHASE_BOUNDS, PHASE_STEPS, PHASE_CHECKPOINT, PHASE_IO, PHASES };
static const char *const phase_name[PHASES] = {"build", "bounds", "steps", "checkpoint", "io"};

/* What the run keeps per time row t = 0 .. steps: its time, every column's norm, the mean position
 * and the spread; with msd, per direction and energy Delta X^2 and its error. */
typedef struct {
  int R, T, nd, ne;                        /* nd msd directions, ne energies */
  double *time, *norm, *position, *spread; /* [T + 1], [T + 1][R], [T + 1][3], [T + 1][3] */
  double *msd, *msd_error;                 /* [nd][T + 1][ne] each */
} evolution_rows;

/* version, t, emin, emax, R, T, nd, ne; then rows 0 .. t, then the msd and its error (all rows) */
enum { CHECKPOINT_VERSION = 2, HEAD = 8 };

static int checkpoint_scalars(const evolution_rows *r, int t) {
  return HEAD + (t + 1) * (1 + r->R + 6) + 2 * r->nd * (r->T + 1) * r->ne;
}

/* Collective: the state after step t (psi) and rows 0 .. t, with the interval, so that a restart
 * propagates with the same coefficients: bit for bit. */
static int checkpoint_write(run_state *s, hm_evolution *const *ev, hm_mvec *psi, hm_mvec *const *chi,
                            const evolution_rows *r, int t) {
  run_mark m = {0};
  run_mark_now(s, &m);
  double emin, emax;
  int st = hm_evolution_interval(ev[0], &emin, &emax);
  if (!st) st = hm_evolution_get_state(ev[0], psi);
  for (int a = 0; a < r->nd && !st; a++) st = hm_evolution_get_commutator_state(ev[a], chi[a]);
  const int rows = t + 1, n = checkpoint_scalars(r, t), grid = r->nd * (r->T + 1) * r->ne;
  double *v = malloc(sizeof *v * (size_t)n);
  if (!st && !v) st = HM_ERR_MEMORY;
  if (!st) {
    const double head[HEAD] = {CHECKPOINT_VERSION, t, emin, emax, r->R, r->T, r->nd, r->ne};
    memcpy(v, head, sizeof head);
    double *p = v + HEAD;
    memcpy(p, r->time, sizeof *p * rows), p += rows;
    memcpy(p, r->norm, sizeof *p * (size_t)rows * r->R), p += (size_t)rows * r->R;
    memcpy(p, r->position, sizeof *p * 3 * rows), p += 3 * rows;
    memcpy(p, r->spread, sizeof *p * 3 * rows), p += 3 * rows;
    memcpy(p, r->msd, sizeof *p * grid), p += grid;
    memcpy(p, r->msd_error, sizeof *p * grid);
    hm_mvec *blocks[4] = {psi, chi[0], chi[1], chi[2]};
    st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "evolution", 1 + r->nd, blocks, n, v,
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
  const int ok = n >= HEAD && v[0] == CHECKPOINT_VERSION && v[4] == r->R && v[5] == r->T && v[6] == r->nd &&
                 v[7] == r->ne && v[1] >= 0 && v[1] <= r->T && n == checkpoint_scalars(r, (int)v[1]);
  if (!ok) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: checkpoint '%s' refused: not an evolution checkpoint of %d vectors, %d steps, %d msd "
              "directions and %d energies\n", path, r->R, r->T, r->nd, r->ne);
    free(v);
    return HM_EXIT_USAGE;
  }
  *t = (int)v[1], *emin = v[2], *emax = v[3];
  const int rows = *t + 1;
  const double *p = v + HEAD;
  memcpy(r->time, p, sizeof *p * rows), p += rows;
  memcpy(r->norm, p, sizeof *p * (size_t)rows * r->R), p += (size_t)rows * r->R;
  memcpy(r->position, p, sizeof *p * 3 * rows), p += 3 * rows;
  memcpy(r->spread, p, sizeof *p * 3 * rows), p += 3 * rows;
  const int grid = r->nd * (r->T + 1) * r->ne;
  memcpy(r->msd, p, sizeof *p * grid), p += grid;
  memcpy(r->msd_error, p, sizeof *p * grid);
  free(v);
  return HM_SUCCESS;
}

/* Collective: out[r][e] = <v_r|v_r> sum_n (2 - delta_n0) g_n mu_n(v_r) T_n(x_e), the start vectors' pi
 * sqrt(1 - x^2) <v_r|delta(E - H)|v_r> (x_e = E_e on the interval's scale; 0 outside it); zero
 * columns give 0 (KPM takes non-zero columns only). */
static void delta_sums(const run_state *s, hm_matrix *H, hm_mvec *V, double emin, double emax, double *out) {
  const hm_deck *d = &s->deck;
  const int M = d->evolution.moments, R = d->evolution.vectors, ne = d->evolution.nenergies;
  double norms[R];
  APP_CALL(hm_mvec_norms(V, norms));
  int live = 0, col[R];
  for (int r = 0; r < R; r++) {
    if (norms[r] > 0) col[live++] = r;
    for (int e = 0; e < ne; e++) out[r * ne + e] = 0;
  }
  if (!live) return;
  const hm_dist *dist;
  hm_mvec *W = V;
  APP_CALL(hm_matrix_dist(H, &dist));
  if (live < R) {
    APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, live, &W));
    for (int j = 0; j < live; j++) APP_CALL(hm_mvec_copy_columns(V, col[j], W, j, 1));
  }
  hm_kpm_options o;
  APP_CALL(hm_kpm_options_default(&o));
  o.moments = M;
  o.vectors = live;
  o.bounds = HM_BOUNDS_GIVEN;
  o.emin = emin;
  o.emax = emax;
  hm_kpm *k;
  APP_CALL(hm_kpm_create(H, &o, &k));
  APP_CALL(hm_kpm_set_start(k, W));
  APP_CALL(hm_kpm_run(k));
  double *mu = malloc(sizeof *mu * M), *mu_vec = malloc(sizeof *mu_vec * (size_t)M * live), *g = malloc(sizeof *g * M);
  if (!mu || !mu_vec || !g) APP_CALL(HM_ERR_MEMORY);
  APP_CALL(hm_kpm_moments(k, mu, mu_vec));
  APP_CALL(hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 0, M, g));
  double scale, shift;
  APP_CALL(hm_kpm_info(k, NULL, NULL, NULL, &scale, &shift, NULL));
  for (int e = 0; e < ne; e++) {
    const double x = scale * (d->evolution.energies[e] - shift);
    if (!(fabs(x) < 1)) continue;
    const double theta = acos(x);
    for (int j = 0; j < live; j++) {
      double acc = 0;
      for (int n = 0; n < M; n++) acc += (n ? 2 : 1) * g[n] * mu_vec[(size_t)j * M + n] * cos(n * theta);
      out[col[j] * ne + e] = norms[col[j]] * norms[col[j]] * acc;
    }
  }
  free(mu), free(mu_vec), free(g);
  hm_kpm_destroy(&k);
  if (W != V) hm_mvec_destroy(&W);
}

/* Row t of the msd: for each direction its chi's delta sums over the start vectors' (den[R][ne]), the
 * ratio of the sums and its standard error from the vectors' spread (delta method; 0 for one vector). */
static void msd_row(const run_state *s, hm_matrix *H, hm_evolution *const *ev, hm_mvec *const *chi,
                    const double *den, double emin, double emax, evolution_rows *r, int t) {
  const int R = r->R, ne = r->ne;
  double *num = malloc(sizeof *num * (size_t)R * ne);
  if (!num) APP_CALL(HM_ERR_MEMORY);
  for (int a = 0; a < r->nd; a++) {
    double *msd = r->msd + ((size_t)a * (r->T + 1) + t) * ne, *err = r->msd_error + ((size_t)a * (r->T + 1) + t) * ne;
    APP_CALL(hm_evolution_get_commutator_state(ev[a], chi[a]));
    delta_sums(s, H, chi[a], emin, emax, num);
    for (int e = 0; e < ne; e++) {
      double sa = 0, sb = 0, spread = 0;
      for (int q = 0; q < R; q++) sa += num[q * ne + e], sb += den[q * ne + e];
      const double ratio = sb > 0 ? sa / sb : 0;
      for (int q = 0; q < R; q++) spread += pow(num[q * ne + e] - ratio * den[q * ne + e], 2);
      msd[e] = ratio;
      err[e] = R > 1 && sb > 0 ? sqrt(spread / ((double)R * (R - 1))) * R / sb : 0;
    }
  }
  free(num);
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

/* Frees what a run holds (a finished or stopped one), the msd velocities included. */
static void release(run_state *s, evolution_rows *r, hm_evolution **ev, hm_mvec **chi, hm_mvec **psi,
                    double complex *rows, double *den) {
  free(r->time), free(r->norm), free(r->position), free(r->spread), free(r->msd), free(r->msd_error);
  for (int a = 0; a < 3; a++) hm_matrix_destroy(&s->msd_velocity[a]);
  free(s->lattice_positions);
  s->lattice_positions = NULL;
  for (int a = 0; a < 3; a++) hm_evolution_destroy(&ev[a]), hm_mvec_destroy(&chi[a]);
  hm_mvec_destroy(psi);
  free(rows), free(den);
}

/* The msd's datasets: energies, Delta X^2 with its error, and D = Delta X^2 / (2 t). */
static void write_msd(const run_state *s, hm_output *out, const evolution_rows *r) {
  const hm_deck *d = &s->deck;
  const int64_t de[1] = {r->ne}, dm[3] = {r->nd, r->T + 1, r->ne};
  const size_t grid = (size_t)r->nd * (r->T + 1) * r->ne;
  double *diff = malloc(sizeof *diff * grid);
  if (!diff) APP_CALL(HM_ERR_MEMORY);
  for (int a = 0; a < r->nd; a++)
    for (int t = 0; t <= r->T; t++)
      for (int e = 0; e < r->ne; e++) {
        const size_t i = ((size_t)a * (r->T + 1) + t) * r->ne + e;
        diff[i] = t ? r->msd[i] / (2 * r->time[t]) : 0;
      }
  char dirs[8] = "";
  for (int a = 0; a < 3; a++)
    if (d->evolution.msd & (1 << a)) snprintf(dirs + strlen(dirs), sizeof dirs - strlen(dirs), "%s%c", *dirs ? " " : "",
                                              'x' + a);
  APP_CALL(hm_output_write_array(out, "/evolution/energy", HM_REAL, 1, de, d->evolution.energies, "energy",
                                 "the energies E of the mean-square displacement"));
  APP_CALL(hm_output_write_array(out, "/evolution/msd", HM_REAL, 3, dm, r->msd, "length^2",
                                 "Delta X_a^2(E, t) = Tr[delta(E - H) |[X_a, U(t)]|^2] / Tr[delta(E - H)] "
                                 "[direction][time][energy] (cartesian, the model file's length unit)"));
  APP_CALL(hm_output_write_array(out, "/evolution/msd_error", HM_REAL, 3, dm, r->msd_error, "length^2",
                                 "standard error of msd from the spread of the start vectors (0 for one vector)"));
  APP_CALL(hm_output_write_array(out, "/evolution/diffusivity", HM_REAL, 3, dm, diff, "length^2 x energy (hbar = 1)",
                                 "D_a(E, t) = Delta X_a^2 / (2 t), the Einstein diffusivity at long times (row 0: 0)"));
  APP_CALL(hm_output_write_attribute(out, "/evolution", "msd_directions", dirs));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "msd_moments", d->evolution.moments));
  APP_CALL(hm_output_write_attribute(out, "/evolution", "msd_kernel", "jackson"));
  free(diff);
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
  int dir[3], nd = 0;
  for (int a = 0; a < 3; a++)
    if (d->evolution.msd & (1 << a)) dir[nd++] = a;
  const int ne = nd ? d->evolution.nenergies : 0;
  const size_t grid = (size_t)nd * (T + 1) * ne;
  evolution_rows r = {R, T, nd, ne, malloc(sizeof(double) * (T + 1)), malloc(sizeof(double) * (size_t)(T + 1) * R),
                      malloc(sizeof(double) * 3 * (T + 1)), malloc(sizeof(double) * 3 * (T + 1)),
                      calloc(grid + 1, sizeof(double)), calloc(grid + 1, sizeof(double))};
  if (!r.time || !r.norm || !r.position || !r.spread || !r.msd || !r.msd_error) APP_CALL(HM_ERR_MEMORY);
  int t0 = -1; /* the last row a checkpoint holds (-1: none) */
  if (s->args->checkpoint_path) { /* the interval of the checkpoint, given: the same coefficients */
    if (checkpoint_read(s, &r, &t0, &opt.emin, &opt.emax)) return HM_EXIT_USAGE;
    opt.bounds = HM_BOUNDS_GIVEN;
  }
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_mvec *psi, *chi[3] = {NULL, NULL, NULL};
  hm_evolution *ev[3] = {NULL, NULL, NULL};
  make_start(s, H, &psi);
  APP_CALL(hm_evolution_create(H, R, &opt, &ev[0]));
  double emin, emax, *den = NULL; /* every direction propagates the state anew, on the first one's interval */
  APP_CALL(hm_evolution_interval(ev[0], &emin, &emax));
  opt.bounds = HM_BOUNDS_GIVEN, opt.emin = emin, opt.emax = emax;
  const hm_dist *dist;
  APP_CALL(hm_matrix_dist(H, &dist));
  for (int a = 0; a < nd; a++) {
    if (a) APP_CALL(hm_evolution_create(H, R, &opt, &ev[a]));
    APP_CALL(hm_evolution_set_commutator(ev[a], s->msd_velocity[dir[a]]));
    APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, R, &chi[a]));
  }
  if (nd) { /* the denominators from the start vectors themselves (delta(E - H) commutes with U) */
    den = malloc(sizeof *den * (size_t)R * ne);
    if (!den) APP_CALL(HM_ERR_MEMORY);
    delta_sums(s, H, psi, emin, emax, den);
  }
  if (t0 >= 0) {
    hm_mvec *blocks[4] = {psi, chi[0], chi[1], chi[2]};
    APP_CALL_INPUT(hm_state_checkpoint_read_blocks(s->ctx, s->args->checkpoint_path, 1 + nd, blocks));
  }
  for (int a = 0; a < (nd ? nd : 1); a++) {
    APP_CALL(hm_evolution_set_state(ev[a], psi));
    if (t0 >= 0 && nd) APP_CALL(hm_evolution_set_commutator_state(ev[a], chi[a]));
  }
  run_phase_add(s, &m, PHASE_BOUNDS);

  run_mark_now(s, &m);
  int64_t first, local;
  APP_CALL(hm_dist_range(dist, &first, &local, NULL));
  double complex *rows = malloc(sizeof *rows * (size_t)(local * R + 1));
  double *time = r.time, *norm = r.norm, *position = r.position, *spread = r.spread, last = MPI_Wtime();
  for (int t = t0 + 1; t <= T; t++) {
    for (int a = 0; a < (nd ? nd : 1) && t > 0; a++) APP_CALL(hm_evolution_step(ev[a], 1));
    time[t] = t * opt.dt;
    moments_of(s, ev[0], psi, rows, first, local, norm + (size_t)t * R, position + 3 * t, spread + 3 * t);
    if (nd && t > 0) msd_row(s, H, ev, chi, den, emin, emax, &r, t);
    hm_progress_update(&s->progress, t, T);
    RUN_TEST_DELAY(s);
    if (t == T) break;
    if (run_checkpoint_due(s, t, last)) {
      APP_CALL(checkpoint_write(s, ev, psi, chi, &r, t));
      last = MPI_Wtime();
    }
    if (run_stop_poll(&s->stop)) { /* signal or walltime: the state after step t and rows 0 .. t */
      hm_progress_finish(&s->progress);
      APP_CALL(checkpoint_write(s, ev, psi, chi, &r, t));
      char where[64];
      snprintf(where, sizeof where, "after time step %d of %d", t, T);
      free(m.joules);
      release(s, &r, ev, chi, &psi, rows, den);
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
  if (nd) write_msd(s, out, &r);
  int order;
  APP_CALL(hm_evolution_info(ev[0], NULL, NULL, NULL, &order));
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
    if (nd)
      printf("  msd          %d direction%s at %d energies in [%g, %g], %d moments (/evolution/msd)\n", nd,
             nd == 1 ? "" : "s", ne, d->evolution.energies[0], d->evolution.energies[ne - 1], d->evolution.moments);
    run_print_timing(s);
  }
  release(s, &r, ev, chi, &psi, rows, den);
  return HM_EXIT_OK;
}
