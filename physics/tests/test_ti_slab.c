/* Surface states of the TI slab, t = 1. Bulk gap: on a lattice periodic in x, y (6 x 6 k-points)
 * and infinite in z, |E| >= Delta = min over (kx, ky) on the grid and kz in [0, pi] of the Bloch
 * energy (computed here: Delta = 1 for m = 2 and for m = 4, reached at k = 0), and the periodic
 * 6x6x10 lattice's exact spectrum has min |E| = Delta. A 6x6x10 slab open in z:
 *  - m = 2 (band inversion at Gamma only: strong TI) has exactly 20 states inside the gap: surface
 *    Dirac cones E = +-t |sin k_par| on both surfaces at the k_par where the surface state exists,
 *    |m - t cos kx - t cos ky| < t: Gamma-bar (E = 0, a Kramers pair per surface: 4 states) and the
 *    four k_par = (+-pi/3, 0), (0, +-pi/3) (E = +-sqrt(3)/2: 16 states);
 *  - m = 4 (|m| > 3t: trivial insulator) has none: min |E| of the slab is above Delta. */
#include <stdlib.h>
#include "testing.h"
#include "ti_test_util.h"

enum { NX = 6, NY = 6, NZ = 10 };

/* min |E| over the 6 x 6 (kx, ky) grid and a fine kz grid of [0, pi]. */
static double bulk_gap(double t, double m) {
  double gap = INFINITY;
  for (int a = 0; a < NX; a++)
    for (int b = 0; b < NY; b++)
      for (int c = 0; c <= 2000; c++)
        gap = fmin(gap, ti_bloch_energy(t, m, 2 * M_PI * a / NX, 2 * M_PI * b / NY, M_PI * c / 2000));
  return gap;
}

/* Sorted |E| of the 6x6x10 lattice with the given z boundary. */
static double *spectrum(hm_context *ctx, double t, double m, int bz, int64_t *n) {
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = NX; p.ny = NY; p.nz = NZ; p.t = t; p.m = m;
  p.boundary[2] = bz;
  hm_matrix *H = NULL;
  double complex *d = NULL;
  HM_TEST_OK(hm_ti_build(ctx, &p, &H));
  if (!H) return NULL;
  HM_TEST_OK(hm_test_dense(H, &d, n));
  hm_matrix_destroy(&H);
  double *w = malloc(sizeof *w * *n);
  HM_TEST_OK(hm_test_eigh(*n, d, w, NULL));
  free(d);
  for (int64_t i = 0; i < *n; i++) w[i] = fabs(w[i]);
  qsort(w, *n, sizeof *w, ti_cmp_double);
  return w;
}

static int64_t count_below(const double *a, int64_t n, double level) {
  int64_t k = 0;
  while (k < n && a[k] < level) k++;
  return k;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  const double ms[2] = {2.0, 4.0};
  for (int i = 0; i < 2; i++) {
    double m = ms[i], gap = bulk_gap(1.0, m);
    int64_t n;
    double *bulk = spectrum(ctx, 1.0, m, HM_BC_PERIODIC, &n);
    double *slab = spectrum(ctx, 1.0, m, HM_BC_OPEN, &n);
    if (!bulk || !slab) continue;
    HM_TEST_ASSERT(fabs(gap - 1.0) < 1e-12, "m = %g: bulk gap %.15f, expected 1 (at k = 0)", m, gap);
    HM_TEST_ASSERT(fabs(bulk[0] - gap) < 1e-10, "m = %g: periodic 6x6x10 min |E| = %.12f, expected the gap %.12f", m, bulk[0], gap);
    int64_t in_gap = count_below(slab, n, gap - 1e-6);
    if (rank == 0)
      printf("m = %g: bulk gap %.6f, periodic lattice min |E| %.6f; slab: %lld states with |E| < gap, min |E| %.6f\n",
             m, gap, bulk[0], (long long)in_gap, slab[0]);
    if (m == 2.0) {
      HM_TEST_ASSERT(in_gap == 20, "m = 2: %lld in-gap slab states, expected 20 (4 at E = 0, 16 at +-sqrt(3)/2)", (long long)in_gap);
      HM_TEST_ASSERT(count_below(slab, n, 1e-8) == 4, "m = 2: %lld slab states at E = 0, expected 4 (Dirac point, 2 surfaces)",
                     (long long)count_below(slab, n, 1e-8));
      /* At k_par = (pi/3, 0) the surface state decays by |m - 1.5| / t = 1/2 per layer: the two surfaces
       * of the 10-layer slab hybridize by about (1/2)^20 ~ 1e-6. */
      double worst = 0;
      for (int k = 4; k < 20; k++) worst = fmax(worst, fabs(slab[k] - sqrt(3.0) / 2));
      HM_TEST_ASSERT(worst < 1e-5, "m = 2: surface states at k_par = (pi/3, 0) are off sqrt(3)/2 by %g (expected < 1e-5)", worst);
    } else {
      HM_TEST_ASSERT(in_gap == 0 && slab[0] > gap, "m = 4 (trivial): %lld in-gap slab states, min |E| %.12f, expected none",
                     (long long)in_gap, slab[0]);
    }
    free(bulk); free(slab);
  }
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
