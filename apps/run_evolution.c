/* method = evolution: a start state (random-phase vectors, one orbital of one cell, a Gaussian wave
 * packet or a file's vector: run_evolution_start.c) propagated by exp(-i H dt) for `steps` steps; per
 * step its norm, mean position and spread (variance) along x, y, z -> /evolution. Positions are
 * cartesian (each row's cell origin plus its orbital's position, no wrap): a packet must not cross a
 * periodic boundary for its spread to mean a distance.
 * [evolution] msd: per direction a the Kubo-Greenwood mean-square displacement
 *   Delta X_a^2(E, t) = sum_r <chi_r|delta(E - H)|chi_r> / sum_r <phi_r|delta(E - H)|phi_r>,
 * chi_r = [X_a, U(t)] phi_r carried by the evolution beside the state (from the lattice's velocity
 * v_a = i[H, X_a]: cartesian bond vectors, no wrap at periodic boundaries), delta(E - H) by the
 * Jackson-damped Chebyshev series of each block: the run keeps the moments <chi_r|T_n|chi_r> of every
 * row, and the transport they give (sigma, mean free path, localization length; io/evolution_transport.c)
 * is made from them at the end, as hamlet post makes it anew.
 * [evolution] transport = vac (or both): along the same directions the velocity auto-correlation
 *   C_a(E, t) = Re Tr[delta(E - H) V_a(t) V_a(0)] / Tr[delta(E - H)],  V_a(t) = U^+(t) v_a U(t),
 * from phi_L,r = U(t) v_a phi_r propagated beside the state: per row the cross moments
 * Re <U(t) phi_r|T_n v_a phi_L,r> (run_evolution_vac.c), summed as the msd's are (io/evolution_vac.c). */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "checkpoint_state.h"
#include "run_evolution.h"

enum { PHASE_BUILD, PHASE_BOUNDS, PHASE_STEPS, PHASE_CHECKPOINT, PHASE_IO, PHASES };
static const char *const phase_name[PHASES] = {"build", "bounds", "steps", "checkpoint", "io"};

/* version, t, emin, emax, R, T, nd, M, transport forms; then rows 0 .. t (time, norms, position, spread,
 * S_z), the snapshots (all), the chi moments (msd) and the cross moments (vac) of all rows; the blocks psi,
 * chi_a (msd) and phi_L,a (vac). */
enum { CHECKPOINT_VERSION = 6, HEAD = 9 };
#define CHECKPOINT_MAX ((size_t)1 << 30) /* scalars: an int counts them */

/* The moments' grid of one form: [nd][T + 1][R][M]. */
static size_t moment_grid(const evolution_rows *r) { return (size_t)r->nd * (r->T + 1) * r->R * r->M; }

static size_t checkpoint_scalars(const evolution_rows *r, int t) {
  const int forms = !!(r->forms & HM_TRANSPORT_MSD) + !!(r->forms & HM_TRANSPORT_VAC);
  return HEAD + (size_t)(t + 1) * (1 + r->R + 7) + (size_t)r->S * r->cells + forms * moment_grid(r);
}

/* The blocks a checkpoint holds: psi, then chi_a (msd), then phi_L,a (vac); returns their count. */
static int checkpoint_blocks(const evolution_rows *r, hm_mvec *psi, hm_mvec *const *chi, hm_mvec *const *phi_left,
                             hm_mvec **blocks) {
  int n = 0;
  blocks[n++] = psi;
  for (int a = 0; a < r->nd && (r->forms & HM_TRANSPORT_MSD); a++) blocks[n++] = chi[a];
  for (int a = 0; a < r->nd && (r->forms & HM_TRANSPORT_VAC); a++) blocks[n++] = phi_left[a];
  return n;
}

/* Collective: the state after step t (psi) and rows 0 .. t, with the interval, so that a restart
 * propagates with the same coefficients: bit for bit. */
