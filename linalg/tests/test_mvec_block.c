/* Block operations and operators against naive host loops over the gathered global blocks, real
 * and complex, on any rank count; with argument "cuda" the same checks on the CUDA backend (skipped
 * where no GPU is visible). The references never call the kernel table. One-column shapes (the
 * Gram of a block with one column on either side, the update of one column: gemv on the CPU) are
 * checked on their own. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "random.h"

enum { N = 203 };

/* Global n x k block (complex, widened) gathered on every rank from an hm_mvec. */
static double complex *gather(const hm_mvec *v, hm_scalar type) {
  const hm_dist *d;
  int64_t first, local;
  int k;
  hm_mvec_dist(v, &d);
  hm_dist_range(d, &first, &local, NULL);
  hm_mvec_size(v, NULL, &k);
  double *raw = malloc(sizeof(double) * (local * k * type + 1));
  hm_mvec_get(v, raw);
  double complex *part = calloc(N * k, sizeof *part), *all = calloc(N * k, sizeof *all);
  for (int64_t i = 0; i < local * k; i++)
    part[first * k + i] = type == HM_COMPLEX ? CMPLX(raw[2 * i], raw[2 * i + 1]) : raw[i];
  MPI_Allreduce(part, all, 2 * N * k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(raw);
  free(part);
  return all;
}

/* Fill with reproducible values that are not unit-modulus (so norms test more than counts). */
static void fill(hm_mvec *v, hm_scalar type, uint64_t seed) {
  const hm_dist *d;
  int64_t first, local;
  int k;
  hm_mvec_dist(v, &d);
  hm_dist_range(d, &first, &local, NULL);
  hm_mvec_size(v, NULL, &k);
  double *raw = malloc(sizeof(double) * (local * k * type + 1));
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < k; j++)
      for (int t = 0; t < (int)type; t++)
        raw[(i * k + j) * type + t] = hm_random_uniform(seed, (uint64_t)(j * 2 + t), (uint64_t)(first + i)) - 0.3;
  hm_mvec_set(v, raw);
  free(raw);
}

static double complex scalar(const double *s, hm_scalar type, int i) {
  return type == HM_COMPLEX ? CMPLX(s[2 * i], s[2 * i + 1]) : s[i];
}

static int apply_twice(hm_mvec *x, hm_mvec *y, void *user) { /* y = A x + A x through the matrix */
  hm_matrix *A = user;
  int st = hm_matrix_apply(A, x, y);
  hm_scalar type;
  int k;
  hm_mvec_type(y, &type);
  hm_mvec_size(y, NULL, &k);
  double two[2 * 64] = {0}, zero[2 * 64] = {0};
  for (int j = 0; j < k; j++) two[j * type] = 2.0;
  return st ? st : hm_mvec_axpby(y, two, y, zero);
}

