/* The transport of method = evolution from its moments (evolution_transport.h). */
#include <math.h>
#include <stdlib.h>
#include "error_macros.h"
#include "evolution_transport.h"
#include "hamlet/dos.h"

void hm_evolution_sums(const hm_evolution_moments *m, const double *g, const double *mom, double *out, double *to_dos) {
  for (int e = 0; e < m->ne; e++) {
    const double x = m->scale * (m->energies[e] - m->shift);
    const int inside = fabs(x) < 1;
    if (to_dos) to_dos[e] = inside ? m->scale / (M_PI * sqrt(1 - x * x)) : 0;
    for (int r = 0; r < m->R; r++) {
      double acc = 0;
      if (inside) {
        const double theta = acos(x);
        for (int n = 0; n < m->M; n++) acc += (n ? 2 : 1) * g[n] * mom[(size_t)r * m->M + n] * cos(n * theta);
      }
      out[r * m->ne + e] = acc;
    }
  }
}

static size_t at(const hm_evolution_moments *m, int a, int t, int e) {
  return ((size_t)a * (m->T + 1) + t) * m->ne + e;
}

/* D_max over t >= 1 of direction a at energy e. */
static double diffusivity_max(const hm_evolution_moments *m, const hm_evolution_transport *x, int a, int e) {
  double best = 0;
  for (int t = 1; t <= m->T; t++) best = fmax(best, x->diffusivity[at(m, a, t, e)]);
  return best;
}

void hm_evolution_transport_free(hm_evolution_transport *x) {
  free(x->msd), free(x->msd_error), free(x->diffusivity), free(x->sigma), free(x->sigma_error), free(x->dos);
  free(x->velocity2), free(x->sigma_sc), free(x->mean_free_path), free(x->localization_length);
  free(x->vac), free(x->vac_error), free(x->vac_diffusivity), free(x->vac_diffusivity_error), free(x->vac_sigma);
  free(x->vac_sigma_error);
  *x = (hm_evolution_transport){0};
}

void hm_evolution_ratio(int R, int ne, int e, const double *num, const double *den, double *ratio, double *error,
                        double *mean_error) {
  double sa = 0, sb = 0, spread = 0, var = 0;
  for (int q = 0; q < R; q++) sa += num[q * ne + e], sb += den[q * ne + e];
  *ratio = sb > 0 ? sa / sb : 0;
  const double mean = sa / R;
  for (int q = 0; q < R; q++) {
    spread += pow(num[q * ne + e] - *ratio * den[q * ne + e], 2);
    var += pow(num[q * ne + e] - mean, 2);
  }
  *error = R > 1 && sb > 0 ? sqrt(spread / ((double)R * (R - 1))) * R / sb : 0;
  *mean_error = R > 1 ? sqrt(var / ((double)R * (R - 1))) : 0;
}

/* Row t of direction a from its numerators num[R][ne] and the start's den[R][ne]. */
static void row(const hm_evolution_moments *m, hm_evolution_transport *x, int a, int t, const double *num,
                const double *den, const double *to_dos) {
  for (int e = 0; e < m->ne; e++) {
    const size_t i = at(m, a, t, e);
    double mean_error;
    hm_evolution_ratio(m->R, m->ne, e, num, den, &x->msd[i], &x->msd_error[i], &mean_error);
    x->diffusivity[i] = t ? x->msd[i] / (2 * m->time[t]) : 0;
    x->sigma[i] = 2 * M_PI * m->density * x->dos[e] * x->diffusivity[i];
    x->sigma_error[i] = t ? 2 * M_PI * m->density * to_dos[e] / (2 * m->time[t]) * mean_error : 0;
  }
}