static int checkpoint_write(run_state *s, hm_evolution *const *ev, hm_evolution *const *left, hm_mvec *psi,
                            hm_mvec *const *chi, hm_mvec *const *phi_left, const evolution_rows *r, int t) {
  run_mark m = {0};
  run_mark_now(s, &m);
  double emin, emax;
  int st = hm_evolution_interval(ev[0], &emin, &emax);
  if (!st) st = hm_evolution_get_state(ev[0], psi);
  for (int a = 0; a < r->nd && !st && (r->forms & HM_TRANSPORT_MSD); a++)
    st = hm_evolution_get_commutator_state(ev[a], chi[a]);
  for (int a = 0; a < r->nd && !st && (r->forms & HM_TRANSPORT_VAC); a++)
    st = hm_evolution_get_state(left[a], phi_left[a]);
  const size_t rows = t + 1, n = checkpoint_scalars(r, t), grid = moment_grid(r);
  double *v = malloc(sizeof *v * n);
  if (!st && !v) st = HM_ERR_MEMORY;
  if (!st) {
    const double head[HEAD] = {CHECKPOINT_VERSION, t, emin, emax, r->R, r->T, r->nd, r->M, r->forms};
    memcpy(v, head, sizeof head);
    double *p = v + HEAD;
    memcpy(p, r->time, sizeof *p * rows), p += rows;
    memcpy(p, r->norm, sizeof *p * rows * r->R), p += rows * r->R;
    memcpy(p, r->position, sizeof *p * 3 * rows), p += 3 * rows;
    memcpy(p, r->spread, sizeof *p * 3 * rows), p += 3 * rows;
    memcpy(p, r->spin, sizeof *p * rows), p += rows;
    memcpy(p, r->density, sizeof *p * (size_t)r->S * r->cells), p += (size_t)r->S * r->cells;
    if (r->forms & HM_TRANSPORT_MSD) memcpy(p, r->chi, sizeof *p * grid), p += grid;
    if (r->forms & HM_TRANSPORT_VAC) memcpy(p, r->vac, sizeof *p * grid);
    hm_mvec *blocks[7];
    const int nb = checkpoint_blocks(r, psi, chi, phi_left, blocks);
    st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "evolution", nb, blocks, (int)n, v,
                                   run_identity(s));
  }
  free(v);
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  return st;
}

/* Collective: a checkpoint's interval, rows and step; the state is read into psi by the caller.
 * Refused (exit 2) where it does not fit this deck's vectors, steps, directions and moments. */
static int checkpoint_read(run_state *s, evolution_rows *r, int *t, double *emin, double *emax) {
  const char *path = s->args->checkpoint_path;
  int n;
  double *v;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, path, "evolution", &n, &v));
  if (n < 1 || v[0] != CHECKPOINT_VERSION) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: checkpoint '%s' refused: evolution checkpoint version %g, this hamlet reads version %d "
              "only (run the deck from the start)\n", path, n < 1 ? 0 : v[0], CHECKPOINT_VERSION);
    free(v);
    return HM_EXIT_USAGE;
  }
  const int ok = n >= HEAD && v[4] == r->R && v[5] == r->T && v[6] == r->nd && v[7] == r->M && v[8] == r->forms &&
                 v[1] >= 0 && v[1] <= r->T && (size_t)n == checkpoint_scalars(r, (int)v[1]);
  if (!ok) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: checkpoint '%s' refused: not an evolution checkpoint of %d vectors, %d steps, %d msd "
              "directions, %d moments and this transport form\n", path, r->R, r->T, r->nd, r->M);
    free(v);
    return HM_EXIT_USAGE;
  }
  *t = (int)v[1], *emin = v[2], *emax = v[3];
  const size_t rows = *t + 1;
  const double *p = v + HEAD;
  memcpy(r->time, p, sizeof *p * rows), p += rows;
  memcpy(r->norm, p, sizeof *p * rows * r->R), p += rows * r->R;
  memcpy(r->position, p, sizeof *p * 3 * rows), p += 3 * rows;
  memcpy(r->spread, p, sizeof *p * 3 * rows), p += 3 * rows;
  memcpy(r->spin, p, sizeof *p * rows), p += rows;
  memcpy(r->density, p, sizeof *p * (size_t)r->S * r->cells), p += (size_t)r->S * r->cells;
  if (r->forms & HM_TRANSPORT_MSD) memcpy(r->chi, p, sizeof *p * moment_grid(r)), p += moment_grid(r);
  if (r->forms & HM_TRANSPORT_VAC) memcpy(r->vac, p, sizeof *p * moment_grid(r));
  free(v);
  return HM_SUCCESS;
}

