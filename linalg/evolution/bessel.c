/* Miller's backward recurrence J_{n-1} = (2n / x) J_n - J_{n+1} from far above the orders wanted
 * (where the minimal solution J_n dominates downward), normalised by J_0 + 2 sum_k J_2k = 1.
 * Forward recurrence would be unstable for n > x, where the series' tail lives. */
#include <math.h>
#include <stdlib.h>
#include "bessel.h"
#include "error_macros.h"

int hm_bessel_j(double x, int nmax, double *J) {
  HM_CHECK(J && nmax >= 0, HM_ERR_ARGUMENT, "nmax = %d, must be >= 0", nmax);
  HM_CHECK(isfinite(x) && x >= 0 && x < 1e8, HM_ERR_ARGUMENT, "x = %g, must be in [0, 1e8)", x);
  if (x == 0) {
    for (int n = 0; n <= nmax; n++) J[n] = n == 0;
    return HM_SUCCESS;
  }
  /* Start well above both nmax and x: the error of J_n shrinks like J_m / J_n (Numerical Recipes'
   * margin sqrt(160 m)); an even start so the normalisation sum pairs up. */
  double top = fmax((double)nmax, x);
  int m = 2 * (((int)(top + 20 + sqrt(160 * top))) / 2 + 1);
  double next = 0, cur = 1e-300, sum = 0;
  for (int n = m; n > 0; n--) { /* cur = J_n (unnormalised), next = J_{n+1} */
    if (n <= nmax) J[n] = cur;
    if (n % 2 == 0) sum += 2 * cur;
    double prev = 2.0 * n / x * cur - next;
    next = cur;
    cur = prev;
    if (fabs(cur) > 1e250) { /* rescale everything so far: values below nmax grow fast for n > x */
      cur *= 1e-250;
      next *= 1e-250;
      sum *= 1e-250;
      for (int i = n; i <= nmax && i <= m; i++) J[i] *= 1e-250;
    }
  }
  sum += cur;
  J[0] = cur;
  for (int n = 0; n <= nmax; n++) J[n] /= sum;
  return HM_SUCCESS;
}

int hm_bessel_order(double x, double accuracy, int *order, double **J) {
  HM_CHECK(order && J, HM_ERR_ARGUMENT, "order or J is NULL");
  *J = NULL;
  /* J_n(x) falls faster than exponentially past n ~ x + x^(1/3): 1.2 x + 60 holds every term above
   * 1e-30 for any x. */
  HM_CHECK(isfinite(x) && x >= 0 && x < 1e7, HM_ERR_ARGUMENT, "x = %g, must be in [0, 1e7)", x);
  int nmax = (int)(1.2 * x + 60 + 8 * cbrt(x));
  double *all;
  HM_MALLOC(all, (size_t)nmax + 1);
  int st = hm_bessel_j(x, nmax, all);
  if (st) { free(all); return st; }
  double tail = 0;
  int N = nmax + 1;
  for (int n = nmax; n >= 2; n--) { /* the tail from the top down: the smallest N that passes */
    tail += 2 * fabs(all[n]);
    if (tail > accuracy) break;
    N = n;
  }
  if (N > nmax) { free(all); HM_RAISE(HM_ERR_NUMERIC, "no Chebyshev order up to %d reaches accuracy %g at x = %g", nmax, accuracy, x); }
  *order = N;
  *J = all;
  return HM_SUCCESS;
}
