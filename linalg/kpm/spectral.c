/* Plane-wave start vectors of A(k, E), the allowed k of a supercell, and A from the moments
 * (include/hamlet/spectral.h). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "error_macros.h"
#include "hamlet/dist.h"
#include "hamlet/ldos.h"
#include "hamlet/spectral.h"
#include "hamlet/stencil.h" /* hm_boundary */

int hm_spectral_reciprocal(const double lattice[9], double recip[9]) {
  HM_CHECK(lattice && recip, HM_ERR_ARGUMENT, "lattice or recip is NULL");
  const double *a = lattice;
  for (int i = 0; i < 3; i++) {
    const double *u = a + 3 * ((i + 1) % 3), *v = a + 3 * ((i + 2) % 3);
    recip[3 * i + 0] = u[1] * v[2] - u[2] * v[1];
    recip[3 * i + 1] = u[2] * v[0] - u[0] * v[2];
    recip[3 * i + 2] = u[0] * v[1] - u[1] * v[0];
  }
  const double volume = a[0] * recip[0] + a[1] * recip[1] + a[2] * recip[2];
  HM_CHECK(fabs(volume) > 1e-12, HM_ERR_ARGUMENT, "the lattice vectors span no volume (a1 . (a2 x a3) = %g)", volume);
  for (int i = 0; i < 9; i++) recip[i] *= 2 * M_PI / volume;
  return HM_SUCCESS;
}

int hm_spectral_nearest_allowed(const int64_t cells[3], const int boundary[3], const double twist[3],
                                const double frac[3], double allowed[3]) {
  HM_CHECK(cells && boundary && twist && frac && allowed, HM_ERR_ARGUMENT,
           "cells, boundary, twist, frac or allowed is NULL");
  for (int i = 0; i < 3; i++) {
    HM_CHECK(boundary[i] == HM_BC_PERIODIC || boundary[i] == HM_BC_OPEN || boundary[i] == HM_BC_TWISTED,
             HM_ERR_ARGUMENT, "boundary[%d] = %d: allowed are %d (periodic), %d (open), %d (twisted)", i,
             boundary[i], HM_BC_PERIODIC, HM_BC_OPEN, HM_BC_TWISTED);
    HM_CHECK(cells[i] >= 1, HM_ERR_ARGUMENT, "cells[%d] = %lld: must be >= 1", i, (long long)cells[i]);
  }
  for (int i = 0; i < 3; i++) {
    if (boundary[i] == HM_BC_OPEN) { /* open: no quantisation */
      allowed[i] = frac[i];
      continue;
    }
    const double n = (double)cells[i], offset = boundary[i] == HM_BC_TWISTED ? twist[i] / (2 * M_PI) : 0.0;
    allowed[i] = (nearbyint(frac[i] * n - offset) + offset) / n;
  }
  return HM_SUCCESS;
}

