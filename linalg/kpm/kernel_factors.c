/* Damping factors g_n of the KPM kernels (Weisse et al., Rev. Mod. Phys. 78, 275): they remove the
 * Gibbs oscillations of a truncated Chebyshev series. Jackson gives the sharpest positive kernel,
 * Lorentz a Lorentzian broadening (the right choice for Green's functions). */
#include <math.h>
#include "error_macros.h"
#include "hamlet/dos.h"

int hm_kpm_kernel_factors(hm_kpm_kernel kernel, double lorentz_lambda, int moments, double *g) {
  HM_CHECK(moments >= 2, HM_ERR_ARGUMENT, "moments = %d: need at least 2 Chebyshev moments", moments);
  HM_CHECK(g, HM_ERR_ARGUMENT, "g is NULL: pass an array of %d doubles", moments);
  const double M = moments;
  if (kernel == HM_KERNEL_JACKSON) {
    const double a = M_PI / (M + 1);
    const double cot_a = cos(a) / sin(a);
    for (int n = 0; n < moments; n++)
      g[n] = ((M - n + 1) * cos(a * n) + sin(a * n) * cot_a) / (M + 1);
  } else if (kernel == HM_KERNEL_LORENTZ) {
    HM_CHECK(isfinite(lorentz_lambda) && lorentz_lambda > 0, HM_ERR_ARGUMENT,
             "lorentz_lambda = %g: the Lorentz kernel parameter must be finite and > 0 (typical 3 to 5)",
             lorentz_lambda);
    /* sinh(lambda) overflows beyond ~710; the ratio is then exp(-lambda n / M). */
    for (int n = 0; n < moments; n++)
      g[n] = lorentz_lambda < 700 ? sinh(lorentz_lambda * (1 - n / M)) / sinh(lorentz_lambda)
                                  : exp(-lorentz_lambda * n / M);
  } else {
    HM_RAISE(HM_ERR_ARGUMENT, "kernel = %d: allowed are HM_KERNEL_JACKSON (0) and HM_KERNEL_LORENTZ (1)",
             (int)kernel);
  }
  return 0;
}
