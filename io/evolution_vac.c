/* The velocity auto-correlation (VAC) form of the time-dependent Kubo-Greenwood transport
 * (evolution_transport.h), from the cross moments c_n = Re <U(t) phi_r|T_n(H~) V_a U(t) V_a phi_r> of
 * each start vector and time row:
 *   C_a(E, t) = sum_r S[c_r(t)](E) / sum_r S[phi_r](E)      Re Tr[delta(E - H) V_a(t) V_a(0)] / Tr[delta(E - H)]
 *   D_a(E, t) = int_0^t C_a(E, tau) dtau                   the trapezoid rule over the stored rows (each
 *                                                          vector's numerator integrated, then the ratio)
 *   sigma_a(E, t) = 2 pi (N / Omega) dos(E) D_a(E, t)       e^2/h, the msd form's convention
 * Since d/dt Delta X_a^2 = 2 int_0^t C_a (Delta X_a^2 = int_0^t int_0^t <V_a(t1) V_a(t2)>), D_a(E, t) is
 * (1/2) d Delta X_a^2 / dt: in the diffusive limit it equals the msd form's Delta X_a^2 / (2 t). The
 * trapezoid's error is (dt^2 / 12) t max |d^2 C / dt^2|: zero where C is constant in time. */
#include <math.h>
#include <stdlib.h>
#include "error_macros.h"
#include "evolution_transport.h"

int hm_evolution_vac_rows(const hm_evolution_moments *m, const double *g, const double *den, const double *to_dos,
                          hm_evolution_transport *x) {
  const int R = m->R, ne = m->ne, M = m->M;
  const size_t grid = (size_t)m->nd * (m->T + 1) * ne + 1, per = (size_t)R * ne + 1;
  double **out[6] = {&x->vac, &x->vac_error, &x->vac_diffusivity, &x->vac_diffusivity_error, &x->vac_sigma,
                     &x->vac_sigma_error};
  int ok = 1;
  for (int k = 0; k < 6; k++) ok &= (*out[k] = calloc(grid, sizeof(double))) != NULL;
  /* prev starts at zero: the first row's half step is 0, and 0 times an unset double can be NaN */
  double *num = malloc(sizeof *num * per), *prev = calloc(per, sizeof *prev), *area = malloc(sizeof *area * per);
  if (!ok || !num || !prev || !area) {
    free(num), free(prev), free(area);
    HM_RAISE(HM_ERR_MEMORY, "the velocity auto-correlation of %d directions x %d times x %d energies", m->nd,
             m->T + 1, ne);
  }
  for (int a = 0; a < m->nd; a++) {
    for (size_t i = 0; i < per; i++) area[i] = 0;
    for (int t = 0; t <= m->T; t++) {
      hm_evolution_sums(m, g, m->vac + ((size_t)a * (m->T + 1) + t) * R * M, num, NULL);
      const double half_step = t ? 0.5 * (m->time[t] - m->time[t - 1]) : 0;
      for (size_t i = 0; i < (size_t)R * ne; i++) area[i] += half_step * (prev[i] + num[i]);
      for (int e = 0; e < ne; e++) {
        const size_t i = ((size_t)a * (m->T + 1) + t) * ne + e;
        double unused, mean_error;
        hm_evolution_ratio(R, ne, e, num, den, &x->vac[i], &x->vac_error[i], &unused);
        hm_evolution_ratio(R, ne, e, area, den, &x->vac_diffusivity[i], &x->vac_diffusivity_error[i], &mean_error);
        x->vac_sigma[i] = 2 * M_PI * m->density * x->dos[e] * x->vac_diffusivity[i];
        x->vac_sigma_error[i] = 2 * M_PI * m->density * to_dos[e] * mean_error;
      }
      double *s = prev;
      prev = num, num = s;
    }
  }
  free(num), free(prev), free(area);
  return HM_SUCCESS;
}

int hm_evolution_vac_datasets(const hm_evolution_moments *m, const hm_evolution_transport *x, const char *unit,
                              hm_evolution_dataset *list, int n) {
  const int64_t nd = m->nd, T = m->T + 1, ne = m->ne;
  const char *v_unit = "(length x energy)^2 (hbar = 1)", *t_unit = "length^2 x energy (hbar = 1)";
  list[n++] = (hm_evolution_dataset){"vac", 3, {nd, T, ne}, x->vac, v_unit,
                                     "C_a(E, t) = Re Tr[delta(E - H) V_a(t) V_a(0)] / Tr[delta(E - H)], V_a(t) = "
                                     "U^+(t) V_a U(t), the velocity auto-correlation [direction][time][energy]"};
  list[n++] = (hm_evolution_dataset){"vac_error", 3, {nd, T, ne}, x->vac_error, v_unit,
                                     "standard error of vac from the spread of the start vectors (0 for one vector)"};
  list[n++] = (hm_evolution_dataset){"vac_diffusivity", 3, {nd, T, ne}, x->vac_diffusivity, t_unit,
                                     "D_a(E, t) = int_0^t C_a(E, tau) dtau (trapezoid over the rows) = (1/2) d Delta "
                                     "X_a^2 / dt, the running diffusivity [direction][time][energy]"};
  list[n++] = (hm_evolution_dataset){"vac_diffusivity_error", 3, {nd, T, ne}, x->vac_diffusivity_error, t_unit,
                                     "standard error of vac_diffusivity from the spread of the start vectors"};
  if (!m->random) return n;
  list[n++] = (hm_evolution_dataset){"vac_sigma", 3, {nd, T, ne}, x->vac_sigma, unit,
                                     "sigma_a(E, t) = e^2 rho(E) D_a(E, t) of the velocity auto-correlation (as sigma "
                                     "of the msd form) [direction][time][energy]"};
  list[n++] = (hm_evolution_dataset){"vac_sigma_error", 3, {nd, T, ne}, x->vac_sigma_error, unit,
                                     "standard error of vac_sigma from the spread of the start vectors"};
  return n;
}
