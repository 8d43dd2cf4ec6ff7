/* method = marker: the local Chern marker C(r) = -(4 pi / A_cell) Im sum_o <r,o|P X Q Y P|r,o> of the
 * deck's cells (P: the Jackson-damped step, or the Fermi function at [marker] temperature > 0) (include/hamlet/marker.h), in batches of cells with a checkpoint between batches
 * (the values so far and the interval), so `hamlet restart` continues at the next batch. Positions
 * come from the lattice's geometry (the TI: a cubic lattice, all orbitals at the site) and are
 * centred on the flake, where the truncated projector is most accurate. -> /marker. */
#include <math.h>
#include <string.h>
#include "checkpoint_state.h"
#include "run_state.h"

enum { PHASE_BUILD, PHASE_BOUNDS, PHASE_MARKER, PHASE_CHECKPOINT, PHASE_IO, PHASES };
static const char *const phase_name[PHASES] = {"build", "bounds", "marker", "checkpoint", "io"};

enum { MARKER_ROWS = 32 }; /* rows per batch: one block of the projector expansions */

typedef struct {
  int64_t cells[3];        /* of the rows' description (a folded slab: nz = 1) */
  int orbitals;            /* per cell of that description */
  int site_orbitals;       /* per cell of the deck (a folded slab: per layer) */
  int folded;
  int64_t nz;              /* the deck's layers */
  double lattice[9], *positions, area;
} geometry;

static void geometry_of(run_state *s, geometry *g) {
  const hm_deck *d = &s->deck;
  if (d->model == HM_MODEL_LATTICE) {
    int layer_orbitals;
    run_lattice_geometry(s, g->cells, &g->orbitals, g->lattice, &g->positions, &layer_orbitals, NULL);
    g->folded = layer_orbitals > 0;
    g->site_orbitals = g->folded ? layer_orbitals : g->orbitals;
  } else { /* the TI: unit cubic cells, four orbitals at the site */
    g->cells[0] = d->ti.nx, g->cells[1] = d->ti.ny, g->cells[2] = d->ti.nz;
    g->orbitals = g->site_orbitals = 4;
    const double cubic[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(g->lattice, cubic, sizeof cubic);
    g->positions = calloc(3 * 4, sizeof(double));
  }
  g->nz = d->ti.nz;
  const double *a1 = g->lattice, *a2 = g->lattice + 3;
  g->area = fabs(a1[0] * a2[1] - a1[1] * a2[0]); /* the cell's area in the x-y plane */
}

/* Row of orbital o of the deck's cell c. */
static int64_t row_of(const geometry *g, const int64_t c[3], int o) {
  if (g->folded) return g->orbitals * (c[0] + g->cells[0] * c[1]) + c[2] * g->site_orbitals + o;
  return g->orbitals * (c[0] + g->cells[0] * (c[1] + g->cells[1] * c[2])) + o;
}

/* x and y of this rank's rows, centred on the flake. */
static void local_positions(run_state *s, hm_matrix *H, const geometry *g, double **x, double **y) {
  const hm_dist *dist;
  int64_t first, local;
  APP_CALL(hm_matrix_dist(H, &dist));
  APP_CALL(hm_dist_range(dist, &first, &local, NULL));
  double centre[2] = {0, 0};
  for (int a = 0; a < 2; a++) {
    for (int k = 0; k < 3; k++) centre[a] += 0.5 * (double)(g->cells[k] - 1) * g->lattice[3 * k + a];
    for (int o = 0; o < g->orbitals; o++) centre[a] += g->positions[3 * o + a] / g->orbitals;
  }
  *x = malloc(sizeof(double) * (size_t)(local + 1));
  *y = malloc(sizeof(double) * (size_t)(local + 1));
  if (!*x || !*y) APP_CALL(HM_ERR_MEMORY);
  for (int64_t i = 0; i < local; i++) {
    const int64_t r = first + i, cell = r / g->orbitals, o = r % g->orbitals;
    const int64_t c[3] = {cell % g->cells[0], (cell / g->cells[0]) % g->cells[1], cell / (g->cells[0] * g->cells[1])};
    double p[2];
    for (int a = 0; a < 2; a++) {
      p[a] = g->positions[3 * o + a] - centre[a];
      for (int k = 0; k < 3; k++) p[a] += (double)c[k] * g->lattice[3 * k + a];
    }
    (*x)[i] = p[0];
    (*y)[i] = p[1];
  }
}

/* The spectral interval by the deck's [kpm] bounds method (Lanczos, Gershgorin or given), found as
 * hm_kpm finds it (a two-moment KPM object is only asked for its interval). */
static void find_bounds(run_state *s, hm_matrix *H, double *emin, double *emax) {
  hm_kpm_options opt = s->deck.kpm;
  opt.moments = 2;
  opt.vectors = 1;
  opt.checkpoint = NULL, opt.progress = NULL, opt.stop = NULL;
  opt.checkpoint_every = 0, opt.checkpoint_seconds = 0;
  hm_kpm *kpm;
  APP_CALL(hm_kpm_create(H, &opt, &kpm));
  APP_CALL(hm_kpm_interval(kpm, emin, emax));
  hm_kpm_destroy(&kpm);
}

/* Checkpoint: [emin, emax, cells done, C of every cell (0 where not done)]. */
static int write_checkpoint(run_state *s, double emin, double emax, int done, const double *C) {
  const int n = s->deck.marker.nsites;
  double *scalars = malloc(sizeof(double) * (size_t)(n + 3));
  if (!scalars) return HM_ERR_MEMORY;
  scalars[0] = emin, scalars[1] = emax, scalars[2] = done;
  memcpy(scalars + 3, C, sizeof(double) * (size_t)n);
  run_mark m = {0};
  run_mark_now(s, &m);
  int st = hm_state_checkpoint_write(s->ctx, s->checkpoint_path, s->deck.text, "marker", 0, NULL, n + 3, scalars,
                                     run_identity(s));
  run_checkpoint_done(s, &m, PHASE_CHECKPOINT);
  free(scalars);
  return st;
}

static int restore(run_state *s, double *emin, double *emax, double *C) {
  const int n = s->deck.marker.nsites;
  int ns = 0;
  double *scalars = NULL;
  APP_CALL_INPUT(hm_state_checkpoint_read_scalars(s->ctx, s->args->checkpoint_path, "marker", &ns, &scalars));
  if (ns != n + 3 || !(scalars[2] >= 0 && scalars[2] <= n)) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: the marker checkpoint holds %d values, but its deck asks for %d cells\n",
              s->args->checkpoint_path, ns - 3, n);
    hm_app_exit(HM_EXIT_USAGE);
  }
  *emin = scalars[0], *emax = scalars[1];
  const int done = (int)scalars[2];
  memcpy(C, scalars + 3, sizeof(double) * (size_t)n);
  free(scalars);
  return done;
}

