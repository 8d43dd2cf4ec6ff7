/* method = evolution with msd: the Kubo-Greenwood transport (io/evolution_transport.c: sigma, D, the
 * mean free path, the localization length; io/evolution_vac.c: the velocity auto-correlation form)
 * written to /evolution beside the moments it came from, so that hamlet post can redo it on other
 * energies or another kernel; and the summary's lines. */
#include <math.h>
#include <string.h>
#include "run_evolution.h"

/* Per direction the largest running diffusivity of the velocity auto-correlation at the last time. */
static void print_vac(const hm_evolution_moments *m, const hm_evolution_transport *x, const char *unit,
                      const int *dirs) {
  const int ne = m->ne;
  for (int a = 0; a < m->nd; a++) {
    const double *D = x->vac_diffusivity + ((size_t)a * (m->T + 1) + m->T) * ne;
    int best = 0;
    for (int e = 1; e < ne; e++)
      if (D[e] > D[best]) best = e;
    printf("  %c (vac)      D(t = %g) max %.6g at E = %g", 'x' + dirs[a], m->time[m->T], D[best], m->energies[best]);
    if (m->random) printf(", sigma %.6g %s", x->vac_sigma[((size_t)a * (m->T + 1) + m->T) * ne + best], unit);
    printf("\n");
  }
}

void evolution_print_transport(const hm_evolution_moments *m, const hm_evolution_transport *x, const char *unit,
                               const int *dirs) {
  const int ne = m->ne;
  printf("  %-12s %d direction%s at %d energies in [%g, %g], %d moments (/evolution/%s)\n",
         m->chi && m->vac ? "msd, vac" : m->chi ? "msd" : "vac", m->nd, m->nd == 1 ? "" : "s", ne, m->energies[0],
         m->energies[ne - 1], m->M, m->chi && m->vac ? "msd, vac" : m->chi ? "msd" : "vac");
  if (m->vac) print_vac(m, x, unit, dirs);
  for (int a = 0; a < m->nd && m->chi; a++) {
    int best = 0, localized = 0;
    double Dbest = 0;
    for (int e = 0; e < ne; e++) {
      const double v = sqrt(x->velocity2[a * ne + e]), D = x->mean_free_path[a * ne + e] * v;
      if (D > Dbest) best = e, Dbest = D;
      localized += x->localization_length[a * ne + e] > 0;
    }
    printf("  %c            max D %.6g at E = %g (mean free path %.6g)", 'x' + dirs[a], Dbest, m->energies[best],
           x->mean_free_path[a * ne + best]);
    if (m->random) printf(", sigma_sc %.6g %s", x->sigma_sc[a * ne + best], unit);
    printf("; D fallen by half at %d of %d energies\n", localized, ne);
  }
}

void evolution_write_transport(const run_state *s, hm_output *out, const hm_evolution_moments *m,
                               const hm_evolution_transport *x, const char *unit, const int *dirs) {
  hm_evolution_dataset list[HM_EVOLUTION_DATASETS];
  const int n = hm_evolution_transport_datasets(m, x, unit, list);
  char path[64];
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "/evolution/%s", list[i].name);
    APP_CALL(hm_output_write_array(out, path, HM_REAL, list[i].ndim, list[i].dims, list[i].data, list[i].unit,
                                   list[i].description));
  }
  const int64_t dc[4] = {m->nd, m->T + 1, m->R, m->M}, ds[2] = {m->R, m->M}, dv[3] = {m->nd, m->R, m->M};
  if (m->chi)
    APP_CALL(hm_output_write_array(out, "/evolution/msd_moments", HM_REAL, 4, dc, m->chi, "length^2",
                                   "<chi_r|T_n(H~)|chi_r>, chi_r = [X_a, U(t)] phi_r [direction][time][vector][n], "
                                   "H~ = scale (H - shift), undamped (hamlet post)"));
  if (m->vac)
    APP_CALL(hm_output_write_array(out, "/evolution/vac_moments", HM_REAL, 4, dc, m->vac,
                                   "(length x energy)^2 (hbar = 1)",
                                   "Re <U(t) phi_r|T_n(H~) v_a U(t) v_a phi_r>, the velocity auto-correlation's cross "
                                   "moments [direction][time][vector][n], undamped (hamlet post)"));
  APP_CALL(hm_output_write_array(out, "/evolution/start_moments", HM_REAL, 2, ds, m->start, "1",
                                 "<phi_r|T_n(H~)|phi_r> of the start vectors [vector][n], undamped"));
  APP_CALL(hm_output_write_array(out, "/evolution/velocity_moments", HM_REAL, 3, dv, m->velocity,
                                 "(length x energy)^2 (hbar = 1)",
                                 "<v_a phi_r|T_n(H~)|v_a phi_r> [direction][vector][n], undamped"));
  char names[8] = "";
  for (int a = 0; a < m->nd; a++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%c", a ? " " : "", 'x' + dirs[a]);
  APP_CALL(hm_output_write_attribute(out, "/evolution", "msd_directions", names));
  const char *forms = m->chi && m->vac ? "both" : m->chi ? "msd" : "vac";
  APP_CALL(hm_output_write_attribute(out, "/evolution", "transport", forms));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "msd_moments", m->M));
  APP_CALL(hm_output_write_attribute(out, "/evolution", "msd_kernel", m->kernel == HM_KERNEL_LORENTZ ? "lorentz"
                                                                                                   : "jackson"));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "msd_lambda", m->lambda));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "scale", m->scale));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "shift", m->shift));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "dimension", m->dimension));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "density", m->density));
  APP_CALL(hm_output_write_attribute(out, "/evolution", "sigma_unit", unit));
}
