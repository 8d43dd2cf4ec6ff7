/* sigma_ab(mu, T) from the 2D Chebyshev moments (Kubo-Bastin; Garcia, Covaci, Rappoport PRL 114,
 * 116602 (2015)). hbar = 1: sigma = (i e^2 / Omega) Int dE f(E) Tr[v_a delta(E-H) v_b dG+/dE
 * - v_a dG-/dE v_b delta(E-H)]. With H~ = s (H - b), e = cos(theta), q = sin(theta), Jackson or
 * Lorentz damping g_n and h_n = (2 - delta_n0) g_n (Weisse et al., RMP 78, 275):
 *   delta(e - H~) = sum h_n cos(n theta) T_n / (pi q)
 *   G+-(e)        = -+ i sum h_n exp(-+ i n theta) T_n / q
 *   dG+-/de       = -+ i sum h_n exp(-+ i n theta) (e +- i n q) T_n / q^3,
 * and delta(E-H) = s delta(e-H~), dG/dE = s^2 dG~/de, dE = de/s, so with Tr[v_a T_n v_b T_m] =
 * N mu_nm the integrand over e carries s^2 N / Omega. The e integral runs over theta (de = q dtheta)
 * at K = 4M midpoints; each component's integrand at every node is two dense products mu x
 * (coefficients), made with ZGEMM. */
#include <cblas.h>
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "error_macros.h"
#include "hamlet/conductivity.h"
#include "occupation.h"

int hm_conductivity_sigma(int moments, int ncomp, const double *mu, double scale, double shift, hm_kpm_kernel kernel,
                          double lorentz_lambda, double density, int nenergy, const double *energies, int ntemp,
                          const double *temps, double *sigma) {
  HM_CHECK(moments >= 2 && ncomp >= 1 && nenergy >= 1 && ntemp >= 1, HM_ERR_ARGUMENT,
           "moments = %d (>= 2), components = %d, energies = %d, temperatures = %d (each >= 1)", moments, ncomp,
           nenergy, ntemp);
  HM_CHECK(mu && energies && temps && sigma, HM_ERR_ARGUMENT, "mu, energies, temps and sigma must not be NULL");
  HM_CHECK(isfinite(scale) && scale > 0 && isfinite(shift), HM_ERR_ARGUMENT,
           "scale = %g, shift = %g: need a finite scale > 0 and a finite shift", scale, shift);
  HM_CHECK(isfinite(density) && density > 0, HM_ERR_ARGUMENT, "density = %g: orbitals per cell area or volume, > 0",
           density);
  for (int t = 0; t < ntemp; t++)
    HM_CHECK(isfinite(temps[t]) && temps[t] >= 0, HM_ERR_ARGUMENT, "temperature %d = %g: must be finite and >= 0", t,
             temps[t]);
  for (int e = 0; e < nenergy; e++)
    HM_CHECK(isfinite(energies[e]), HM_ERR_ARGUMENT, "energy %d = %g: must be finite", e, energies[e]);
  const int M = moments, K = 4 * moments;
  double *g = malloc(sizeof(double) * M);
  double complex *coef = malloc(sizeof(double complex) * (size_t)M * 2 * K); /* [M][2K]: dG+ | delta */
  double complex *prod = malloc(sizeof(double complex) * (size_t)M * 2 * K);
  double *F = malloc(sizeof(double) * K);
  int st = !g || !coef || !prod || !F;
  if (st) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "no memory for %d moments at %d nodes", M, K);
    goto done;
  }
  HM_CALL_GOTO(st, done, hm_kpm_kernel_factors(kernel, lorentz_lambda, M, g));
  for (int n = 0; n < M; n++) {
    const double h = (n ? 2.0 : 1.0) * g[n];
    for (int k = 0; k < K; k++) {
      const double th = M_PI * (k + 0.5) / K, e = cos(th), q = sin(th);
      coef[(size_t)n * 2 * K + k] = -I * h * cexp(-I * n * th) * (e + I * n * q) / (q * q * q);
      coef[(size_t)n * 2 * K + K + k] = h * cos(n * th) / (M_PI * q);
    }
  }
  const double complex one = 1, zero = 0;
  for (int c = 0; c < ncomp; c++) {
    const double complex *m = (const double complex *)mu + (size_t)c * M * M;
    /* prod[n][k] = sum_m mu_nm coef[m][k]: mu dG+ (k < K) and mu delta (k >= K) */
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, 2 * K, M, &one, m, M, coef, 2 * K, &zero, prod, 2 * K);
    for (int k = 0; k < K; k++) {
      double complex acc = 0;
      for (int n = 0; n < M; n++) {
        const double complex d_n = coef[(size_t)n * 2 * K + K + k];
        const double complex dgm_n = conj(coef[(size_t)n * 2 * K + k]);
        acc += d_n * prod[(size_t)n * 2 * K + k] - dgm_n * prod[(size_t)n * 2 * K + K + k];
      }
      const double q = sin(M_PI * (k + 0.5) / K);
      F[k] = creal(I * acc) * q * (M_PI / K) * scale * scale * density * 2 * M_PI; /* e^2/h */
    }
    for (int t = 0; t < ntemp; t++)
      for (int e = 0; e < nenergy; e++) {
        double s = 0;
        for (int k = 0; k < K; k++) s += hm_cell_occupation(k, K, scale, shift, energies[e], temps[t]) * F[k];
        sigma[((size_t)c * ntemp + t) * nenergy + e] = s;
      }
  }
done:
  free(g);
  free(coef);
  free(prod);
  free(F);
  return st;
}
