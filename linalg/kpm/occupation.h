/* Fermi occupations of the Chebyshev-angle quadrature shared by the DC and optical conductivity:
 * nodes theta_k = pi (k + 1/2) / K, e = cos theta, energy E = e / scale + shift. */
#ifndef HAMLET_KPM_OCCUPATION_H
#define HAMLET_KPM_OCCUPATION_H
#include <math.h>

static inline double hm_fermi(double E, double mu, double T) {
  if (T <= 0) return E < mu ? 1.0 : (E > mu ? 0.0 : 0.5);
  const double x = (E - mu) / T;
  return x > 0 ? exp(-x) / (1 + exp(-x)) : 1 / (1 + exp(x));
}

/* The Fermi factor of quadrature cell k (theta in [pi k / K, pi (k + 1) / K], e = cos theta) for
 * chemical potential mu. At T = 0 the step falls inside one cell: that cell counts with the part of
 * its theta interval that is occupied (e < e_mu, theta > theta_mu) instead of 0 or 1 at its
 * midpoint, which removes the first-order quadrature error at the Fermi level. */
static inline double hm_cell_occupation(int k, int K, double scale, double shift, double mu, double T) {
  if (T > 0) return hm_fermi(cos(M_PI * (k + 0.5) / K) / scale + shift, mu, T);
  const double e_mu = scale * (mu - shift);
  if (e_mu >= 1) return 1.0;
  if (e_mu <= -1) return 0.0;
  const double th_mu = acos(e_mu), lo = M_PI * k / K, hi = M_PI * (k + 1) / K;
  if (lo >= th_mu) return 1.0;
  if (hi <= th_mu) return 0.0;
  return (hi - th_mu) / (hi - lo);
}
#endif
