/* Small shared helpers of the TI tests: Hermiticity defect and analytic Bloch bands. */
#ifndef HAMLET_TI_TEST_UTIL_H
#define HAMLET_TI_TEST_UTIL_H
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* max |A - A^H| of a dense n x n column-major matrix. */
static inline double ti_hermitian_defect(int64_t n, const double complex *a) {
  double worst = 0;
  for (int64_t c = 0; c < n; c++)
    for (int64_t r = 0; r < n; r++) worst = fmax(worst, cabs(a[c * n + r] - conj(a[r * n + c])));
  return worst;
}

/* |E(k)| of the clean lattice: sqrt((m - t sum cos k_j)^2 + t^2 sum sin^2 k_j). */
static inline double ti_bloch_energy(double t, double m, double kx, double ky, double kz) {
  double mass = m - t * (cos(kx) + cos(ky) + cos(kz));
  double s2 = sin(kx) * sin(kx) + sin(ky) * sin(ky) + sin(kz) * sin(kz);
  return sqrt(mass * mass + t * t * s2);
}

static inline int ti_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
#endif