static void write_result(run_state *s, hm_matrix *H, const geometry *g, double emin, double emax, const double *C,
                         run_mark *m) {
  const hm_deck *d = &s->deck;
  const int n = d->marker.nsites;
  double *sites = malloc(sizeof(double) * 3 * (size_t)n + 1);
  for (int i = 0; i < 3 * n; i++) sites[i] = (double)d->marker.sites[i / 3][i % 3];
  run_mark_now(s, m);
  hm_output *out;
  run_output_open(s, H, &out);
  const int64_t ds[2] = {n, 3}, dc[1] = {n};
  APP_CALL(hm_output_write_array(out, "/marker/sites", HM_REAL, 2, ds, sites, "cells",
                                 "cells (x y z, 0-based; ti: lattice sites) of the marker values"));
  APP_CALL(hm_output_write_array(out, "/marker/C", HM_REAL, 1, dc, C, "1",
                                 "local Chern marker C(r) = -(4 pi / A_cell) Im sum_o <r,o|P X Q Y P|r,o>"));
  const char *g_name = "/marker";
  const double T = d->marker.temperature;
  APP_CALL(hm_output_write_attribute(out, g_name, "kernel", T > 0 ? "none" : "jackson"));
  APP_CALL(hm_output_write_attribute(out, g_name, "projector", T > 0 ? "fermi" : "step"));
  APP_CALL(hm_output_write_attribute(out, g_name, "sites", d->marker.layers_text[0] ? "layers" : "cells"));
  APP_CALL(hm_output_write_attribute_double(out, g_name, "mu", d->marker.mu));
  APP_CALL(hm_output_write_attribute_double(out, g_name, "moments", d->marker.moments));
  APP_CALL(hm_output_write_attribute_double(out, g_name, "temperature", T));
  APP_CALL(hm_output_write_attribute_double(out, g_name, "emin", emin));
  APP_CALL(hm_output_write_attribute_double(out, g_name, "emax", emax));
  APP_CALL(hm_output_write_attribute_double(out, g_name, "scale", 2.0 / (emax - emin)));
  APP_CALL(hm_output_write_attribute_double(out, g_name, "shift", 0.5 * (emax + emin)));
  APP_CALL(hm_output_write_attribute_double(out, g_name, "cell_area", g->area));
  APP_CALL(hm_output_write_attribute_double(out, g_name, "site_orbitals", g->site_orbitals));
  run_output_commit(s, &out, m, PHASE_IO);
  free(sites);
}

