/* method = conductivity: the Kubo-Bastin moments mu_nm^{ab} of the requested components
 * (linalg/kpm/conductivity.c) with velocity operators from the lattice's geometry, then
 * sigma_ab(mu, T) on the deck's chemical potentials and temperatures, with the error from the
 * spread over the random vectors (and, with [conductivity] frequencies, the optical sigma(omega)) ->
 * /conductivity, with checkpoints and restart at chunk granularity
 * (run_conductivity_checkpoint.c). run_conductivity_geometry takes any lattice matrix with its cells,
 * orbitals, lattice vectors and orbital positions (the TI: cubic, all four orbitals at the cell
 * origin; model = lattice: its file's, with the velocities made from its stencil). */
#include <math.h>
#include "run_conductivity.h"

static const char *const phase_name[PHASES] = {"build", "bounds", "moments", "sigma", "checkpoint", "io"};

static int on_checkpoint(hm_conductivity *c, void *user) {
  return conductivity_checkpoint_write(user, c, PHASE_CHECKPOINT);
}

/* Asked at chunk boundaries (between start vectors in a single shot): the tests' step delay
 * (hamlet_testhooks only), then signals and walltime. */
static int stop_requested(void *user) {
  run_state *s = user;
  RUN_TEST_DELAY(s);
  return run_stop_poll(&s->stop);
}

void conductivity_options_of(run_state *s, hm_conductivity_options *opt) {
  const hm_deck *d = &s->deck;
  hm_conductivity_options_default(opt);
  opt->moments = d->conductivity.moments;
  opt->vectors = d->conductivity.vectors;
  opt->seed = d->conductivity.seed;
  opt->trace = d->conductivity.trace;
  opt->bounds = d->kpm.bounds;
  opt->lanczos_steps = d->kpm.lanczos_steps;
  opt->bounds_margin = d->kpm.bounds_margin;
  opt->stop = stop_requested;
  opt->stop_user = s;
}

/* sigma of each vector's moments -> the standard error of the mean over R vectors. */
static void sigma_error(run_state *s, int M, int C, const double *mu_vec, int R, double scale, double shift,
                        double density, double *error) {
  const hm_deck *d = &s->deck;
  const int E = d->conductivity.nenergies, T = d->conductivity.ntemps;
  const size_t n = (size_t)C * T * E, block = 2 * (size_t)C * M * M;
  double *one = malloc(sizeof(double) * n), *sum = calloc(n, sizeof(double)), *sum2 = calloc(n, sizeof(double));
  for (int r = 0; r < R; r++) {
    APP_CALL(hm_conductivity_sigma(M, C, mu_vec + r * block, scale, shift, d->conductivity.kernel,
                                   d->conductivity.lambda, density, E, d->conductivity.energies, T,
                                   d->conductivity.temps, one));
    for (size_t i = 0; i < n; i++) {
      sum[i] += one[i];
      sum2[i] += one[i] * one[i];
    }
  }
  for (size_t i = 0; i < n; i++) {
    const double mean = sum[i] / R, var = R > 1 ? fmax(0, (sum2[i] - R * mean * mean) / (R - 1)) : 0;
    error[i] = sqrt(var / R);
  }
  free(one);
  free(sum);
  free(sum2);
}

