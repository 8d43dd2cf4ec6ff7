/* [conductivity] expansion = single_shot: sigma_aa(E) at T = 0 of each diagonal component by
 * hm_conductivity_single_shot (one Chebyshev recursion per start vector and side, no M x M moments),
 * written as /conductivity/sigma [component][1][energy] with its error, as the moments' sigma is. */
#include "run_conductivity.h"

int run_conductivity_single_shot(run_state *s, hm_matrix *H, hm_matrix *const v[3], const int64_t cells[3],
                                 int orbitals, const double lattice[9], run_mark *m) {
  const hm_deck *d = &s->deck;
  const int C = d->conductivity.ncomp, E = d->conductivity.nenergies, M = d->conductivity.moments;
  hm_conductivity_options opt;
  hm_conductivity_options_default(&opt);
  opt.moments = M;
  opt.vectors = d->conductivity.vectors;
  opt.seed = d->conductivity.seed;
  opt.trace = d->conductivity.trace;
  opt.bounds = d->kpm.bounds;
  opt.lanczos_steps = d->kpm.lanczos_steps;
  opt.bounds_margin = d->kpm.bounds_margin;
  int64_t n;
  APP_CALL(hm_matrix_info(H, &n, NULL, NULL));
  const char *unit;
  const double density = run_lattice_density(s, cells, orbitals, lattice, n, &unit);
  run_phase_add(s, m, PHASE_BOUNDS);
  run_mark_now(s, m);
  double *sigma = malloc(sizeof(double) * (size_t)C * E), *error = malloc(sizeof(double) * (size_t)C * E), bounds[2];
  if (!sigma || !error) APP_CALL(HM_ERR_MEMORY);
  for (int c = 0; c < C; c++)
    APP_CALL(hm_conductivity_single_shot(H, v[d->conductivity.comp[c][0]], &opt, d->conductivity.kernel,
                                         d->conductivity.lambda, density, E, d->conductivity.energies, sigma + c * E,
                                         error + c * E, bounds));
  run_phase_add(s, m, PHASE_MOMENTS);
  run_mark_now(s, m);
  hm_output *out;
  run_output_open(s, H, &out);
  const int64_t de[1] = {E}, dt[1] = {1}, ds[3] = {C, 1, E};
  const double zero = 0;
  APP_CALL(hm_output_write_array(out, "/conductivity/energy", HM_REAL, 1, de, d->conductivity.energies,
                                 "energy (units of t)", "Fermi energies E"));
  APP_CALL(hm_output_write_array(out, "/conductivity/temperature", HM_REAL, 1, dt, &zero, "energy (units of t, k_B = 1)",
                                 "temperatures T (single shot: 0)"));
  APP_CALL(hm_output_write_array(out, "/conductivity/sigma", HM_REAL, 3, ds, sigma, unit,
                                 "Kubo-Greenwood sigma_aa(E) at T = 0 by the single-shot expansion "
                                 "[component][temperature][energy]"));
  APP_CALL(hm_output_write_array(out, "/conductivity/error", HM_REAL, 3, ds, error, unit,
                                 "standard error of sigma over the random vectors (0: exact trace or one vector)"));
  const char *g = "/conductivity";
  APP_CALL(hm_output_write_attribute(out, g, "expansion", "single_shot"));
  APP_CALL(hm_output_write_attribute(out, g, "components", d->conductivity.components_text));
  APP_CALL(hm_output_write_attribute(out, g, "current", "charge"));
  APP_CALL(hm_output_write_attribute(out, g, "unit", unit));
  APP_CALL(hm_output_write_attribute(out, g, "kernel", d->conductivity.kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson"));
  APP_CALL(hm_output_write_attribute(out, g, "trace", opt.trace == HM_TRACE_EXACT ? "exact" : "random"));
  APP_CALL(hm_output_write_attribute_double(out, g, "moments", M));
  APP_CALL(hm_output_write_attribute_double(out, g, "scale", 2.0 / (bounds[1] - bounds[0])));
  APP_CALL(hm_output_write_attribute_double(out, g, "shift", 0.5 * (bounds[0] + bounds[1])));
  APP_CALL(hm_output_write_attribute_double(out, g, "density", density));
  APP_CALL(hm_output_write_attribute_double(out, g, "vectors", opt.trace == HM_TRACE_RANDOM ? opt.vectors : 0));
  run_output_commit(s, &out, m, PHASE_IO);
  free(m->joules);
  if (s->rank == 0) {
    run_print_header(s, "Kubo-Greenwood conductivity, single shot (KPM)", H);
    printf("  single shot  M = %d, %d component(s), %s trace, %d energies: %.3f s\n", M, C,
           opt.trace == HM_TRACE_EXACT ? "exact" : "random", E, s->seconds[PHASE_MOMENTS]);
    printf("  sigma        in %s\n", unit);
    run_print_timing(s);
  }
  free(sigma);
  free(error);
  return HM_EXIT_OK;
}
