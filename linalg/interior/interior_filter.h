/* The window filter of ChebFD: the damped Chebyshev series of the window's indicator on the
 * spectral interval, its degree, and its application to a block. */
#ifndef HAMLET_INTERIOR_FILTER_H
#define HAMLET_INTERIOR_FILTER_H
#include "hamlet/matrix.h"
#include "hamlet/mvec.h"

/* Degree that resolves the window [a, b] (scaled into (-1, 1)): 4 pi over the window's width in
 * theta = acos(x), a damped series of N terms resolving about pi / N there. */
int hm_interior_filter_degree(double a, double b);
/* c[0..N] = g_n times the Chebyshev coefficients of the indicator of [a, b] (scaled interval), g_n
 * the square root of Lanczos's sigma factor sin(x) / x, x = pi n / (N + 1): sharper edges than
 * Jackson's damping, with small ripples that Rayleigh-Ritz and the residual test absorb. */
int hm_interior_filter_coefficients(double a, double b, int N, double *c);
/* Y = sum_n c_n T_n(scale (H - shift)) X (N + 1 coefficients); X is kept. V0, V1: work blocks of
 * X's width; the recurrence advances with the fused Chebyshev block step of KPM. */
int hm_interior_filter_apply(hm_matrix *H, double scale, double shift, int N, const double *c, const hm_mvec *X,
                             hm_mvec *Y, hm_mvec *V0, hm_mvec *V1);
#endif
