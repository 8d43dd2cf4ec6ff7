/* method = evolution with msd: the Kubo-Greenwood transport of the mean-square displacement.
 *   D_a(E, t) = Delta X_a^2 / (2 t)                   Einstein's diffusivity (Delta X^2 = 2 D t)
 *   sigma_a(E, t) = e^2 rho(E) D_a(E, t)              rho per energy and area (2D) or volume (3D);
 *                 = 2 pi (N / Omega) dos(E) D  e^2/h  with hbar = 1 and dos per orbital
 *   sigma_sc(E) = the maximum over t                  the semiclassical (diffusive plateau) value
 *   l_a(E) = D_max / v_a,  v_a = sqrt(<v_a^2>(E))     mean free path along a: D_aa = <v_a^2> tau of
 *                                                     the relaxation-time picture, l_a = v_a tau
 *   xi_a(E) = sqrt(2 Delta X_a^2(T) / (d + 1))        where D has fallen below half its maximum by the
 *     last time T: a state |psi|^2 ~ exp(-2 r / xi) in d dimensions gives Delta X_a^2 -> 2 Var(x_a)
 *     = (d + 1) xi^2 / 2 (the time average of |[X, U(t)]|^2 is twice the variance)
 * <v_a^2>(E) is exact: the KPM series of delta(E - H) on v_a phi over that on phi (run_evolution.c). */
#include <math.h>
#include <string.h>
#include "run_evolution.h"

static size_t at(const evolution_rows *r, int a, int t, int e) {
  return ((size_t)a * (r->T + 1) + t) * r->ne + e;
}

void evolution_sigma_error(const evolution_transport *x, const evolution_rows *r, int a, int t, const double *num) {
  const int R = r->R;
  for (int e = 0; e < r->ne; e++) {
    double mean = 0, var = 0;
    for (int q = 0; q < R; q++) mean += num[q * r->ne + e] / R;
    for (int q = 0; q < R; q++) var += pow(num[q * r->ne + e] - mean, 2);
    const double per = 2 * M_PI * x->density * x->to_dos[e] / (2 * r->time[t]); /* sigma per numerator */
    r->sigma_error[at(r, a, t, e)] = x->random && R > 1 ? per * sqrt(var / ((double)R * (R - 1))) : 0;
  }
}

/* D_max over t >= 1 of direction a at energy e. */
static double diffusivity_max(const evolution_rows *r, int a, int e) {
  double best = 0;
  for (int t = 1; t <= r->T; t++) best = fmax(best, r->msd[at(r, a, t, e)] / (2 * r->time[t]));
  return best;
}

static double localization_length(const evolution_rows *r, const evolution_transport *x, int a, int e) {
  const double last = r->msd[at(r, a, r->T, e)], D = last / (2 * r->time[r->T]);
  return r->T > 0 && D < diffusivity_max(r, a, e) / 2 ? sqrt(2 * last / (x->dimension + 1)) : 0;
}

