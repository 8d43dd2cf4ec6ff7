/* The sparse direct factorization behind shift-and-invert (linalg/transform/sparse_factor.h):
 * which factorization each kind of Hermitian matrix gets (Cholesky where positive definite; where a
 * diagonal entry or a pivot proves it indefinite, the unpivoted LDL^H, or pivoting LU where LDL^H
 * meets a zero pivot or pivot growth), the solves checked by multiplying back
 * with the matrix, widths that grow and shrink between solves on one factorization (the kept
 * blocks and workspaces), separate and in-place arrays, and the singular matrix refused. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "dense_internal.h"
#include "sparse_factor.h"

enum { N = 60 };

/* Lower triangle of the tridiagonal Hermitian matrix with diagonal d[i] and subdiagonal o. */
static int64_t tridiagonal(const double *d, double complex o, hm_dense_entry *e) {
  int64_t m = 0;
  for (int64_t i = 0; i < N; i++) {
    e[m++] = (hm_dense_entry){i, i, d[i], 0.0};
    if (i + 1 < N) e[m++] = (hm_dense_entry){i + 1, i, creal(o), cimag(o)};
  }
  return m;
}

/* max_j ||M y_j - x_j|| / ||x_j|| with M from its lower entries (each mirrored as its conjugate). */
static double residual(hm_scalar t, int64_t m, const hm_dense_entry *e, int k, const double *x, const double *y) {
  double complex *r = calloc((size_t)N * (size_t)k, sizeof *r);
  const int c = (int)t;
  for (int64_t p = 0; p < m; p++)
    for (int j = 0; j < k; j++) {
      const double complex a = e[p].re + I * e[p].im;
      const double complex yj = y[c * (e[p].j * k + j)] + (c == 2 ? I * y[c * (e[p].j * k + j) + 1] : 0);
      r[e[p].i * k + j] += a * yj;
      if (e[p].i != e[p].j) {
        const double complex yi = y[c * (e[p].i * k + j)] + (c == 2 ? I * y[c * (e[p].i * k + j) + 1] : 0);
        r[e[p].j * k + j] += conj(a) * yi;
      }
    }
  double worst = 0.0;
  for (int j = 0; j < k; j++) {
    double rn = 0.0, xn = 0.0;
    for (int i = 0; i < N; i++) {
      const double complex xi = x[c * (i * k + j)] + (c == 2 ? I * x[c * (i * k + j) + 1] : 0);
      rn += pow(cabs(r[i * k + j] - xi), 2), xn += pow(cabs(xi), 2);
    }
    worst = fmax(worst, sqrt(rn / xn));
  }
  free(r);
  return worst;
}

/* Lower triangle of the block diagonal matrix of 2 x 2 blocks (a 1; 1 a) (conjugated where complex). */
static int64_t two_by_two(double a, double complex o, hm_dense_entry *e) {
  int64_t m = 0;
  for (int64_t i = 0; i < N; i += 2) {
    e[m++] = (hm_dense_entry){i, i, a, 0.0};
    e[m++] = (hm_dense_entry){i + 1, i + 1, a, 0.0};
    e[m++] = (hm_dense_entry){i + 1, i, creal(o), cimag(o)};
  }
  return m;
}

/* Factorize, check the method, then solve widths 3, 5, 2, 5 (separate arrays, then in place). */
static void check_entries(const char *what, hm_scalar t, int64_t m, const hm_dense_entry *e, const char *method) {
  hm_sparse_factor *f = NULL;
  HM_TEST_OK(hm_sparse_factor_create(t, N, m, e, &f));
  if (!f) return;
  HM_TEST_ASSERT(strcmp(hm_sparse_factor_method(f), method) == 0, "%s: factorized by %s, expected %s", what,
                 hm_sparse_factor_method(f), method);
  const int widths[] = {3, 5, 2, 5};
  srand(7);
  for (int w = 0; w < 4; w++) {
    const int k = widths[w];
    const size_t len = (size_t)N * (size_t)k * (size_t)t;
    double *x = malloc(sizeof *x * len), *y = malloc(sizeof *y * len);
    for (size_t i = 0; i < len; i++) x[i] = rand() / (double)RAND_MAX - 0.5;
    if (w % 2 == 0) {
      HM_TEST_OK(hm_sparse_factor_solve_into(f, k, x, y));
    } else {
      memcpy(y, x, sizeof *x * len);
      HM_TEST_OK(hm_sparse_factor_solve(f, k, y));
    }
    const double r = residual(t, m, e, k, x, y);
    HM_TEST_ASSERT(r < 1e-12, "%s: width %d: relative residual %.3g of the solve", what, k, r);
    free(x), free(y);
  }
  hm_sparse_factor_destroy(&f);
}