/* Which projector; for the Fermi one, the size of the series' truncation, exp(-M pi T scale / sqrt(1 - x^2))
 * (the decay of its coefficients), so a user sees when M is too small for T. */
static void print_projector(const hm_deck *d, double emin, double emax) {
  const double T = d->marker.temperature, scale = 2 / (emax - emin), x = scale * (d->marker.mu - 0.5 * (emax + emin));
  if (T == 0) {
    printf("  projector    theta(mu - H), Jackson-damped (converges algebraically in M)\n");
    return;
  }
  const double tail = exp(-d->marker.moments * M_PI * T * scale / sqrt(fmax(1e-300, 1 - fmin(1, x * x))));
  const int needed = (int)ceil(log(1e11) * sqrt(fmax(0, 1 - fmin(1, x * x))) / (M_PI * T * scale));
  printf("  projector    Fermi function, T = %g, undamped: truncation about %.1e%s (M = %d gives 1e-11)\n", T, tail,
         tail > 1e-6 ? ", TOO FEW moments for this T" : "", needed);
}

int run_marker(run_state *s, hm_matrix *H, hm_matrix *mass) {
  (void)mass; /* none: a standard problem */
  hm_deck *d = &s->deck;
  run_set_phases(s, PHASES, phase_name);
  geometry g;
  memset(&g, 0, sizeof g);
  geometry_of(s, &g);
  const int n = d->marker.nsites, per = g.site_orbitals;
  const int batch = per >= MARKER_ROWS ? 1 : MARKER_ROWS / per; /* cells per batch */
  double *x, *y, *C = calloc((size_t)n + 1, sizeof(double)), *values = malloc(sizeof(double) * (size_t)batch * per);
  int64_t *rows = malloc(sizeof(int64_t) * (size_t)batch * per);
  local_positions(s, H, &g, &x, &y);

  run_mark m = {0};
  run_mark_now(s, &m);
  double emin, emax;
  int done = 0;
  if (s->args->checkpoint_path) done = restore(s, &emin, &emax, C);
  else find_bounds(s, H, &emin, &emax);
  run_phase_add(s, &m, PHASE_BOUNDS);

  run_mark_now(s, &m);
  double t_last = MPI_Wtime();
  for (int batches = 1; done < n; batches++) {
    const int count = n - done < batch ? n - done : batch;
    for (int i = 0; i < count; i++)
      for (int o = 0; o < per; o++) rows[i * per + o] = row_of(&g, d->marker.sites[done + i], o);
    APP_CALL(hm_marker_local_temperature(H, x, y, emin, emax, d->marker.mu, d->marker.temperature, d->marker.moments,
                                         count * per, rows, values));
    for (int i = 0; i < count; i++) {
      double sum = 0;
      for (int o = 0; o < per; o++) sum += values[i * per + o];
      C[done + i] = sum / g.area;
    }
    done += count;
    hm_progress_update(&s->progress, done, n);
    if (done == n) break;
    RUN_TEST_DELAY(s);
    if (run_stop_poll(&s->stop)) { /* signal or walltime: keep the finished cells */
      hm_progress_finish(&s->progress);
      APP_CALL(write_checkpoint(s, emin, emax, done, C));
      char where[64];
      snprintf(where, sizeof where, "after %d of %d cells", done, n);
      free(m.joules);
      return run_stopped(s, where);
    }
    if (run_checkpoint_due(s, batches, t_last)) {
      APP_CALL(write_checkpoint(s, emin, emax, done, C));
      t_last = MPI_Wtime();
    }
  }
  hm_progress_finish(&s->progress);
  run_phase_add(s, &m, PHASE_MARKER);
  run_phase_exclude(s, PHASE_MARKER, PHASE_CHECKPOINT);

  write_result(s, H, &g, emin, emax, C, &m);
  free(m.joules);
  if (s->rank == 0) {
    run_print_header(s, "local Chern marker (KPM)", H);
    double lo = n ? C[0] : 0, hi = lo, sum = 0;
    for (int i = 0; i < n; i++) lo = fmin(lo, C[i]), hi = fmax(hi, C[i]), sum += C[i];
    printf("  marker       %d cells, mu = %g, M = %d, interval [%.6g, %.6g]: %.3f s\n", n, d->marker.mu,
           d->marker.moments, emin, emax, s->seconds[PHASE_MARKER]);
    print_projector(d, emin, emax);
    printf("  C            min %.6f, max %.6f, sum %.6f\n", lo, hi, sum);
    run_print_timing(s);
  }
  free(x);
  free(y);
  free(C);
  free(values);
  free(rows);
  free(g.positions);
  return HM_EXIT_OK;
}