static void check(hm_context *ctx, hm_scalar type) {
  hm_dist *dist;
  HM_TEST_OK(hm_dist_create(ctx, N, 1, 1.0, &dist));
  const int kx = 5, ky = 3;
  hm_mvec *X, *Y, *Z, *d;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, kx, &X));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, ky, &Y));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, ky, &Z));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, 1, &d));
  fill(X, type, 11);
  fill(Y, type, 12);
  fill(d, type, 13);
  double complex *xg = gather(X, type), *yg = gather(Y, type), *dg = gather(d, type);

  /* Gram: G = X^H Y. */
  double G[2 * kx * ky];
  HM_TEST_OK(hm_mvec_gram(X, Y, G));
  double worst = 0;
  for (int a = 0; a < kx; a++)
    for (int b = 0; b < ky; b++) {
      double complex ref = 0;
      for (int i = 0; i < N; i++) ref += conj(xg[i * kx + a]) * yg[i * ky + b];
      worst = fmax(worst, cabs(scalar(G, type, a * ky + b) - ref));
    }
  HM_TEST_ASSERT(worst < 1e-12, "type %d: gram error %g", (int)type, worst);

  /* Update: Z = beta Y + X C, with Z starting as a copy of Y. */
  double C[2 * kx * ky], beta[2] = {0.5, type == HM_COMPLEX ? -0.25 : 0};
  for (int i = 0; i < kx * ky * (int)type; i++) C[i] = hm_random_uniform(14, 0, (uint64_t)i) - 0.5;
  HM_TEST_OK(hm_mvec_copy_columns(Y, 0, Z, 0, ky));
  HM_TEST_OK(hm_mvec_update(Z, beta, X, C));
  double complex *zg = gather(Z, type);
  worst = 0;
  for (int i = 0; i < N; i++)
    for (int b = 0; b < ky; b++) {
      double complex ref = scalar(beta, type, 0) * yg[i * ky + b];
      for (int a = 0; a < kx; a++) ref += xg[i * kx + a] * scalar(C, type, a * ky + b);
      worst = fmax(worst, cabs(zg[i * ky + b] - ref));
    }
  HM_TEST_ASSERT(worst < 1e-12, "type %d: update error %g", (int)type, worst);
  free(zg);

  /* Column copy: columns 1..3 of X into columns 0..2 of Z. */
  HM_TEST_OK(hm_mvec_copy_columns(X, 1, Z, 0, 3));
  zg = gather(Z, type);
  worst = 0;
  for (int i = 0; i < N; i++)
    for (int b = 0; b < 3; b++) worst = fmax(worst, cabs(zg[i * ky + b] - xg[i * kx + 1 + b]));
  HM_TEST_ASSERT(worst == 0, "type %d: copy_columns error %g", (int)type, worst);
  free(zg);

  /* Row scaling in place, then norms and axpby. */
  HM_TEST_OK(hm_mvec_copy_columns(Y, 0, Z, 0, ky));
  HM_TEST_OK(hm_mvec_scale_rows(Z, d, Z));
  zg = gather(Z, type);
  worst = 0;
  for (int i = 0; i < N; i++)
    for (int b = 0; b < ky; b++) worst = fmax(worst, cabs(zg[i * ky + b] - dg[i] * yg[i * ky + b]));
  HM_TEST_ASSERT(worst < 1e-14, "type %d: scale_rows error %g", (int)type, worst);
  double norms[ky];
  HM_TEST_OK(hm_mvec_norms(Z, norms));
  worst = 0;
  for (int b = 0; b < ky; b++) {
    double ref = 0;
    for (int i = 0; i < N; i++) ref += pow(cabs(zg[i * ky + b]), 2);
    worst = fmax(worst, fabs(norms[b] - sqrt(ref)));
  }
  HM_TEST_ASSERT(worst < 1e-12, "type %d: norms error %g", (int)type, worst);
  free(zg);
  double alpha[2 * ky], bet[2 * ky];
  for (int j = 0; j < ky * (int)type; j++) {
    alpha[j] = 1.0 + j;
    bet[j] = 0.5 - j;
  }
  HM_TEST_OK(hm_mvec_copy_columns(Y, 0, Z, 0, ky));
  HM_TEST_OK(hm_mvec_axpby(Z, alpha, Y, bet)); /* Z = (alpha + beta) Y */
  zg = gather(Z, type);
  worst = 0;
  for (int i = 0; i < N; i++)
    for (int b = 0; b < ky; b++)
      worst = fmax(worst, cabs(zg[i * ky + b] - (scalar(alpha, type, b) + scalar(bet, type, b)) * yg[i * ky + b]));
  HM_TEST_ASSERT(worst < 1e-13, "type %d: axpby error %g", (int)type, worst);
  free(zg);
  /* beta = 0 does not read y: Z full of NaN becomes alpha Y, and alpha = beta = 0 clears it. */
  int64_t zrows = 0;
  HM_TEST_OK(hm_mvec_size(Z, &zrows, NULL));
  const size_t zlen = (size_t)zrows * ky * (size_t)type + 1;
  double *nans = malloc(zlen * sizeof(double)), zero[2 * ky];
  for (size_t i = 0; i < zlen; i++) nans[i] = NAN;
  memset(zero, 0, sizeof zero);
  HM_TEST_OK(hm_mvec_set(Z, nans));
  HM_TEST_OK(hm_mvec_axpby(Z, alpha, Y, zero));
  zg = gather(Z, type);
  worst = 0;
  for (int i = 0; i < N; i++)
    for (int b = 0; b < ky; b++) worst = fmax(worst, cabs(zg[i * ky + b] - scalar(alpha, type, b) * yg[i * ky + b]));
  HM_TEST_ASSERT(worst < 1e-14, "type %d: axpby with beta = 0 over NaN: error %g", (int)type, worst);
  free(zg);
  HM_TEST_OK(hm_mvec_set(Z, nans));
  HM_TEST_OK(hm_mvec_axpby(Z, zero, Y, zero));
  zg = gather(Z, type);
  worst = 0;
  for (int i = 0; i < N * ky; i++) worst = fmax(worst, isnan(cabs(zg[i])) ? INFINITY : cabs(zg[i]));
  HM_TEST_ASSERT(worst == 0, "type %d: axpby with alpha = beta = 0 over NaN left %g", (int)type, worst);
  free(zg);
  free(nans);

  /* Bad inputs name what is wrong. */
  HM_TEST_FAILS(hm_mvec_copy_columns(X, 3, Z, 0, 3), HM_ERR_ARGUMENT, "out of range");
  HM_TEST_FAILS(hm_mvec_copy_columns(X, 0, X, 1, 2), HM_ERR_ARGUMENT, "overlapping");
  HM_TEST_FAILS(hm_mvec_update(X, beta, X, C), HM_ERR_ARGUMENT, "distinct");
  HM_TEST_FAILS(hm_mvec_scale_rows(Z, X, Z), HM_ERR_ARGUMENT, "it must have 1");
  HM_TEST_FAILS(hm_mvec_axpby(Z, alpha, X, bet), HM_ERR_ARGUMENT, "columns");

  /* Operators on a random sparse matrix: the diagonal, z - A, and a callback. */
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  const int per = 5;
  int64_t *rp = calloc(local + 1, sizeof *rp), *cols = malloc(sizeof *cols * local * per);
  double *vals = malloc(sizeof *vals * local * per * type);
  for (int64_t i = 0; i < local; i++) {
    rp[i + 1] = (i + 1) * per;
    for (int p = 0; p < per; p++) {
      int64_t q = i * per + p;
      cols[q] = p == 0 ? first + i : (int64_t)(hm_random_u64(15, first + i, p) % N);
      for (int t = 0; t < (int)type; t++) vals[q * type + t] = hm_random_uniform(16 + t, first + i, p) - 0.5;
    }
  }
  hm_matrix *A;
  HM_TEST_OK(hm_matrix_create_csr(ctx, dist, type, rp, cols, vals, &A));
  double complex *dense;
  int64_t n;
  HM_TEST_OK(hm_test_dense(A, &dense, &n));
  HM_TEST_OK(hm_matrix_diagonal(A, d));
  free(dg);
  dg = gather(d, type);
  worst = 0;
  for (int i = 0; i < N; i++) worst = fmax(worst, cabs(dg[i] - dense[(int64_t)i * N + i]));
  HM_TEST_ASSERT(worst == 0, "type %d: diagonal error %g", (int)type, worst);

  double z[2 * ky];
  for (int j = 0; j < ky; j++) {
    z[j * type] = 1.5 + j;
    if (type == HM_COMPLEX) z[j * type + 1] = 0.1 * (j + 1);
  }
  hm_operator *shifted, *shell;
  HM_TEST_OK(hm_operator_create_shifted(A, ky, z, &shifted));
  HM_TEST_OK(hm_operator_create_shell(ctx, dist, type, apply_twice, A, &shell));
  HM_TEST_OK(hm_operator_apply(shifted, Y, Z));
  zg = gather(Z, type);
  hm_mvec *W;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, ky, &W));
  HM_TEST_OK(hm_operator_apply(shell, Y, W));
  double complex *wg = gather(W, type);
  double wshift = 0, wshell = 0;
  for (int i = 0; i < N; i++)
    for (int b = 0; b < ky; b++) {
      double complex ay = 0;
      for (int c = 0; c < N; c++) ay += dense[(int64_t)c * N + i] * yg[c * ky + b];
      wshift = fmax(wshift, cabs(zg[i * ky + b] - (scalar(z, type, b) * yg[i * ky + b] - ay)));
      wshell = fmax(wshell, cabs(wg[i * ky + b] - 2 * ay));
    }
  HM_TEST_ASSERT(wshift < 1e-13, "type %d: shifted operator error %g", (int)type, wshift);
  HM_TEST_ASSERT(wshell < 1e-13, "type %d: shell operator error %g", (int)type, wshell);
  HM_TEST_FAILS(hm_operator_apply(shifted, X, X), HM_ERR_ARGUMENT, "distinct");
  hm_mvec *X2;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, kx, &X2));
  HM_TEST_FAILS(hm_operator_apply(shifted, X, X2), HM_ERR_ARGUMENT, "3 shifts but is applied to a block of 5");
  free(zg);
  free(wg);
  free(dense);
  free(rp);
  free(cols);
  free(vals);
  hm_operator_destroy(&shifted);
  hm_operator_destroy(&shell);
  HM_TEST_ASSERT(shifted == NULL && shell == NULL, "destroy nulls the handle");
  hm_mvec_destroy(&X2);
  hm_mvec_destroy(&W);
  hm_matrix_destroy(&A);
  free(xg);
  free(yg);
  free(dg);
  hm_mvec_destroy(&X);
  hm_mvec_destroy(&Y);
  hm_mvec_destroy(&Z);
  hm_mvec_destroy(&d);
  hm_dist_destroy(&dist);
}