void evolution_write_transport(const run_state *s, hm_output *out, const evolution_rows *r,
                               const evolution_transport *x) {
  const hm_deck *d = &s->deck;
  const int nd = r->nd, ne = r->ne, T = r->T;
  const int64_t de[1] = {ne}, dm[3] = {nd, T + 1, ne}, da[2] = {nd, ne};
  const size_t grid = (size_t)nd * (T + 1) * ne, per = (size_t)nd * ne;
  double *diff = malloc(sizeof *diff * grid), *sigma = malloc(sizeof *sigma * grid);
  double *sc = malloc(sizeof *sc * per), *mfp = malloc(sizeof *mfp * per), *xi = malloc(sizeof *xi * per);
  if (!diff || !sigma || !sc || !mfp || !xi) APP_CALL(HM_ERR_MEMORY);
  for (int a = 0; a < nd; a++)
    for (int e = 0; e < ne; e++) {
      const double to_sigma = 2 * M_PI * x->density * x->dos[e], Dmax = diffusivity_max(r, a, e);
      const double v2 = x->velocity2[a * ne + e];
      for (int t = 0; t <= T; t++) {
        diff[at(r, a, t, e)] = t ? r->msd[at(r, a, t, e)] / (2 * r->time[t]) : 0;
        sigma[at(r, a, t, e)] = to_sigma * diff[at(r, a, t, e)];
      }
      sc[a * ne + e] = to_sigma * Dmax;
      mfp[a * ne + e] = v2 > 0 ? Dmax / sqrt(v2) : 0;
      xi[a * ne + e] = localization_length(r, x, a, e);
    }
  char dirs[8] = "";
  for (int a = 0; a < nd; a++) snprintf(dirs + strlen(dirs), sizeof dirs - strlen(dirs), "%s%c", a ? " " : "", 'x' + x->dirs[a]);
  APP_CALL(hm_output_write_array(out, "/evolution/energy", HM_REAL, 1, de, d->evolution.energies, "energy",
                                 "the energies E of the mean-square displacement"));
  APP_CALL(hm_output_write_array(out, "/evolution/msd", HM_REAL, 3, dm, r->msd, "length^2",
                                 "Delta X_a^2(E, t) = Tr[delta(E - H) |[X_a, U(t)]|^2] / Tr[delta(E - H)] "
                                 "[direction][time][energy] (cartesian, the model file's length unit)"));
  APP_CALL(hm_output_write_array(out, "/evolution/msd_error", HM_REAL, 3, dm, r->msd_error, "length^2",
                                 "standard error of msd from the spread of the start vectors (0 for one vector)"));
  APP_CALL(hm_output_write_array(out, "/evolution/diffusivity", HM_REAL, 3, dm, diff, "length^2 x energy (hbar = 1)",
                                 "D_a(E, t) = Delta X_a^2 / (2 t), the Einstein diffusivity at long times (row 0: 0)"));
  APP_CALL(hm_output_write_array(out, "/evolution/dos", HM_REAL, 1, de, x->dos, "1/energy",
                                 "<phi|delta(E - H)|phi> averaged over the start vectors: the density of states per "
                                 "orbital (start = random) or the local one of the start site"));
  APP_CALL(hm_output_write_array(out, "/evolution/velocity_squared", HM_REAL, 2, da, x->velocity2,
                                 "(length x energy)^2 (hbar = 1)",
                                 "<v_a^2>(E) = Tr[delta(E - H) v_a^2] / Tr[delta(E - H)] [direction][energy]"));
  APP_CALL(hm_output_write_array(out, "/evolution/mean_free_path", HM_REAL, 2, da, mfp, "length",
                                 "l_a(E) = max_t D_a(E, t) / sqrt(<v_a^2>(E)) [direction][energy]"));
  APP_CALL(hm_output_write_array(out, "/evolution/localization_length", HM_REAL, 2, da, xi, "length",
                                 "xi_a(E) = sqrt(2 Delta X_a^2(E, T) / (d + 1)) where D_a(E, T) at the last time is "
                                 "below half its maximum (|psi|^2 ~ exp(-2 r / xi) in d dimensions); 0 elsewhere"));
  if (x->random) {
    APP_CALL(hm_output_write_array(out, "/evolution/sigma", HM_REAL, 3, dm, sigma, x->unit,
                                   "sigma_a(E, t) = e^2 rho(E) D_a(E, t), rho per energy and area or volume, "
                                   "per orbital of the model (no spin factor) [direction][time][energy]"));
    APP_CALL(hm_output_write_array(out, "/evolution/sigma_error", HM_REAL, 3, dm, r->sigma_error, x->unit,
                                   "standard error of sigma from the spread of the start vectors (0 for one vector)"));
    APP_CALL(hm_output_write_array(out, "/evolution/sigma_sc", HM_REAL, 2, da, sc, x->unit,
                                   "max_t sigma_a(E, t): the semiclassical conductivity [direction][energy]"));
    APP_CALL(hm_output_write_attribute(out, "/evolution", "sigma_unit", x->unit));
    APP_CALL(hm_output_write_attribute_double(out, "/evolution", "density", x->density));
  }
  APP_CALL(hm_output_write_attribute(out, "/evolution", "msd_directions", dirs));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "msd_moments", d->evolution.moments));
  APP_CALL(hm_output_write_attribute(out, "/evolution", "msd_kernel", "jackson"));
  APP_CALL(hm_output_write_attribute_double(out, "/evolution", "dimension", x->dimension));
  free(diff), free(sigma), free(sc), free(mfp), free(xi);
}

void evolution_print_transport(const run_state *s, const evolution_rows *r, const evolution_transport *x) {
  const hm_deck *d = &s->deck;
  printf("  msd          %d direction%s at %d energies in [%g, %g], %d moments (/evolution/msd)\n", r->nd,
         r->nd == 1 ? "" : "s", r->ne, d->evolution.energies[0], d->evolution.energies[r->ne - 1], d->evolution.moments);
  for (int a = 0; a < r->nd; a++) {
    int best = 0, localized = 0;
    for (int e = 0; e < r->ne; e++) {
      if (diffusivity_max(r, a, e) > diffusivity_max(r, a, best)) best = e;
      localized += localization_length(r, x, a, e) > 0;
    }
    const double Dmax = diffusivity_max(r, a, best), v2 = x->velocity2[a * r->ne + best];
    printf("  %c            max D %.6g at E = %g (mean free path %.6g)", 'x' + x->dirs[a], Dmax,
           d->evolution.energies[best], v2 > 0 ? Dmax / sqrt(v2) : 0);
    if (x->random) printf(", sigma_sc %.6g %s", 2 * M_PI * x->density * x->dos[best] * Dmax, x->unit);
    printf("; D fallen by half at %d of %d energies\n", localized, r->ne);
  }
}