static void check(const char *what, hm_scalar t, const double *d, double complex o, const char *method) {
  hm_dense_entry e[2 * N];
  check_entries(what, t, tridiagonal(d, o, e), e, method);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double d[N];
  for (int i = 0; i < N; i++) d[i] = 2.5;
  check("real positive definite", HM_REAL, d, -1.0, "cholmod-llt");
  check("complex Hermitian positive definite", HM_COMPLEX, d, cexp(0.3 * I), "cholmod-llt");
  d[7] = -0.5; /* a negative diagonal entry: LDL^H without trying Cholesky, its pivots well away from 0 */
  check("real, one negative diagonal entry", HM_REAL, d, -1.0, "cholmod-ldlt");
  check("complex, one negative diagonal entry", HM_COMPLEX, d, cexp(0.3 * I), "cholmod-ldlt");
  /* 1 + 2 cos: indefinite behind a positive diagonal; unpivoted elimination of (1 1; 1 1) meets a
   * zero pivot, so the pivoting LU */
  for (int i = 0; i < N; i++) d[i] = 1.0;
  check("real indefinite, positive diagonal", HM_REAL, d, 1.0, "umfpack-lu");
  check("complex indefinite, positive diagonal", HM_COMPLEX, d, cexp(0.3 * I), "umfpack-lu");
  /* (1e-9 1; 1 1e-9), eigenvalues about -1 and 1: unpivoted LDL^H divides by 1e-9 (growth 1e18 in
   * the second pivot's rounding), so its test solve fails the backward error check: LU */
  hm_dense_entry blocks[3 * N / 2];
  check_entries("real 2 x 2 blocks with tiny diagonal", HM_REAL, two_by_two(1e-9, 1.0, blocks), blocks, "umfpack-lu");
  check_entries("complex 2 x 2 blocks with tiny diagonal", HM_COMPLEX, two_by_two(1e-9, cexp(0.3 * I), blocks), blocks,
                "umfpack-lu");
  /* the same blocks with diagonal 0.5: LDL^H's pivots 0.5 and -1.5, no growth */
  check_entries("real 2 x 2 blocks, moderate diagonal", HM_REAL, two_by_two(0.5, 1.0, blocks), blocks, "cholmod-ldlt");

  /* duplicates are summed before the diagonal test: 1.5 + 1.0 on every row is positive definite,
   * -0.5 + 3.0 also (a negative entry alone is no proof) */
  hm_dense_entry e[3 * N];
  for (int i = 0; i < N; i++) d[i] = 1.5;
  int64_t m = tridiagonal(d, -1.0, e);
  for (int i = 0; i < N; i++) e[m++] = (hm_dense_entry){i, i, i == 3 ? 1.0 - 3.0 : 1.0, 0.0};
  e[m++] = (hm_dense_entry){3, 3, 3.0, 0.0};
  hm_sparse_factor *f = NULL;
  HM_TEST_OK(hm_sparse_factor_create(HM_REAL, N, m, e, &f));
  HM_TEST_ASSERT(f && strcmp(hm_sparse_factor_method(f), "cholmod-llt") == 0,
                 "duplicated diagonal entries summed to a positive definite matrix: factorized by %s",
                 f ? hm_sparse_factor_method(f) : "nothing");
  hm_sparse_factor_destroy(&f);

  /* singular: the all-ones 2 x 2 blocks' pattern (1 1; 1 1) along the diagonal, positive diagonal */
  m = 0;
  for (int i = 0; i < N; i += 2) {
    e[m++] = (hm_dense_entry){i, i, 1.0, 0.0};
    e[m++] = (hm_dense_entry){i + 1, i + 1, 1.0, 0.0};
    e[m++] = (hm_dense_entry){i + 1, i, 1.0, 0.0};
  }
  HM_TEST_FAILS(hm_sparse_factor_create(HM_REAL, N, m, e, &f), HM_ERR_NUMERIC, "singular");
  HM_TEST_ASSERT(f == NULL, "no factorization returned for a singular matrix");
  return hm_test_finish();
}