int run_conductivity_geometry(run_state *s, hm_matrix *H, const int64_t cells[3], int orbitals,
                              const double lattice[9], const double *positions) {
  hm_deck *d = &s->deck;
  run_set_phases(s, PHASES, phase_name);
  const int C = d->conductivity.ncomp, M = d->conductivity.moments;
  run_mark m = {0};
  run_mark_now(s, &m);
  hm_matrix *v[3] = {NULL, NULL, NULL}, *J[3] = {NULL, NULL, NULL}, *left[9], *right[9];
  for (int c = 0; c < C; c++)
    for (int side = 0; side < 2; side++) {
      const int a = d->conductivity.comp[c][side];
      if (side == 0 && d->conductivity.current) { /* the spin current {S, v_a} / 2 (model_lattice_velocity.c) */
        if (!J[a]) J[a] = s->current[a], s->current[a] = NULL;
        left[c] = J[a];
        continue;
      }
      if (!v[a] && s->velocity[a]) { /* made with the lattice's stencil (model_lattice_velocity.c) */
        v[a] = s->velocity[a];
        s->velocity[a] = NULL;
      }
      if (!v[a]) APP_CALL(hm_matrix_create_velocity(H, cells, orbitals, lattice, positions, a, &v[a]));
      (side ? right : left)[c] = v[a];
    }
  if (d->conductivity.single_shot) {
    const int code = run_conductivity_single_shot(s, H, v, cells, orbitals, lattice, &m);
    for (int a = 0; a < 3; a++) hm_matrix_destroy(&v[a]), hm_matrix_destroy(&J[a]);
    return code;
  }
  hm_conductivity_options opt;
  conductivity_options_of(s, &opt);
  opt.chunk = d->conductivity.chunk;
  opt.checkpoint_every = d->checkpoint_every;
  opt.checkpoint_seconds = d->checkpoint_seconds;
  opt.checkpoint = on_checkpoint;
  opt.checkpoint_user = s;
  int64_t n;
  APP_CALL(hm_matrix_info(H, &n, NULL, NULL));
  const int starts = opt.trace == HM_TRACE_RANDOM ? opt.vectors : (int)n; /* exact: N <= 10^6 (checked) */
  if ((d->checkpoint_every || d->checkpoint_seconds) &&
      conductivity_checkpoint_values(M, C, starts < CONDUCTIVITY_BLOCK_MAX ? starts : CONDUCTIVITY_BLOCK_MAX,
                                     opt.trace == HM_TRACE_RANDOM ? opt.vectors : 0) > CONDUCTIVITY_CHECKPOINT_MAX) {
    if (s->rank == 0)
      fprintf(stderr, "hamlet: %s: checkpoints of %d x %d moments, %d component(s) and %d vectors exceed 2^30 values: "
              "fewer moments, components or vectors, or no checkpoint keys\n", d->name, M, M, C, opt.vectors);
    return HM_EXIT_USAGE;
  }
  conductivity_saved saved = {0};
  if (s->args->checkpoint_path) { /* the saved interval, bit for bit */
    conductivity_checkpoint_read(s, M, C, starts, &saved);
    opt.bounds = HM_BOUNDS_GIVEN;
    opt.emin = saved.emin;
    opt.emax = saved.emax;
    opt.block = saved.block; /* the layout of the saved state */
    opt.chunk = saved.chunk;
  }
  hm_conductivity *cond;
  APP_CALL(hm_conductivity_create(H, C, left, right, &opt, &cond));
  if (saved.values) {
    APP_CALL_INPUT(hm_conductivity_restore(cond, saved.starts_done, saved.chunks_done, saved.sum, saved.part, saved.per));
    free(saved.values);
  }
  run_phase_add(s, &m, PHASE_BOUNDS);

  run_mark_now(s, &m);
  const int st = hm_conductivity_run(cond);
  if (st == HM_ERR_STOPPED) { /* signal or walltime: the state at this chunk is complete */
    hm_error_clear();
    APP_CALL(on_checkpoint(cond, s));
    int done = 0;
    APP_CALL(hm_conductivity_info(cond, NULL, NULL, NULL, &done, NULL, NULL, NULL, NULL));
    char where[96];
    snprintf(where, sizeof where, "after %d of %d start vectors", done, starts);
    free(m.joules);
    hm_conductivity_destroy(&cond);
    for (int a = 0; a < 3; a++) hm_matrix_destroy(&v[a]), hm_matrix_destroy(&J[a]);
    return run_stopped(s, where);
  }
  APP_CALL(st);
  run_phase_add(s, &m, PHASE_MOMENTS);
  run_phase_exclude(s, PHASE_MOMENTS, PHASE_CHECKPOINT); /* checkpoints ran inside the moments */

  run_mark_now(s, &m);
  const int E = d->conductivity.nenergies, T = d->conductivity.ntemps, R = opt.trace == HM_TRACE_RANDOM ? opt.vectors : 0;
  const size_t block = 2 * (size_t)C * M * M, ns = (size_t)C * T * E;
  double *mu = malloc(sizeof(double) * block), *mu_vec = R ? malloc(sizeof(double) * block * R) : NULL;
  double *sigma = malloc(sizeof(double) * ns), *error = calloc(ns, sizeof(double));
  APP_CALL(hm_conductivity_moments(cond, mu, mu_vec));
  double scale, shift;
  APP_CALL(hm_conductivity_info(cond, NULL, NULL, NULL, NULL, NULL, &scale, &shift, NULL));
  const char *unit;
  const double density = run_lattice_density(s, cells, orbitals, lattice, n, &unit);
  APP_CALL(hm_conductivity_sigma(M, C, mu, scale, shift, d->conductivity.kernel, d->conductivity.lambda, density, E,
                                 d->conductivity.energies, T, d->conductivity.temps, sigma));
  if (R > 1) sigma_error(s, M, C, mu_vec, R, scale, shift, density, error);
  const int F = d->conductivity.nfreqs;
  double *optical = F ? malloc(sizeof(double) * 2 * ns * (size_t)F) : NULL;
  if (F)
    APP_CALL(hm_conductivity_optical(M, C, mu, scale, shift, d->conductivity.kernel, d->conductivity.lambda, density,
                                     d->conductivity.eta, F, d->conductivity.freqs, E, d->conductivity.energies, T,
                                     d->conductivity.temps, optical));
  run_phase_add(s, &m, PHASE_SIGMA);

  run_mark_now(s, &m);
  hm_output *out;
  run_output_open(s, H, &out);
  const int64_t dm[3] = {C, M, M}, de[1] = {E}, dt[1] = {T}, ds[3] = {C, T, E};
  APP_CALL(hm_output_write_array(out, "/conductivity/moments", HM_COMPLEX, 3, dm, mu, "1",
                                 "mu_nm = Tr[v_a T_n(H~) v_b T_m(H~)] / N per component [component][n][m], "
                                 "H~ = scale (H - shift), undamped"));
  if (R > 1) { /* for hamlet post's error bars */
    const int64_t dv[4] = {R, C, M, M};
    APP_CALL(hm_output_write_array(out, "/conductivity/moments_per_vector", HM_COMPLEX, 4, dv, mu_vec, "1",
                                   "each random vector's estimate of the moments [vector][component][n][m]"));
  }
  APP_CALL(hm_output_write_array(out, "/conductivity/energy", HM_REAL, 1, de, d->conductivity.energies,
                                 "energy (units of t)", "chemical potentials mu"));
  APP_CALL(hm_output_write_array(out, "/conductivity/temperature", HM_REAL, 1, dt, d->conductivity.temps,
                                 "energy (units of t, k_B = 1)", "temperatures T"));
  APP_CALL(hm_output_write_array(out, "/conductivity/sigma", HM_REAL, 3, ds, sigma, unit,
                                 "Kubo-Bastin sigma_ab(mu, T) [component][temperature][energy]"));
  APP_CALL(hm_output_write_array(out, "/conductivity/error", HM_REAL, 3, ds, error, unit,
                                 "standard error of sigma over the random vectors (0: exact trace or one vector)"));
  if (F) {
    const int64_t df[1] = {F}, dso[4] = {C, T, E, F};
    APP_CALL(hm_output_write_array(out, "/conductivity/frequency", HM_REAL, 1, df, d->conductivity.freqs,
                                   "energy (units of t, hbar = 1)", "frequencies omega of the optical sigma"));
    APP_CALL(hm_output_write_array(out, "/conductivity/sigma_omega", HM_COMPLEX, 4, dso, optical, unit,
                                   "optical sigma_ab(omega; mu, T) [component][temperature][energy][frequency][re, im] "
                                   "(Kubo, both Green's functions by Chebyshev series, broadening eta)"));
    APP_CALL(hm_output_write_attribute_double(out, "/conductivity", "eta", d->conductivity.eta));
  }
  APP_CALL(hm_output_write_attribute(out, "/conductivity", "components", d->conductivity.components_text));
  static const char *const current[4] = {
      "charge", "spin_z: {S_z, v_a} / 2, S_z = +1 up, -1 down (not hbar / 2)",
      "spin_x: {S_x, v_a} / 2, S_x the Pauli matrix on the (k-th up, k-th down) pairs (not hbar / 2)",
      "spin_y: {S_y, v_a} / 2, S_y the Pauli matrix on the (k-th up, k-th down) pairs (not hbar / 2)"};
  APP_CALL(hm_output_write_attribute(out, "/conductivity", "current", current[d->conductivity.current]));
  APP_CALL(hm_output_write_attribute(out, "/conductivity", "unit", unit));
  APP_CALL(hm_output_write_attribute(out, "/conductivity", "kernel",
                                     d->conductivity.kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson"));
  APP_CALL(hm_output_write_attribute(out, "/conductivity", "trace", opt.trace == HM_TRACE_EXACT ? "exact" : "random"));
  APP_CALL(hm_output_write_attribute_double(out, "/conductivity", "scale", scale));
  APP_CALL(hm_output_write_attribute_double(out, "/conductivity", "shift", shift));
  APP_CALL(hm_output_write_attribute_double(out, "/conductivity", "density", density));
  APP_CALL(hm_output_write_attribute_double(out, "/conductivity", "vectors", R));
  run_output_commit(s, &out, &m, PHASE_IO);
  free(m.joules);
  if (s->rank == 0) {
    run_print_header(s, "Kubo-Bastin conductivity (KPM)", H);
    printf("  moments      %d x %d, %d component(s), %s trace: %.3f s\n", M, M, C,
           opt.trace == HM_TRACE_EXACT ? "exact" : "random", s->seconds[PHASE_MOMENTS]);
    printf("  sigma        %d energies x %d temperatures in %s\n", E, T, unit);
    if (F) printf("  sigma(omega) %d frequencies, eta = %g\n", F, d->conductivity.eta);
    run_print_timing(s);
  }
  free(mu);
  free(mu_vec);
  free(sigma);
  free(error);
  free(optical);
  hm_conductivity_destroy(&cond);
  for (int a = 0; a < 3; a++) hm_matrix_destroy(&v[a]), hm_matrix_destroy(&J[a]);
  return HM_EXIT_OK;
}

int run_conductivity(run_state *s, hm_matrix *H, hm_matrix *mass) {
  (void)mass; /* none: a standard problem */
  const hm_ti_params *p = &s->deck.ti; /* nx, ny, nz: the TI's sites or the lattice's cells */
  const int64_t cells[3] = {p->nx, p->ny, p->nz};
  if (s->deck.model == HM_MODEL_LATTICE || s->deck.model == HM_MODEL_STRUCTURE) {
    const int code = run_conductivity_geometry(s, H, cells, s->site_orbitals, s->lattice_cell, s->lattice_positions);
    free(s->lattice_positions);
    free(s->current_operator);
    s->lattice_positions = NULL;
    s->current_operator = NULL;
    return code;
  }
  /* the TI: a cubic lattice, its 4 orbitals at the cell origin */
  const double lattice[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, positions[12] = {0};
  return run_conductivity_geometry(s, H, cells, 4, lattice, positions);
}
