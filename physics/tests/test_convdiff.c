/* Convection-diffusion-reaction operator -eps Lap u + beta . grad u + r u (central differences):
 * - exactness: for u = x(1-x) y(1-y) z(1-z), a product of quadratics that vanishes on the
 *   boundary, central differences are exact, so A u at the nodes equals the analytic operator
 *   -eps (u_xx + u_yy + u_zz) + beta . grad u + r u to rounding, for random eps, beta, r
 *   (applied through hm_mvec + hm_matrix_apply);
 * - with beta = 0 the eigenvalues (LAPACK on the gathered dense matrix) are
 *   eps (4/h^2) sum_d sin^2(k_d pi h / 2) + r, k_d = 1..n;
 * - with beta != 0: (A + A^T)/2 is the beta = 0 matrix and A - A^T has exactly +-beta_d / h
 *   between neighbours in direction d (+ for the neighbour at +e_d) and nothing else;
 * - nnz = n^3 + 6 n^2 (n - 1); bad parameters fail with messages that name them.
 * Run on 1, 2 and 3 ranks. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "testing.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static double urand(void) { /* xorshift64*, in [0, 1), the same sequence on every rank (one seed) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static double q(double t) { return t * (1 - t); }
static double dq(double t) { return 1 - 2 * t; }

/* The analytic operator applied to u = q(x) q(y) q(z) (q'' = -2). */
static double exact_operator(const hm_convdiff_params *p, double x, double y, double z) {
  double lap = -2 * (q(y) * q(z) + q(x) * q(z) + q(x) * q(y));
  double grad[3] = {dq(x) * q(y) * q(z), q(x) * dq(y) * q(z), q(x) * q(y) * dq(z)};
  return -p->eps * lap + p->beta[0] * grad[0] + p->beta[1] * grad[1] + p->beta[2] * grad[2] + p->r * q(x) * q(y) * q(z);
}

static void check_exactness(hm_context *ctx, const hm_convdiff_params *p) {
  hm_matrix *A = NULL;
  HM_TEST_OK(hm_convdiff_build(ctx, p, &A));
  if (!A) return;
  const int64_t n = p->n;
  const double h = 1.0 / (double)(n + 1);
  int64_t n_global, nnz, first, local;
  hm_scalar type;
  const hm_dist *dist;
  HM_TEST_OK(hm_matrix_info(A, &n_global, &nnz, &type));
  HM_TEST_ASSERT(n_global == n * n * n && type == HM_REAL, "n = %lld: size %lld, type %d", (long long)n,
                 (long long)n_global, (int)type);
  HM_TEST_ASSERT(nnz == n * n * n + 6 * n * n * (n - 1), "n = %lld: nnz %lld, expected n^3 + 6 n^2 (n-1)",
                 (long long)n, (long long)nnz);
  HM_TEST_OK(hm_matrix_dist(A, &dist));
  HM_TEST_OK(hm_dist_range(dist, &first, &local, NULL));
  hm_mvec *u = NULL, *Au = NULL;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 1, &u));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 1, &Au));
  double *uv = malloc(sizeof *uv * (size_t)(local + 1)), *av = malloc(sizeof *av * (size_t)(local + 1));
  for (int64_t r = 0; r < local; r++) {
    int64_t g = first + r, i = g % n, j = (g / n) % n, k = g / (n * n);
    uv[r] = q((double)(i + 1) * h) * q((double)(j + 1) * h) * q((double)(k + 1) * h);
  }
  HM_TEST_OK(hm_mvec_set(u, uv));
  HM_TEST_OK(hm_matrix_apply(A, u, Au));
  HM_TEST_OK(hm_mvec_get(Au, av));
  double worst = 0, scale = 0;
  for (int64_t r = 0; r < local; r++) {
    int64_t g = first + r, i = g % n, j = (g / n) % n, k = g / (n * n);
    double e = exact_operator(p, (double)(i + 1) * h, (double)(j + 1) * h, (double)(k + 1) * h);
    worst = fmax(worst, fabs(av[r] - e));
    scale = fmax(scale, fabs(e));
  }
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  HM_TEST_ASSERT(worst <= 1e-12 * scale, "n = %lld eps = %g beta = (%g, %g, %g) r = %g: |A u - L u| = %g, |L u| = %g",
                 (long long)n, p->eps, p->beta[0], p->beta[1], p->beta[2], p->r, worst, scale);
  free(uv);
  free(av);
  HM_TEST_OK(hm_mvec_destroy(&u));
  HM_TEST_OK(hm_mvec_destroy(&Au));
  HM_TEST_OK(hm_matrix_destroy(&A));
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* beta = 0: the spectrum of the 3D Dirichlet Laplacian, scaled and shifted. */
static void check_spectrum(hm_context *ctx, int64_t n, double eps, double r) {
  hm_convdiff_params p;
  HM_TEST_OK(hm_convdiff_params_default(&p));
  p.n = n;
  p.eps = eps;
  p.beta[0] = p.beta[1] = p.beta[2] = 0;
  p.r = r;
  hm_matrix *A = NULL;
  HM_TEST_OK(hm_convdiff_build(ctx, &p, &A));
  double complex *D = NULL;
  int64_t N = 0;
  HM_TEST_OK(hm_test_dense(A, &D, &N));
  if (!D) return;
  double *w = malloc(sizeof *w * (size_t)N), *expected = malloc(sizeof *expected * (size_t)N);
  HM_TEST_OK(hm_test_eigh(N, D, w, NULL));
  const double h = 1.0 / (double)(n + 1), pi = acos(-1.0);
  int64_t c = 0;
  for (int64_t k3 = 1; k3 <= n; k3++)
    for (int64_t k2 = 1; k2 <= n; k2++)
      for (int64_t k1 = 1; k1 <= n; k1++) {
        double s1 = sin(k1 * pi * h / 2), s2 = sin(k2 * pi * h / 2), s3 = sin(k3 * pi * h / 2);
        expected[c++] = eps * (4 / (h * h)) * (s1 * s1 + s2 * s2 + s3 * s3) + r;
      }
  qsort(expected, (size_t)N, sizeof *expected, cmp_double);
  double worst = 0, scale = fabs(expected[N - 1]) + fabs(expected[0]);
  for (int64_t i = 0; i < N; i++) worst = fmax(worst, fabs(w[i] - expected[i]));
  HM_TEST_ASSERT(c == N && worst <= 1e-12 * scale, "n = %lld: eigenvalues differ from the formula by %g", (long long)n,
                 worst);
  free(w);
  free(expected);
  free(D);
  HM_TEST_OK(hm_matrix_destroy(&A));
}

