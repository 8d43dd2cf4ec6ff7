/* The CUDA kernels of the solvers' internal block operations against the CPU ones on fresh random
 * inputs (seeded from the clock, printed: replay with HAMLET_TEST_SEED), real and complex, widths
 * m = 1, 2, 3, 8, 13, 32, 64, 300 (300 > the 256 columns of one thread block: column chunks), row
 * counts 0, 1 and a few thousand (more rows than the grid covers in one stride):
 * - ritz_residual (LOBPCG's fused residual pass): R and both column sums to 1e-13 relative, on
 *   LOBPCG's [X P] blocks (2m wide) and other widths;
 * - gram_columns (X^H Y on a range of Y's columns) to 1e-12 (sums over the rows in another order).
 * Skips (77) where no device is visible. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "kernels.h"
#include "random.h"
#include "../linalg/core/gpu_probe.h"

static uint64_t seed;

static double max_rel(const double *got, const double *ref, size_t n) {
  double w = 0;
  for (size_t i = 0; i < n; i++) w = fmax(w, fabs(got[i] - ref[i]) / (1.0 + fabs(ref[i])));
  return w;
}

static void *upload(const hm_kernels *G, const double *src, size_t doubles) {
  void *d = NULL;
  HM_TEST_OK(G->alloc(doubles * sizeof(double) + 8, &d));
  HM_TEST_OK(G->upload(d, src, doubles * sizeof(double)));
  return d;
}

static void check(const hm_kernels *G, hm_scalar type, int64_t n, int m, int ka, int kb) {
  const hm_kernels *C = &hm_kernels_cpu;
  const size_t t = (size_t)type, la = (size_t)n * ka * t, lb = (size_t)n * kb * t, lr = (size_t)n * m * t;
  double *AX = malloc(sizeof(double) * (la + 1)), *BX = malloc(sizeof(double) * (lb + 1));
  double *R = malloc(sizeof(double) * (lr + 1)), *got = malloc(sizeof(double) * (lr + 1));
  double *lambda = malloc(sizeof(double) * m), *sums = malloc(sizeof(double) * 2 * m);
  double *gsums = malloc(sizeof(double) * 2 * m);
  for (size_t e = 0; e < la; e++) AX[e] = hm_random_uniform(seed, 1, e) - 0.5;
  for (size_t e = 0; e < lb; e++) BX[e] = hm_random_uniform(seed, 2, e) - 0.5;
  for (int j = 0; j < m; j++) lambda[j] = 10.0 * (hm_random_uniform(seed, 3, j) - 0.5);
  for (int j = 0; j < 2 * m; j++) gsums[j] = NAN; /* must be overwritten */
  double *dA = upload(G, AX, la), *dB = upload(G, BX, lb), *dR = NULL;
  HM_TEST_OK(G->alloc(lr * sizeof(double) + 8, (void **)&dR));
  HM_TEST_OK(C->ritz_residual(type, n, ka, AX, kb, BX, m, lambda, R, sums));
  HM_TEST_OK(G->ritz_residual(type, n, ka, dA, kb, dB, m, lambda, dR, gsums));
  HM_TEST_OK(G->download(got, dR, lr * sizeof(double)));
  const double dr = max_rel(got, R, lr), ds = max_rel(gsums, sums, 2 * (size_t)m);
  HM_TEST_ASSERT(dr < 1e-13, "type %d n %lld m %d ka %d kb %d: R differs by %g", (int)type, (long long)n, m, ka, kb, dr);
  /* the sums are O(n): relative to their size */
  double worst = 0;
  for (int j = 0; j < 2 * m; j++) worst = fmax(worst, fabs(gsums[j] - sums[j]) / fmax(fabs(sums[j]), 1e-300));
  HM_TEST_ASSERT(n == 0 ? ds == 0 : worst < 1e-13, "type %d n %lld m %d ka %d kb %d: sums differ by %g", (int)type,
                 (long long)n, m, ka, kb, n == 0 ? ds : worst);
  G->release(dA); G->release(dB); G->release(dR);
  free(AX); free(BX); free(R); free(got); free(lambda); free(sums); free(gsums);
}

/* X (kx wide) with the columns [y0, y0 + ny) of Y (ky wide). */
static void check_gram_columns(const hm_kernels *G, hm_scalar type, int64_t n, int kx, int ky, int y0, int ny) {
  const hm_kernels *C = &hm_kernels_cpu;
  const size_t t = (size_t)type, lx = (size_t)n * kx * t, ly = (size_t)n * ky * t, lg = (size_t)kx * ny * t;
  double *X = malloc(sizeof(double) * (lx + 1)), *Y = malloc(sizeof(double) * (ly + 1));
  double *ref = malloc(sizeof(double) * (lg + 1)), *got = malloc(sizeof(double) * (lg + 1));
  for (size_t e = 0; e < lx; e++) X[e] = hm_random_uniform(seed, 4, e) - 0.5;
  for (size_t e = 0; e < ly; e++) Y[e] = hm_random_uniform(seed, 5, e) - 0.5;
  for (size_t e = 0; e < lg; e++) got[e] = NAN; /* must be overwritten */
  double *dX = upload(G, X, lx), *dY = upload(G, Y, ly);
  HM_TEST_OK(C->gram_columns(type, n, kx, X, ky, Y, y0, ny, ref));
  HM_TEST_OK(G->gram_columns(type, n, kx, dX, ky, dY, y0, ny, got));
  const double d = max_rel(got, ref, lg);
  HM_TEST_ASSERT(d < 1e-12, "gram_columns type %d n %lld kx %d ky %d columns [%d, %d): differs by %g", (int)type,
                 (long long)n, kx, ky, y0, y0 + ny, d);
  G->release(dX); G->release(dY);
  free(X); free(Y); free(ref); free(got);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  int device;
  HM_TEST_OK(hm_gpu_select(0, &device));
  seed = hm_test_seed();
  const hm_kernels *G = hm_kernels_cuda();
  const int widths[] = {1, 2, 3, 8, 13, 32, 64, 300};
  const int64_t rows[] = {0, 1, 5003};
  for (int w = 0; w < 8; w++)
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 2; c++) {
        const hm_scalar type = c ? HM_COMPLEX : HM_REAL;
        const int m = widths[w];
        check(G, type, rows[r], m, 2 * m, 2 * m);
        check(G, type, rows[r], m, m + 1, 3 * m);
        check_gram_columns(G, type, rows[r], 2 * m, 2 * m, m, m); /* LOBPCG: [X P]^H A P */
        check_gram_columns(G, type, rows[r], m, 3 * m + 1, 1, 2 * m);
      }
  return hm_test_finish();
}
