/* hamlet's tridiagonal divide and conquer (dense_tridiagonal.c) on the host against LAPACK's dstedc and
 * dsterf: random tridiagonals of many orders (leaves of 32 and ragged merges), Wilkinson's W+ (pairs
 * agreeing to many digits: rotation deflation), glued Wilkinson matrices, a zero off-diagonal (every
 * pole deflates), constant diagonals with tiny couplings, a graded matrix over 12 orders, and the
 * 1-2-1 matrix (analytic eigenvalues). Eigenvalues to 1e-13 ||T||, residual ||T Z - Z L|| and ||Z^T Z - I||
 * below n 1e-15 (LAPACK's own level); hm_dense_tridiagonal_values' eigenvalues alone to 1e-13 ||T|| too.
 * "cuda": the eigenvectors and the merges' GEMMs on the GPU
 * (skipped without one). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "testing.h"
#include "dense_exec.h"

static double unit(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) / 9007199254740992.0;
}

typedef enum { RANDOM, WILKINSON, GLUED, SPLIT, FLAT, GRADED, LAPLACE } kind;
static const char *names[] = {"random", "wilkinson", "glued wilkinson", "zero coupling", "flat", "graded", "1-2-1"};

static void make(kind k, int64_t n, uint64_t seed, double *d, double *e) {
  for (int64_t i = 0; i < n; i++) {
    const int64_t m = 21, c = (m - 1) / 2, j = i % m; /* Wilkinson blocks of 21 */
    switch (k) {
      case RANDOM: d[i] = unit(&seed) - 0.5, e[i] = unit(&seed) - 0.5; break;
      case WILKINSON: d[i] = (double)llabs(i - (n - 1) / 2), e[i] = 1; break;
      case GLUED: d[i] = (double)llabs(j - c), e[i] = j == m - 1 ? 1e-7 : 1; break;
      case SPLIT: d[i] = unit(&seed), e[i] = i % 7 == 3 ? 0 : unit(&seed) - 0.5; break;
      case FLAT: d[i] = 1, e[i] = 1e-10 * (unit(&seed) - 0.5); break;
      case GRADED: d[i] = pow(10, -12.0 * (double)i / (double)n), e[i] = 0.5 * pow(10, -12.0 * (i + 0.5) / (double)n); break;
      case LAPLACE: d[i] = 2, e[i] = -1; break;
    }
  }
}

static hm_dense_exec side = {-1}; /* host, or device 0 with "cuda" */

static void one(kind k, int64_t n, uint64_t seed) {
  double *d = malloc(sizeof(double) * (size_t)n), *e = malloc(sizeof(double) * (size_t)n);
  double *dr = malloc(sizeof(double) * (size_t)n), *er = malloc(sizeof(double) * (size_t)n);
  double *z = NULL, *zr = malloc(sizeof(double) * (size_t)(n * n));
  make(k, n, seed, d, e);
  memcpy(dr, d, sizeof(double) * (size_t)n), memcpy(er, e, sizeof(double) * (size_t)n);
  HM_TEST_ASSERT(LAPACKE_dstedc(LAPACK_COL_MAJOR, 'I', (int)n, dr, er, zr, (int)n) == 0, "dstedc failed");
  double *zx = NULL, *dc = malloc(sizeof(double) * (size_t)n);
  HM_TEST_OK(hm_dense_x_alloc(&side, &zx, n * n));
  memcpy(dc, d, sizeof(double) * (size_t)n);
  int info = -7;
  HM_TEST_OK(hm_dense_tridiagonal_dc(&side, n, dc, e, zx, &info));
  z = malloc(sizeof(double) * (size_t)(n * n));
  HM_TEST_OK(hm_dense_x_copy(&side, 'D', z, zx, n * n));
  hm_dense_x_free(&side, zx);
  HM_TEST_ASSERT(info == 0, "%s n=%lld: info %d", names[k], (long long)n, info);
  double norm = 0, err = 0, resid = 0, orth = 0;
  for (int64_t i = 0; i < n; i++) norm = fmax(norm, fabs(d[i]) + (i ? fabs(e[i - 1]) : 0) + (i + 1 < n ? fabs(e[i]) : 0));
  for (int64_t i = 0; i < n; i++) err = fmax(err, fabs(dc[i] - dr[i]));
  if (k == LAPLACE)
    for (int64_t i = 0; i < n; i++) err = fmax(err, fabs(dc[i] - (2 - 2 * cos(M_PI * (double)(i + 1) / (double)(n + 1)))));
  for (int64_t j = 0; j < n; j++) {
    const double *q = z + j * n;
    for (int64_t i = 0; i < n; i++) {
      const double tq = d[i] * q[i] + (i ? e[i - 1] * q[i - 1] : 0) + (i + 1 < n ? e[i] * q[i + 1] : 0);
      resid = fmax(resid, fabs(tq - dc[j] * q[i]));
    }
    for (int64_t l = j; l < n; l++) {
      double dot = 0;
      for (int64_t i = 0; i < n; i++) dot += q[i] * z[l * n + i];
      orth = fmax(orth, fabs(dot - (l == j)));
    }
  }
  HM_TEST_ASSERT(err <= 1e-13 * norm, "%s n=%lld: eigenvalues differ from LAPACK's by %.3g (||T|| %.3g)", names[k],
                 (long long)n, err, norm);
  /* the eigenvalues alone (two eigenvector rows per block) */
  double *dv = malloc(sizeof(double) * (size_t)n), verr = 0;
  memcpy(dv, d, sizeof(double) * (size_t)n);
  info = -7;
  HM_TEST_OK(hm_dense_tridiagonal_values(n, dv, e, &info));
  for (int64_t i = 0; i < n; i++) verr = fmax(verr, fabs(dv[i] - dr[i]));
  HM_TEST_ASSERT(info == 0 && verr <= 1e-13 * norm, "%s n=%lld: eigenvalues alone: info %d, differ from LAPACK's by %.3g "
                 "(||T|| %.3g)", names[k], (long long)n, info, verr, norm);
  free(dv);
  HM_TEST_ASSERT(resid <= 1e-15 * (double)n * norm && orth <= 1e-15 * (double)n,
                 "%s n=%lld: residual %.3g ||T||, orthonormality %.3g", names[k], (long long)n, resid / norm, orth);
  free(z);
  free(d); free(e); free(dr); free(er); free(zr); free(dc);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && !strcmp(argv[1], "cuda")) {
    HM_TEST_NEED_GPU();
    side.device = 0;
  }
  const int64_t sizes[] = {1, 2, 3, 31, 32, 33, 64, 65, 100, 257, 600, 2500};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) one(RANDOM, sizes[i], 11 + i);
  for (kind k = WILKINSON; k <= LAPLACE; k++) {
    one(k, 21, 5);
    one(k, 147, 6);
    one(k, 400, 7);
  }
  return hm_test_finish();
}
