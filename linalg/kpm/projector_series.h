/* Chebyshev coefficients of the Fermi projector's function on [-1, 1] (internal; used by marker.c
 * and its tests). */
#ifndef HAMLET_PROJECTOR_SERIES_H
#define HAMLET_PROJECTOR_SERIES_H

/* a[n] (n < moments) with f(E) ~ sum_n a_n T_n(scale (E - shift)):
 *  temperature = 0: the step theta(mu - E), damped by the Jackson kernel (converges algebraically);
 *  temperature > 0: the Fermi function 1 / (1 + exp((E - mu) / T)), undamped. It is analytic, so its
 *    coefficients decay like exp(-n pi T scale / sqrt(1 - x^2)), x = scale (mu - shift) (the poles at
 *    mu +- i pi T); they are computed by Chebyshev-Gauss quadrature on 4 M nodes (one DCT-II), whose
 *    aliasing error is that of coefficient 7 M and beyond. */
int hm_projector_coefficients(int moments, double scale, double shift, double mu, double temperature, double *a);

#endif