int hm_evolution_transport_compute(const hm_evolution_moments *m, hm_evolution_transport *x) {
  const int nd = m->nd, ne = m->ne, R = m->R, M = m->M;
  const size_t grid = (size_t)nd * (m->T + 1) * ne + 1, per = (size_t)nd * ne + 1;
  *x = (hm_evolution_transport){.msd = calloc(grid, sizeof(double)), .msd_error = calloc(grid, sizeof(double)),
                                .diffusivity = calloc(grid, sizeof(double)), .sigma = calloc(grid, sizeof(double)),
                                .sigma_error = calloc(grid, sizeof(double)), .dos = calloc(ne + 1, sizeof(double)),
                                .velocity2 = calloc(per, sizeof(double)), .sigma_sc = calloc(per, sizeof(double)),
                                .mean_free_path = calloc(per, sizeof(double)),
                                .localization_length = calloc(per, sizeof(double))};
  double *g = malloc(sizeof *g * M), *den = malloc(sizeof *den * ((size_t)R * ne + 1));
  double *num = malloc(sizeof *num * ((size_t)R * ne + 1)), *to_dos = malloc(sizeof *to_dos * (ne + 1));
  int st = x->msd && x->msd_error && x->diffusivity && x->sigma && x->sigma_error && x->dos && x->velocity2 &&
                   x->sigma_sc && x->mean_free_path && x->localization_length && g && den && num && to_dos
               ? HM_SUCCESS
               : HM_ERR_MEMORY;
  if (!st) st = hm_kpm_kernel_factors(m->kernel, m->lambda, M, g);
  if (!st) {
    hm_evolution_sums(m, g, m->start, den, to_dos);
    for (int e = 0; e < ne; e++) {
      double sb = 0;
      for (int q = 0; q < R; q++) sb += den[q * ne + e];
      x->dos[e] = to_dos[e] * sb / R; /* the start vectors have norm 1 */
    }
    for (int a = 0; a < nd; a++) {
      hm_evolution_sums(m, g, m->velocity + (size_t)a * R * M, num, NULL);
      for (int e = 0; e < ne; e++) {
        double sa = 0, sb = 0;
        for (int q = 0; q < R; q++) sa += num[q * ne + e], sb += den[q * ne + e];
        x->velocity2[a * ne + e] = sb > 0 ? sa / sb : 0;
      }
      if (!m->chi) continue; /* transport = vac */
      for (int t = 0; t <= m->T; t++) {
        hm_evolution_sums(m, g, m->chi + ((size_t)a * (m->T + 1) + t) * R * M, num, NULL);
        row(m, x, a, t, num, den, to_dos);
      }
      for (int e = 0; e < ne; e++) {
        const double Dmax = diffusivity_max(m, x, a, e), v2 = x->velocity2[a * ne + e];
        const double last = x->msd[at(m, a, m->T, e)];
        x->sigma_sc[a * ne + e] = 2 * M_PI * m->density * x->dos[e] * Dmax;
        x->mean_free_path[a * ne + e] = v2 > 0 ? Dmax / sqrt(v2) : 0;
        x->localization_length[a * ne + e] = m->T > 0 && x->diffusivity[at(m, a, m->T, e)] < Dmax / 2
                                                 ? sqrt(2 * last / (m->dimension + 1))
                                                 : 0;
      }
    }
    if (m->vac) st = hm_evolution_vac_rows(m, g, den, to_dos, x);
  }
  free(g), free(den), free(num), free(to_dos);
  if (st) hm_evolution_transport_free(x);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_evolution_transport_datasets(const hm_evolution_moments *m, const hm_evolution_transport *x,
                                    const char *unit, hm_evolution_dataset *list) {
  const int64_t nd = m->nd, T = m->T + 1, ne = m->ne;
  const char *t_unit = "length^2 x energy (hbar = 1)";
  int n = 0;
  list[n++] = (hm_evolution_dataset){"energy", 1, {ne}, m->energies, "energy",
                                     "the energies E of the transport (msd, vac)"};
  list[n++] = (hm_evolution_dataset){"dos", 1, {ne}, x->dos, "1/energy",
                                     "<phi|delta(E - H)|phi> averaged over the start vectors: the density of states "
                                     "per orbital (start = random) or the local one of the start site"};
  list[n++] = (hm_evolution_dataset){"velocity_squared", 2, {nd, ne}, x->velocity2, "(length x energy)^2 (hbar = 1)",
                                     "<v_a^2>(E) = Tr[delta(E - H) v_a^2] / Tr[delta(E - H)] [direction][energy]"};
  if (m->chi) {
    list[n++] = (hm_evolution_dataset){"msd", 3, {nd, T, ne}, x->msd, "length^2",
                                       "Delta X_a^2(E, t) = Tr[delta(E - H) |[X_a, U(t)]|^2] / Tr[delta(E - H)] "
                                       "[direction][time][energy] (cartesian, the model file's length unit)"};
    list[n++] = (hm_evolution_dataset){"msd_error", 3, {nd, T, ne}, x->msd_error, "length^2",
                                       "standard error of msd from the spread of the start vectors (0 for one vector)"};
    list[n++] = (hm_evolution_dataset){"diffusivity", 3, {nd, T, ne}, x->diffusivity, t_unit,
                                       "D_a(E, t) = Delta X_a^2 / (2 t), the Einstein diffusivity at long times "
                                       "(row 0: 0)"};
    list[n++] = (hm_evolution_dataset){"mean_free_path", 2, {nd, ne}, x->mean_free_path, "length",
                                       "l_a(E) = max_t D_a(E, t) / sqrt(<v_a^2>(E)) [direction][energy]"};
    list[n++] = (hm_evolution_dataset){"localization_length", 2, {nd, ne}, x->localization_length, "length",
                                       "xi_a(E) = sqrt(2 Delta X_a^2(E, T) / (d + 1)) where D_a(E, T) at the last "
                                       "time is below half its maximum (|psi|^2 ~ exp(-2 r / xi) in d dimensions); 0 "
                                       "elsewhere"};
  }
  if (m->vac) n = hm_evolution_vac_datasets(m, x, unit, list, n);
  if (!m->random || !m->chi) return n;
  list[n++] = (hm_evolution_dataset){"sigma", 3, {nd, T, ne}, x->sigma, unit,
                                     "sigma_a(E, t) = e^2 rho(E) D_a(E, t), rho per energy and area or volume, per "
                                     "orbital of the model (no spin factor) [direction][time][energy]"};
  list[n++] = (hm_evolution_dataset){"sigma_error", 3, {nd, T, ne}, x->sigma_error, unit,
                                     "standard error of sigma from the spread of the start vectors (0 for one vector)"};
  list[n++] = (hm_evolution_dataset){"sigma_sc", 2, {nd, ne}, x->sigma_sc, unit,
                                     "max_t sigma_a(E, t): the semiclassical conductivity [direction][energy]"};
  return n;
}