/* G = X^H y, g = y^H X (one column on either side) and z = beta z + X c against host loops. */
static void check_one_column(hm_context *ctx, hm_scalar type) {
  hm_dist *dist;
  HM_TEST_OK(hm_dist_create(ctx, N, 1, 1.0, &dist));
  enum { K = 7 };
  hm_mvec *X, *y, *z;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, K, &X));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, 1, &y));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, 1, &z));
  fill(X, type, 21);
  fill(y, type, 22);
  fill(z, type, 23);
  double complex *xg = gather(X, type), *yg = gather(y, type), *zg0 = gather(z, type);
  double G[2 * K], g[2 * K], worst = 0, worst_left = 0;
  HM_TEST_OK(hm_mvec_gram(X, y, G));
  HM_TEST_OK(hm_mvec_gram(y, X, g));
  for (int a = 0; a < K; a++) {
    double complex ref = 0;
    for (int i = 0; i < N; i++) ref += conj(xg[i * K + a]) * yg[i];
    worst = fmax(worst, cabs(scalar(G, type, a) - ref));
    worst_left = fmax(worst_left, cabs(scalar(g, type, a) - conj(ref)));
  }
  HM_TEST_ASSERT(worst < 1e-12, "type %d: gram X^H y error %g", (int)type, worst);
  HM_TEST_ASSERT(worst_left < 1e-12, "type %d: gram y^H X error %g", (int)type, worst_left);
  double c[2 * K], beta[2] = {-0.75, type == HM_COMPLEX ? 0.5 : 0};
  for (int i = 0; i < K * (int)type; i++) c[i] = hm_random_uniform(24, 0, (uint64_t)i) - 0.5;
  HM_TEST_OK(hm_mvec_update(z, beta, X, c));
  double complex *zg = gather(z, type);
  worst = 0;
  for (int i = 0; i < N; i++) {
    double complex ref = scalar(beta, type, 0) * zg0[i];
    for (int a = 0; a < K; a++) ref += xg[i * K + a] * scalar(c, type, a);
    worst = fmax(worst, cabs(zg[i] - ref));
  }
  HM_TEST_ASSERT(worst < 1e-12, "type %d: one-column update error %g", (int)type, worst);
  free(xg), free(yg), free(zg0), free(zg);
  hm_mvec_destroy(&X), hm_mvec_destroy(&y), hm_mvec_destroy(&z);
  hm_dist_destroy(&dist);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  check(ctx, HM_REAL);
  check(ctx, HM_COMPLEX);
  check_one_column(ctx, HM_REAL);
  check_one_column(ctx, HM_COMPLEX);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