/* Collective: out[r][n] = <v_r|T_n(H~)|v_r> of every column of V (zero columns give 0: KPM takes
 * non-zero columns only), on the interval [emin, emax]; scale and shift of H~ = scale (H - shift). */
static void block_moments(const run_state *s, hm_matrix *H, hm_mvec *V, double emin, double emax, double *out,
                          double *scale, double *shift) {
  const int M = s->deck.evolution.moments, R = s->deck.evolution.vectors;
  double norms[R];
  APP_CALL(hm_mvec_norms(V, norms));
  int live = 0, col[R];
  for (int r = 0; r < R; r++) {
    if (norms[r] > 0) col[live++] = r;
    for (int n = 0; n < M; n++) out[(size_t)r * M + n] = 0;
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
  double *mu = malloc(sizeof *mu * M), *mu_vec = malloc(sizeof *mu_vec * (size_t)M * live);
  if (!mu || !mu_vec) APP_CALL(HM_ERR_MEMORY);
  APP_CALL(hm_kpm_moments(k, mu, mu_vec)); /* per column, divided by its norm^2 */
  APP_CALL(hm_kpm_info(k, NULL, NULL, NULL, scale, shift, NULL));
  for (int j = 0; j < live; j++)
    for (int n = 0; n < M; n++) out[(size_t)col[j] * M + n] = norms[col[j]] * norms[col[j]] * mu_vec[(size_t)j * M + n];
  free(mu), free(mu_vec);
  hm_kpm_destroy(&k);
  if (W != V) hm_mvec_destroy(&W);
}

/* Collective: row t of the state: per column norm^2, <x_a>, <x_a^2> (cartesian) and <S_z> summed over
 * this rank's rows, then over ranks; position, spread and <S_z> averaged over the columns; on a snapshot
 * step, the density of the snapshot layer's cells (summed over orbitals, averaged over the columns). */
static void state_row(run_state *s, const evolution_geometry *g, hm_evolution *ev, hm_mvec *psi,
                      double complex *rows, int64_t first, int64_t local, evolution_rows *r, int t) {
  const hm_deck *d = &s->deck;
  const int R = r->R, no = g->orbitals;
  APP_CALL(hm_evolution_get_state(ev, psi));
  APP_CALL(hm_mvec_get(psi, rows));
  double *m = calloc((size_t)8 * R, sizeof *m); /* per column: |psi|^2, x, y, z, x^2, y^2, z^2, S_z */
  const int snapshot = r->every && t % r->every == 0;
  double *density = snapshot ? r->density + (size_t)(t / r->every) * r->cells : NULL;
  if (!m) APP_CALL(HM_ERR_MEMORY);
  if (density)
    for (int64_t c = 0; c < r->cells; c++) density[c] = 0;
  for (int64_t i = 0; i < local; i++) {
    double xyz[3];
    evolution_position(g, first + i, xyz);
    const int64_t cell = (first + i) / no, layer = density ? cell / r->cells : -1;
    const int spin = g->spin ? g->spin[(first + i) % no] : 0;
    for (int j = 0; j < R; j++) {
      double p = creal(rows[i * R + j] * conj(rows[i * R + j]));
      m[8 * j] += p;
      for (int a = 0; a < 3; a++) {
        m[8 * j + 1 + a] += p * xyz[a];
        m[8 * j + 4 + a] += p * xyz[a] * xyz[a];
      }
      m[8 * j + 7] += p * spin;
      if (density && layer == d->evolution.snapshot_layer) density[cell % r->cells] += p / R;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, m, 8 * R, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (density) MPI_Allreduce(MPI_IN_PLACE, density, (int)r->cells, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double *position = r->position + 3 * t, *spread = r->spread + 3 * t;
  for (int a = 0; a < 3; a++) position[a] = spread[a] = 0;
  r->spin[t] = 0;
  for (int j = 0; j < R; j++) {
    r->norm[(size_t)t * R + j] = sqrt(m[8 * j]);
    for (int a = 0; a < 3; a++) {
      double mean = m[8 * j + 1 + a] / m[8 * j];
      position[a] += mean / R;
      spread[a] += (m[8 * j + 4 + a] / m[8 * j] - mean * mean) / R;
    }
    r->spin[t] += m[8 * j + 7] / m[8 * j] / R;
  }
  free(m);
}

/* What the transport needs besides the rows, from the start vectors phi before the first step: their
 * moments, those of v_a phi (work: scratch), the expansion's scale and shift, and the lattice's orbitals
 * per area or volume and dimension. */
static void transport_start(const run_state *s, const evolution_geometry *g, hm_matrix *H, hm_mvec *psi,
                            hm_mvec *work, double emin, double emax, const int *dir, hm_evolution_moments *m,
                            const char **unit) {
  const int64_t *cells = g->cells;
  int64_t n;
  APP_CALL(hm_matrix_info(H, &n, NULL, NULL));
  m->density = run_lattice_density(s, cells, g->orbitals, g->lattice, n, unit);
  m->dimension = (cells[0] > 1) + (cells[1] > 1) + (cells[2] > 1);
  if (!m->dimension) m->dimension = 1;
  block_moments(s, H, psi, emin, emax, (double *)m->start, &m->scale, &m->shift);
  for (int a = 0; a < m->nd; a++) {
    APP_CALL(hm_matrix_apply(s->msd_velocity[dir[a]], psi, work));
    block_moments(s, H, work, emin, emax, (double *)m->velocity + (size_t)a * m->R * m->M, &m->scale, &m->shift);
  }
}

/* Frees what a run holds (a finished or stopped one), the msd velocities included. */
static void release(run_state *s, evolution_rows *r, hm_evolution_moments *x, evolution_geometry *g,
                    hm_evolution **ev, hm_mvec **chi, hm_evolution **left, hm_mvec **phi_left, hm_mvec **work,
                    hm_mvec **psi, double complex *rows) {
  free(r->time), free(r->norm), free(r->position), free(r->spread), free(r->spin), free(r->density), free(r->chi);
  free(r->vac);
  free((double *)x->start), free((double *)x->velocity);
  free(g->positions), free(g->spin);
  for (int a = 0; a < 3; a++) hm_matrix_destroy(&s->msd_velocity[a]);
  free(s->lattice_positions);
  s->lattice_positions = NULL;
  for (int a = 0; a < 3; a++) hm_evolution_destroy(&ev[a]), hm_mvec_destroy(&chi[a]);
  for (int a = 0; a < 3; a++) hm_evolution_destroy(&left[a]), hm_mvec_destroy(&phi_left[a]);
  hm_mvec_destroy(work), hm_mvec_destroy(psi);
  free(rows);
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
  const int M = nd ? d->evolution.moments : 0, forms = nd ? d->evolution.transport : 0;
  const int msd = forms & HM_TRANSPORT_MSD, vac = forms & HM_TRANSPORT_VAC, nev = msd ? nd : 1;
  const size_t grid = (size_t)nd * (T + 1) * R * M;
  const int every = d->evolution.snapshots, S = every ? T / every + 1 : 0;
  const int64_t cells = every ? d->ti.nx * d->ti.ny : 0;
  if ((double)S * cells > (double)((size_t)1 << 27)) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: [evolution] snapshots = %d: %d snapshots of %lld cells exceed 2^27 values (1 GiB): "
              "take them less often\n", d->name, every, S, (long long)cells);
    return HM_EXIT_USAGE;
  }
  evolution_rows r = {R, T, nd, M, malloc(sizeof(double) * (T + 1)), malloc(sizeof(double) * (size_t)(T + 1) * R),
                      malloc(sizeof(double) * 3 * (T + 1)), malloc(sizeof(double) * 3 * (T + 1)),
                      calloc(T + 1, sizeof(double)), every, S, cells, calloc((size_t)S * cells + 1, sizeof(double)),
                      calloc((msd ? grid : 0) + 1, sizeof(double)), calloc((vac ? grid : 0) + 1, sizeof(double)),
                      forms};
  hm_evolution_moments x = {.nd = nd, .T = T, .R = R, .M = M, .ne = nd ? d->evolution.nenergies : 0,
                            .time = r.time, .chi = msd ? r.chi : NULL, .vac = vac ? r.vac : NULL,
                            .start = calloc((size_t)R * M + 1, sizeof(double)),
                            .velocity = calloc((size_t)nd * R * M + 1, sizeof(double)), .kernel = HM_KERNEL_JACKSON,
                            .lambda = 4, .energies = d->evolution.energies,
                            .random = d->evolution.start_kind == HM_START_RANDOM};
  if (!r.time || !r.norm || !r.position || !r.spread || !r.spin || !r.density || !r.chi || !r.vac || !x.start ||
      !x.velocity)
    APP_CALL(HM_ERR_MEMORY);
  if ((d->checkpoint_every || d->checkpoint_seconds) && checkpoint_scalars(&r, T) > CHECKPOINT_MAX) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: checkpoints of %d steps x %d vectors x %d moments x %d directions exceed 2^30 "
              "values: fewer steps, vectors or moments, or no checkpoint keys\n", d->name, T, R, M, nd);
    return HM_EXIT_USAGE;
  }
  int t0 = -1; /* the last row a checkpoint holds (-1: none) */
  if (s->args->checkpoint_path) { /* the interval of the checkpoint, given: the same coefficients */
    if (checkpoint_read(s, &r, &t0, &opt.emin, &opt.emax)) return HM_EXIT_USAGE;
    opt.bounds = HM_BOUNDS_GIVEN;
  }
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_mvec *psi, *chi[3] = {NULL, NULL, NULL}, *phi_left[3] = {NULL, NULL, NULL}, *work = NULL;
  hm_evolution *ev[3] = {NULL, NULL, NULL}, *left[3] = {NULL, NULL, NULL}; /* left: U(t) v_a phi (vac) */
  evolution_geometry g;
  evolution_geometry_of(s, &g);
  if (every && g.cells[2] == 1 && d->ti.nz > 1) { /* zeeman_layers folded the layers into one cell */
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: [evolution] snapshots: zeeman_layers folds the %lld layers into one cell; snapshots "
              "take the layers of an unfolded lattice\n", d->name, (long long)d->ti.nz);
    hm_app_exit(HM_EXIT_USAGE);
  }
  evolution_make_start(s, H, &g, &psi);
  APP_CALL(hm_evolution_create(H, R, &opt, &ev[0]));
  double emin, emax; /* every direction propagates the state anew, on the first one's interval */
  APP_CALL(hm_evolution_interval(ev[0], &emin, &emax));
  opt.bounds = HM_BOUNDS_GIVEN, opt.emin = emin, opt.emax = emax;
  const hm_dist *dist;
  APP_CALL(hm_matrix_dist(H, &dist));
  for (int a = 0; a < nd && msd; a++) {
    if (a) APP_CALL(hm_evolution_create(H, R, &opt, &ev[a]));
    APP_CALL(hm_evolution_set_commutator(ev[a], s->msd_velocity[dir[a]]));
    APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, R, &chi[a]));
  }
  const char *unit = "";
  if (nd) APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, R, &work));
  if (nd) transport_start(s, &g, H, psi, work, emin, emax, dir, &x, &unit); /* delta(E - H) commutes with U */
  for (int a = 0; a < nd && vac; a++) { /* phi_L(0) = v_a phi */
    APP_CALL(hm_evolution_create(H, R, &opt, &left[a]));
    APP_CALL(hm_mvec_create(s->ctx, dist, HM_COMPLEX, R, &phi_left[a]));
    APP_CALL(hm_matrix_apply(s->msd_velocity[dir[a]], psi, phi_left[a]));
  }
  if (t0 >= 0) {
    hm_mvec *blocks[7];
    const int nb = checkpoint_blocks(&r, psi, chi, phi_left, blocks);
    APP_CALL_INPUT(hm_state_checkpoint_read_blocks(s->ctx, s->args->checkpoint_path, nb, blocks));
  }
  for (int a = 0; a < nev; a++) {
    APP_CALL(hm_evolution_set_state(ev[a], psi));
    if (t0 >= 0 && msd) APP_CALL(hm_evolution_set_commutator_state(ev[a], chi[a]));
  }
  for (int a = 0; a < nd && vac; a++) APP_CALL(hm_evolution_set_state(left[a], phi_left[a]));
  run_phase_add(s, &m, PHASE_BOUNDS);

  run_mark_now(s, &m);
  int64_t first, local;
  APP_CALL(hm_dist_range(dist, &first, &local, NULL));
  double complex *rows = malloc(sizeof *rows * (size_t)(local * R + 1));
  double *time = r.time, *norm = r.norm, *position = r.position, *spread = r.spread, last = MPI_Wtime();
  for (int t = t0 + 1; t <= T; t++) {
    for (int a = 0; a < nev && t > 0; a++) APP_CALL(hm_evolution_step(ev[a], 1));
    for (int a = 0; a < nd && vac && t > 0; a++) APP_CALL(hm_evolution_step(left[a], 1));
    time[t] = t * opt.dt;
    state_row(s, &g, ev[0], psi, rows, first, local, &r, t);
    if (vac) evolution_vac_row(s, H, left, phi_left, work, psi, dir, emin, emax, &r, t); /* psi: U(t) phi */
    for (int a = 0; a < nd && msd && t > 0; a++) { /* row 0: chi = [X, 1] phi = 0 */
      APP_CALL(hm_evolution_get_commutator_state(ev[a], chi[a]));
      block_moments(s, H, chi[a], emin, emax, r.chi + ((size_t)a * (T + 1) + t) * R * M, &x.scale, &x.shift);
    }
    hm_progress_update(&s->progress, t, T);
    RUN_TEST_DELAY(s);
    if (t == T) break;
    if (run_checkpoint_due(s, t, last)) {
      APP_CALL(checkpoint_write(s, ev, left, psi, chi, phi_left, &r, t));
      last = MPI_Wtime();
    }
    if (run_stop_poll(&s->stop)) { /* signal or walltime: the state after step t and rows 0 .. t */
      hm_progress_finish(&s->progress);
      APP_CALL(checkpoint_write(s, ev, left, psi, chi, phi_left, &r, t));
      char where[64];
      snprintf(where, sizeof where, "after time step %d of %d", t, T);
      free(m.joules);
      release(s, &r, &x, &g, ev, chi, left, phi_left, &work, &psi, rows);
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
  APP_CALL(hm_output_write_array(out, "/evolution/position", HM_REAL, 2, d3, position, "length",
                                 "<x>, <y>, <z> (cartesian, the model file's length unit; the TI's cells are unit "
                                 "cubes), averaged over the start vectors"));
  APP_CALL(hm_output_write_array(out, "/evolution/spread", HM_REAL, 2, d3, spread, "length^2",
                                 "<x^2> - <x>^2 and likewise for y, z (cartesian), averaged over the start vectors"));
  if (g.spin)
    APP_CALL(hm_output_write_array(out, "/evolution/spin_z", HM_REAL, 1, dt, r.spin, "1 (hbar / 2)",
                                   "<S_z> = sum |psi_i|^2 s_i / sum |psi_i|^2 (s = +1 up, -1 down, 0 unlabelled "
                                   "orbitals of the model file), averaged over the start vectors"));
  if (every) {
    const int64_t dsn[3] = {S, d->ti.ny, d->ti.nx}, dst[1] = {S};
    double *st = malloc(sizeof *st * S);
    if (!st) APP_CALL(HM_ERR_MEMORY);
    for (int k = 0; k < S; k++) st[k] = (double)k * every * opt.dt;
    APP_CALL(hm_output_write_array(out, "/evolution/snapshot_time", HM_REAL, 1, dst, st, "1/energy (hbar = 1)",
                                   "the times of the density snapshots (every `snapshots` steps from t = 0)"));
    APP_CALL(hm_output_write_array(out, "/evolution/density", HM_REAL, 3, dsn, r.density, "1",
                                   "|psi|^2 summed over each cell's orbitals in layer snapshot_layer [snapshot][y][x], "
                                   "averaged over the start vectors"));
    APP_CALL(hm_output_write_attribute_double(out, "/evolution", "snapshot_layer", d->evolution.snapshot_layer));
    free(st);
  }
  hm_evolution_transport transport = {0};
  if (nd) {
    APP_CALL(hm_evolution_transport_compute(&x, &transport));
    evolution_write_transport(s, out, &x, &transport, unit, dir);
  }
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
    if (nd) evolution_print_transport(&x, &transport, unit, dir);
    run_print_timing(s);
  }
  hm_evolution_transport_free(&transport);
  release(s, &r, &x, &g, ev, chi, left, phi_left, &work, &psi, rows);
  return HM_EXIT_OK;
}
