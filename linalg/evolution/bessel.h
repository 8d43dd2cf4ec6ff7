/* Bessel functions J_0(x) .. J_nmax(x) of the first kind by Miller's backward recurrence. */
#ifndef HAMLET_BESSEL_H
#define HAMLET_BESSEL_H

/* J[0..nmax] for x >= 0, nmax >= 0. Returns HM_SUCCESS or an hm error status. */
int hm_bessel_j(double x, int nmax, double *J);
/* The smallest order N >= 2 with 2 sum_{n >= N} |J_n(x)| <= accuracy: the terms a Chebyshev
 * series of exp(-i x Ht) needs, the rest bounded by accuracy in norm. J[0..N) written to *J (malloc'd). */
int hm_bessel_order(double x, double accuracy, int *order, double **J);
#endif
