/* Chebyshev coefficients of the projector f(H) applied by marker.c: the Jackson-damped step at zero
 * temperature, the undamped Fermi function above (linalg/kpm/projector_series.h). */
#include <math.h>
#include "dct.h"
#include "error_macros.h"
#include "hamlet/dos.h"
#include "projector_series.h"

/* a[n] = g_n c_n: Jackson factors times the Chebyshev coefficients of theta(e_mu - e) on [-1, 1]. */
static int step_coefficients(int moments, double scale, double shift, double mu, double *a) {
  HM_CALL(hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 0.0, moments, a));
  double e = scale * (mu - shift);
  e = e < -1 ? -1 : (e > 1 ? 1 : e);
  const double phi = acos(e);
  a[0] *= 1 - phi / M_PI;
  for (int n = 1; n < moments; n++) a[n] *= -2 * sin(n * phi) / (n * M_PI);
  return HM_SUCCESS;
}

/* 1 / (1 + exp(t)) without overflow for large |t|. */
static double fermi(double t) {
  if (t > 0) {
    const double e = exp(-t);
    return e / (1 + e);
  }
  return 1 / (1 + exp(t));
}

/* a_n = (2 - delta_n0) / K sum_j f(cos theta_j) cos(n theta_j), theta_j = pi (j + 1/2) / K: exact for
 * polynomials of degree < 2K - n; FFTW's REDFT10 is Y_n = 2 sum_j X_j cos(n theta_j). */
static int fermi_coefficients(int moments, double scale, double shift, double mu, double temperature, double *a) {
  HM_CHECK(moments <= (1 << 28), HM_ERR_ARGUMENT, "moments = %d: at most 2^28 for the Fermi series", moments);
  const int K = 4 * moments;
  hm_dct dct;
  HM_CALL(hm_dct_create(K, FFTW_REDFT10, "REDFT10", &dct));
  double *buf = dct.buf;
  for (int j = 0; j < K; j++) {
    const double energy = cos(M_PI * (j + 0.5) / K) / scale + shift;
    buf[j] = fermi((energy - mu) / temperature);
  }
  hm_dct_execute(&dct);
  a[0] = buf[0] / (2.0 * K);
  for (int n = 1; n < moments; n++) a[n] = buf[n] / K;
  hm_dct_destroy(&dct);
  return HM_SUCCESS;
}

int hm_projector_coefficients(int moments, double scale, double shift, double mu, double temperature, double *a) {
  HM_CHECK(moments >= 2 && a, HM_ERR_ARGUMENT, "moments = %d (at least 2) and a coefficient array are needed",
           moments);
  HM_CHECK(isfinite(scale) && scale > 0 && isfinite(shift) && isfinite(mu), HM_ERR_ARGUMENT,
           "scale %g, shift %g, mu %g: must be finite, scale > 0", scale, shift, mu);
  HM_CHECK(isfinite(temperature) && temperature >= 0, HM_ERR_ARGUMENT,
           "temperature = %g: must be finite and >= 0 (0 = the Jackson-damped step)", temperature);
  if (temperature == 0) return step_coefficients(moments, scale, shift, mu, a);
  return fermi_coefficients(moments, scale, shift, mu, temperature, a);
}