/* beta != 0: symmetric part = the beta = 0 matrix, antisymmetric part = the convection. */
static void check_nonsymmetric(hm_context *ctx, const hm_convdiff_params *p) {
  hm_convdiff_params p0 = *p;
  p0.beta[0] = p0.beta[1] = p0.beta[2] = 0;
  hm_matrix *A = NULL, *A0 = NULL;
  HM_TEST_OK(hm_convdiff_build(ctx, p, &A));
  HM_TEST_OK(hm_convdiff_build(ctx, &p0, &A0));
  double complex *D = NULL, *D0 = NULL;
  int64_t N = 0;
  HM_TEST_OK(hm_test_dense(A, &D, &N));
  HM_TEST_OK(hm_test_dense(A0, &D0, &N));
  if (!D || !D0) return;
  const int64_t n = p->n, stride[3] = {1, n, n * n};
  const double h = 1.0 / (double)(n + 1);
  double complex *skew = calloc((size_t)(N * N), sizeof *skew); /* expected A - A^T */
  for (int64_t g = 0; g < N; g++) {
    int64_t c[3] = {g % n, (g / n) % n, g / (n * n)};
    for (int d = 0; d < 3; d++)
      if (c[d] < n - 1) {
        int64_t nb = g + stride[d];
        skew[g + N * nb] = p->beta[d] / h;   /* row g, column g + e_d */
        skew[nb + N * g] = -p->beta[d] / h;
      }
  }
  double worst_skew = 0, worst_sym = 0, size_skew = 0, scale = 0;
  for (int64_t i = 0; i < N; i++)
    for (int64_t j = 0; j < N; j++) {
      double complex a = D[i + N * j], at = D[j + N * i];
      worst_skew = fmax(worst_skew, cabs(a - at - skew[i + N * j]));
      worst_sym = fmax(worst_sym, cabs((a + at) / 2 - D0[i + N * j]));
      size_skew = fmax(size_skew, cabs(a - at));
      scale = fmax(scale, cabs(a));
    }
  HM_TEST_ASSERT(worst_skew <= 1e-13 * scale, "A - A^T differs from +-beta_d/h by %g", worst_skew);
  HM_TEST_ASSERT(worst_sym <= 1e-13 * scale, "(A + A^T)/2 differs from the beta = 0 matrix by %g", worst_sym);
  HM_TEST_ASSERT(size_skew > 1e-3 * scale, "A is symmetric although beta != 0");
  free(skew);
  free(D);
  free(D0);
  HM_TEST_OK(hm_matrix_destroy(&A));
  HM_TEST_OK(hm_matrix_destroy(&A0));
}