int hm_spectral_start_fill(hm_mvec *V, const int64_t cells[3], int orbitals, const double lattice[9],
                           const double *positions, int count, const double *k, const int *layer) {
  HM_CHECK(V && cells && lattice && positions && k && layer, HM_ERR_ARGUMENT,
           "V, cells, lattice, positions, k or layer is NULL");
  HM_CHECK(orbitals >= 1 && count >= 1, HM_ERR_ARGUMENT, "orbitals = %d, count = %d: both must be >= 1", orbitals,
           count);
  const int64_t n1 = cells[0], n2 = cells[1], n3 = cells[2];
  HM_CHECK(n1 >= 1 && n2 >= 1 && n3 >= 1, HM_ERR_ARGUMENT, "cells %lld x %lld x %lld: each must be >= 1",
           (long long)n1, (long long)n2, (long long)n3);
  int64_t local, first, n;
  int width;
  hm_scalar type;
  const hm_dist *dist;
  HM_CALL(hm_mvec_size(V, &local, &width));
  HM_CALL(hm_mvec_type(V, &type));
  HM_CALL(hm_mvec_dist(V, &dist));
  HM_CALL(hm_dist_range(dist, &first, NULL, &n));
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT, "the start block must be complex (plane waves)");
  HM_CHECK(width == count * orbitals, HM_ERR_ARGUMENT,
           "the start block has %d columns; %d points x %d orbitals = %d expected", width, count, orbitals,
           count * orbitals);
  HM_CHECK(n == n1 * n2 * n3 * orbitals, HM_ERR_ARGUMENT,
           "the start block has %lld rows; %lld cells x %d orbitals = %lld expected", (long long)n,
           (long long)(n1 * n2 * n3), orbitals, (long long)(n1 * n2 * n3 * orbitals));
  for (int j = 0; j < count; j++)
    HM_CHECK(layer[j] >= -1 && layer[j] < n3, HM_ERR_ARGUMENT, "point %d: layer %d is outside [0, %lld) (or -1 = all)",
             j, layer[j], (long long)n3);
  /* e^{ik.r} = e^{ik.a1 c1} e^{ik.a2 c2} e^{ik.a3 c3} e^{ik.tau_o}: per point, tables of each
   * direction's phases (n1 + n2 + n3 + orbitals values) instead of one cexp per entry */
  const int64_t span = n1 + n2 + n3 + orbitals;
  double complex *values, *phase;
  HM_MALLOC(phase, (size_t)(count * span));
  const double *a = lattice;
  for (int j = 0; j < count; j++) {
    const double *q = k + 3 * j;
    double complex *t = phase + j * span;
    const int64_t n[3] = {n1, n2, n3};
    for (int d = 0, off = 0; d < 3; off += (int)n[d], d++) {
      const double ka = q[0] * a[3 * d] + q[1] * a[3 * d + 1] + q[2] * a[3 * d + 2];
      for (int64_t c = 0; c < n[d]; c++) t[off + c] = cexp(I * ka * (double)c);
    }
    const double norm = 1 / sqrt(layer[j] < 0 ? (double)(n1 * n2 * n3) : (double)(n1 * n2));
    for (int o = 0; o < orbitals; o++) {
      const double *tau = positions + 3 * o;
      t[n1 + n2 + n3 + o] = norm * cexp(I * (q[0] * tau[0] + q[1] * tau[1] + q[2] * tau[2]));
    }
  }
  values = calloc((size_t)local * width + 1, sizeof *values);
  if (!values) free(phase);
  HM_CHECK(values, HM_ERR_MEMORY, "cannot allocate the %lld x %d start block", (long long)local, width);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < local; i++) {
    const int64_t row = first + i, cell = row / orbitals;
    const int o = (int)(row % orbitals);
    const int64_t c1 = cell % n1, c2 = (cell / n1) % n2, c3 = cell / (n1 * n2);
    for (int j = 0; j < count; j++) {
      if (layer[j] >= 0 && layer[j] != c3) continue; /* values is zeroed: other layers and orbitals stay 0 */
      const double complex *t = phase + j * span;
      const double complex v = t[c1] * t[n1 + c2] * t[n1 + n2 + c3] * t[n1 + n2 + n3 + o];
      values[(size_t)i * width + (size_t)j * orbitals + o] = v;
    }
  }
  free(phase);
  int st = hm_mvec_set(V, values);
  free(values);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_spectral_reconstruct(int moments, int count, int orbitals, const double *mu, double scale, double shift,
                            const hm_dos_options *opt, double *energy, double *A) {
  HM_CHECK(mu && opt && energy && A, HM_ERR_ARGUMENT, "mu, opt, energy or A is NULL");
  HM_CHECK(moments >= 2 && count >= 1 && orbitals >= 1, HM_ERR_ARGUMENT,
           "moments = %d, count = %d, orbitals = %d: need moments >= 2, count >= 1, orbitals >= 1", moments, count,
           orbitals);
  int P;
  HM_CALL(hm_ldos_points(moments, opt, &P));
  double *unit, *rho;
  HM_MALLOC(unit, (size_t)count * moments);
  rho = malloc(sizeof(double) * (size_t)P * count);
  if (!rho) free(unit);
  HM_CHECK(rho, HM_ERR_MEMORY, "cannot allocate %d x %d spectral values", P, count);
  for (size_t i = 0; i < (size_t)count * moments; i++) unit[i] = mu[i] / orbitals;
  int st = hm_ldos_compute(moments, count, 1, unit, scale, shift, opt, energy, rho);
  for (int c = 0; c < count && !st; c++)
    for (int p = 0; p < P; p++) A[(size_t)c * P + p] = orbitals * rho[(size_t)p * count + c];
  free(unit);
  free(rho);
  HM_CALL(st);
  return HM_SUCCESS;
}