static void check_bad_params(hm_context *ctx) {
  hm_convdiff_params p;
  hm_matrix *A = NULL;
  HM_TEST_OK(hm_convdiff_params_default(&p));
  p.n = 0;
  HM_TEST_FAILS(hm_convdiff_build(ctx, &p, &A), HM_ERR_ARGUMENT, "grid n = 0: allowed are 1 <= n <=");
  HM_TEST_ASSERT(A == NULL, "a failed build must leave A NULL");
  p.n = 1000000;
  HM_TEST_FAILS(hm_convdiff_build(ctx, &p, &A), HM_ERR_ARGUMENT, "grid n = 1000000");
  HM_TEST_OK(hm_convdiff_params_default(&p));
  p.eps = 0;
  HM_TEST_FAILS(hm_convdiff_build(ctx, &p, &A), HM_ERR_ARGUMENT, "eps = 0: the diffusion must be finite and > 0");
  p.eps = -1;
  HM_TEST_FAILS(hm_convdiff_build(ctx, &p, &A), HM_ERR_ARGUMENT, "eps = -1");
  p.eps = NAN;
  HM_TEST_FAILS(hm_convdiff_build(ctx, &p, &A), HM_ERR_ARGUMENT, "eps = nan");
  HM_TEST_OK(hm_convdiff_params_default(&p));
  p.beta[2] = INFINITY;
  HM_TEST_FAILS(hm_convdiff_build(ctx, &p, &A), HM_ERR_ARGUMENT, "beta_z = inf must be finite");
  HM_TEST_OK(hm_convdiff_params_default(&p));
  p.r = NAN;
  HM_TEST_FAILS(hm_convdiff_build(ctx, &p, &A), HM_ERR_ARGUMENT, "reaction r = nan must be finite");
  HM_TEST_FAILS(hm_convdiff_build(ctx, NULL, &A), HM_ERR_ARGUMENT, "params are NULL");
  HM_TEST_FAILS(hm_convdiff_build(NULL, &p, &A), HM_ERR_ARGUMENT, "ctx or A is NULL");
  HM_TEST_FAILS(hm_convdiff_params_default(NULL), HM_ERR_ARGUMENT, "p is NULL");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rng_state = hm_test_seed() * 0x9e3779b97f4a7c15ull | 1; /* fresh cases each run; printed, HAMLET_TEST_SEED replays */
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));

  hm_convdiff_params p;
  HM_TEST_OK(hm_convdiff_params_default(&p));
  HM_TEST_ASSERT(p.n >= 1 && p.eps > 0, "defaults must be valid");
  check_exactness(ctx, &p); /* the IDR(s) defaults themselves */
  const int64_t sizes[] = {1, 2, 5, 8, 13};
  for (int t = 0; t < 5; t++) {
    p.n = sizes[t];
    p.eps = 0.05 + 2 * urand();
    for (int d = 0; d < 3; d++) p.beta[d] = 100 * (2 * urand() - 1);
    p.r = 20 * (2 * urand() - 1);
    check_exactness(ctx, &p);
  }
  check_spectrum(ctx, 1, 0.7, 0.3);
  check_spectrum(ctx, 4, 1.3, -2.0);
  check_spectrum(ctx, 5, 0.2, 5.0);
  p.n = 4;
  p.eps = 0.8;
  p.beta[0] = 3.0;
  p.beta[1] = -7.5;
  p.beta[2] = 11.0;
  p.r = 1.5;
  check_nonsymmetric(ctx, &p);
  check_bad_params(ctx);

  HM_TEST_OK(hm_context_destroy(&ctx));
  return hm_test_finish();
}
