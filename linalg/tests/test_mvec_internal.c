/* The solvers' internal block operations (mvec_block.h), fresh random blocks each run (seed from the
 * clock, printed: replay with HAMLET_TEST_SEED), real and complex, several widths, any rank count;
 * with argument "cuda" on the CUDA backend (skipped where no GPU is visible). Bad inputs are refused.
 * - hm_mvec_ritz_residual (LOBPCG's fused residual pass: R = AX - BX diag(lambda) on the first m
 *   columns, with the norms of R's and BX's columns) against the composition it replaced: a column
 *   copy AX -> R, the block update R -= BX [diag(lambda); 0] and two hm_mvec_norms calls; blocks as
 *   wide as LOBPCG's [X P] (2m) and other widths.
 * - hm_mvec_gram_columns (X^H Y on a range of Y's columns) against those columns of hm_mvec_gram.
 * - hm_mvec_multiply_in_place (Y = Y C) against hm_mvec_update into a second block, and
 *   hm_mvec_keep_columns against column copies into a narrower block, in pieces of a few rows (the
 *   last one short) and in one piece.
 * - hm_mvec_series_accumulate (m terms of width w added into w x ne accumulators) against
 *   hm_mvec_update of each term's columns into the accumulators. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "mvec_block.h"
#include "random.h"

enum { N = 1001 };

static uint64_t seed;

/* Random entries in [-0.5, 0.5) from the global row (the same block on any rank count). */
static void fill(hm_mvec *v, uint64_t stream) {
  const hm_dist *d;
  hm_scalar type;
  int64_t first, local;
  int k;
  hm_mvec_dist(v, &d);
  hm_mvec_type(v, &type);
  hm_dist_range(d, &first, &local, NULL);
  hm_mvec_size(v, NULL, &k);
  const size_t row = (size_t)k * type;
  double *raw = malloc(sizeof(double) * (local * row + 1));
  for (int64_t i = 0; i < local; i++)
    for (size_t e = 0; e < row; e++) raw[i * row + e] = hm_random_uniform(seed, stream * 4096 + e, first + i) - 0.5;
  hm_mvec_set(v, raw);
  free(raw);
}

/* Largest |a - b| / (1 + |b|) over this rank's entries of two blocks, the maximum over ranks. */
static double block_diff(const hm_mvec *a, const hm_mvec *b) {
  const hm_dist *d;
  hm_scalar type;
  int64_t local;
  int k;
  hm_mvec_dist(a, &d);
  hm_mvec_type(a, &type);
  hm_dist_range(d, NULL, &local, NULL);
  hm_mvec_size(a, NULL, &k);
  const size_t len = (size_t)local * k * type;
  double *x = malloc(sizeof(double) * (len + 1)), *y = malloc(sizeof(double) * (len + 1)), worst = 0;
  hm_mvec_get(a, x);
  hm_mvec_get(b, y);
  for (size_t e = 0; e < len; e++) worst = fmax(worst, fabs(x[e] - y[e]) / (1.0 + fabs(y[e])));
  free(x);
  free(y);
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static double rel_diff(const double *a, const double *b, int n) {
  double worst = 0;
  for (int j = 0; j < n; j++) worst = fmax(worst, fabs(a[j] - b[j]) / fabs(b[j]));
  return worst;
}

/* AX (ka columns), BX (kb columns), R (m columns): the fused pass against the composition. */
static void check(hm_context *ctx, const hm_dist *dist, hm_scalar type, int m, int ka, int kb) {
  hm_mvec *AX, *BX, *R, *Rref;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, ka, &AX));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, kb, &BX));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, m, &R));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, m, &Rref));
  fill(AX, 1);
  fill(BX, 2);
  fill(R, 3); /* stale contents the pass must overwrite */
  double *lambda = malloc(sizeof(double) * m);
  for (int j = 0; j < m; j++) lambda[j] = 4.0 * (hm_random_uniform(seed, 5, j) - 0.5);
  double *rn = malloc(sizeof(double) * m), *bn = malloc(sizeof(double) * m);
  HM_TEST_OK(hm_mvec_ritz_residual(AX, BX, lambda, R, rn, bn));

  /* The composition: R = AX[:, :m]; R += BX C with C (kb x m) = -diag(lambda) on top, zero below. */
  double *C = calloc((size_t)kb * m * type, sizeof(double)), one[2] = {1, 0};
  for (int j = 0; j < m; j++) C[((size_t)j * m + j) * type] = -lambda[j];
  HM_TEST_OK(hm_mvec_copy_columns(AX, 0, Rref, 0, m));
  HM_TEST_OK(hm_mvec_update(Rref, one, BX, C));
  double *rn_ref = malloc(sizeof(double) * m), *bn_all = malloc(sizeof(double) * kb);
  HM_TEST_OK(hm_mvec_norms(Rref, rn_ref));
  HM_TEST_OK(hm_mvec_norms(BX, bn_all));

  const double dr = block_diff(R, Rref), dn = rel_diff(rn, rn_ref, m), db = rel_diff(bn, bn_all, m);
  HM_TEST_ASSERT(dr < 1e-13, "type %d m %d ka %d kb %d: R differs by %g", (int)type, m, ka, kb, dr);
  HM_TEST_ASSERT(dn < 1e-13, "type %d m %d ka %d kb %d: |R| differs by %g", (int)type, m, ka, kb, dn);
  HM_TEST_ASSERT(db < 1e-13, "type %d m %d ka %d kb %d: |BX| differs by %g", (int)type, m, ka, kb, db);

  free(lambda); free(rn); free(bn); free(C); free(rn_ref); free(bn_all);
  hm_mvec_destroy(&AX);
  hm_mvec_destroy(&BX);
  hm_mvec_destroy(&R);
  hm_mvec_destroy(&Rref);
}

/* X^H Y[:, y0 : y0 + ny] against the same columns of the whole X^H Y. */
static void check_gram_columns(hm_context *ctx, const hm_dist *dist, hm_scalar type, int kx, int ky, int y0, int ny) {
  hm_mvec *X, *Y;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, kx, &X));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, ky, &Y));
  fill(X, 6);
  fill(Y, 7);
  const size_t t = (size_t)type;
  double *full = malloc(sizeof(double) * kx * ky * t), *part = malloc(sizeof(double) * (kx * ny * t + 1));
  HM_TEST_OK(hm_mvec_gram(X, Y, full));
  HM_TEST_OK(hm_mvec_gram_columns(X, Y, y0, ny, part));
  double worst = 0;
  for (int a = 0; a < kx; a++)
    for (int b = 0; b < ny; b++)
      for (size_t p = 0; p < t; p++) {
        const double ref = full[((size_t)a * ky + y0 + b) * t + p], got = part[((size_t)a * ny + b) * t + p];
        worst = fmax(worst, fabs(got - ref) / (1.0 + fabs(ref)));
      }
  HM_TEST_ASSERT(worst < 1e-12, "type %d kx %d ky %d columns [%d, %d): gram differs by %g", (int)type, kx, ky, y0,
                 y0 + ny, worst);
  free(full);
  free(part);
  hm_mvec_destroy(&X);
  hm_mvec_destroy(&Y);
}

/* Y C in place and a random subset of Y's columns kept in place, each against its out-of-place
 * composition. */
static void check_in_place(hm_context *ctx, const hm_dist *dist, hm_scalar type, int k, int64_t piece) {
  hm_mvec *Y, *Z;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, k, &Y));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, k, &Z));
  fill(Y, 8);
  const size_t t = (size_t)type;
  double *C = malloc(sizeof(double) * k * k * t), zero[2] = {0, 0};
  for (size_t e = 0; e < (size_t)k * k * t; e++) C[e] = hm_random_uniform(seed, 9, e) - 0.5;
  HM_TEST_OK(hm_mvec_update(Z, zero, Y, C));
  HM_TEST_OK(hm_mvec_multiply_in_place(Y, C, piece));
  double d = block_diff(Y, Z);
  HM_TEST_ASSERT(d < 1e-13, "type %d k %d pieces of %lld rows: Y C in place differs by %g", (int)type, k,
                 (long long)piece, d);
  int *keep = malloc(sizeof(int) * k), kept = 0;
  for (int j = 0; j < k; j++) kept += keep[j] = hm_random_uniform(seed, 10, (uint64_t)j) < 0.6;
  if (kept) {
    hm_mvec *K;
    HM_TEST_OK(hm_mvec_create(ctx, dist, type, kept, &K));
    for (int j = 0, c = 0; j < k; j++)
      if (keep[j]) HM_TEST_OK(hm_mvec_copy_columns(Y, j, K, c++, 1));
    HM_TEST_OK(hm_mvec_keep_columns(Y, keep, piece));
    int width;
    hm_mvec_size(Y, NULL, &width);
    HM_TEST_ASSERT(width == kept, "type %d k %d: %d columns after keeping %d", (int)type, k, width, kept);
    d = block_diff(Y, K);
    HM_TEST_ASSERT(d == 0, "type %d k %d pieces of %lld rows: kept columns differ by %g", (int)type, k,
                   (long long)piece, d);
    hm_mvec_destroy(&K);
  }
  free(keep);
  free(C);
  hm_mvec_destroy(&Y);
  hm_mvec_destroy(&Z);
}

/* acc[:, c ne + e] += sum_j C[j ne + e] X_j[:, c] (w <= 4), against one block update per term and column. */
static void check_series(hm_context *ctx, const hm_dist *dist, hm_scalar type, int w, int m, int ne) {
  hm_mvec *X[16], *acc, *x1, *ref[4], *got;
  const double one[2] = {1, 0};
  const size_t t = (size_t)type;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, w * ne, &acc));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, 1, &x1));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, ne, &got));
  fill(acc, 11);
  double *C = malloc(sizeof(double) * m * ne * t);
  for (size_t e = 0; e < (size_t)m * ne * t; e++) C[e] = hm_random_uniform(seed, 12, e) - 0.5;
  for (int j = 0; j < m; j++) {
    HM_TEST_OK(hm_mvec_create(ctx, dist, type, w, &X[j]));
    fill(X[j], 13 + j);
  }
  for (int c = 0; c < w; c++) {
    HM_TEST_OK(hm_mvec_create(ctx, dist, type, ne, &ref[c]));
    HM_TEST_OK(hm_mvec_copy_columns(acc, c * ne, ref[c], 0, ne));
    for (int j = 0; j < m; j++) {
      HM_TEST_OK(hm_mvec_copy_columns(X[j], c, x1, 0, 1));
      HM_TEST_OK(hm_mvec_update(ref[c], one, x1, C + (size_t)j * ne * t));
    }
  }
  HM_TEST_OK(hm_mvec_series_accumulate(acc, m, X, C));
  for (int c = 0; c < w; c++) {
    HM_TEST_OK(hm_mvec_copy_columns(acc, c * ne, got, 0, ne));
    const double d = block_diff(got, ref[c]);
    HM_TEST_ASSERT(d < 1e-13, "type %d w %d m %d ne %d: series accumulators of column %d differ by %g", (int)type, w,
                   m, ne, c, d);
    hm_mvec_destroy(&ref[c]);
  }
  free(C);
  for (int j = 0; j < m; j++) hm_mvec_destroy(&X[j]);
  hm_mvec_destroy(&acc);
  hm_mvec_destroy(&x1);
  hm_mvec_destroy(&got);
}

static void bad_inputs(hm_context *ctx, const hm_dist *dist) {
  hm_mvec *A, *B, *R, *Rc, *wide;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 4, &A));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 2, &B));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 3, &R));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 3, &Rc));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 5, &wide));
  double lambda[5] = {1, 2, 3, 4, 5}, rn[5], bn[5];
  HM_TEST_FAILS(hm_mvec_ritz_residual(A, B, lambda, R, rn, bn), HM_ERR_ARGUMENT, "at least R's 3");
  HM_TEST_FAILS(hm_mvec_ritz_residual(A, A, lambda, A, rn, bn), HM_ERR_ARGUMENT, "distinct");
  HM_TEST_FAILS(hm_mvec_ritz_residual(A, A, lambda, Rc, rn, bn), HM_ERR_ARGUMENT, "scalar type");
  HM_TEST_FAILS(hm_mvec_ritz_residual(A, A, NULL, R, rn, bn), HM_ERR_ARGUMENT, "lambda, rnorm or bnorm is NULL");
  HM_TEST_FAILS(hm_mvec_ritz_residual(A, NULL, lambda, R, rn, bn), HM_ERR_ARGUMENT, "NULL");
  HM_TEST_FAILS(hm_mvec_ritz_residual(wide, A, lambda, A, rn, bn), HM_ERR_ARGUMENT, "distinct");
  double G[2 * 4 * 5];
  HM_TEST_FAILS(hm_mvec_gram_columns(A, wide, 3, 3, G), HM_ERR_ARGUMENT, "columns [3, 6) of Y: out of range for its 5");
  HM_TEST_FAILS(hm_mvec_gram_columns(A, wide, -1, 2, G), HM_ERR_ARGUMENT, "out of range");
  HM_TEST_FAILS(hm_mvec_gram_columns(A, Rc, 0, 2, G), HM_ERR_ARGUMENT, "scalar type");
  HM_TEST_FAILS(hm_mvec_gram_columns(A, wide, 0, 2, NULL), HM_ERR_ARGUMENT, "G is NULL");
  HM_TEST_FAILS(hm_mvec_series_accumulate(NULL, 1, &A, G), HM_ERR_ARGUMENT, "acc, X or C is NULL");
  HM_TEST_FAILS(hm_mvec_series_accumulate(wide, 17, &B, G), HM_ERR_ARGUMENT, "allowed 0 to 16");
  HM_TEST_FAILS(hm_mvec_series_accumulate(wide, 1, &B, G), HM_ERR_ARGUMENT, "not a multiple of the terms' 2");
  HM_TEST_FAILS(hm_mvec_series_accumulate(R, 1, &Rc, G), HM_ERR_ARGUMENT, "scalar type");
  HM_TEST_FAILS(hm_mvec_multiply_in_place(A, NULL, 0), HM_ERR_ARGUMENT, "Y or C is NULL");
  hm_mvec *haloed;
  const int keep[3] = {1, 0, 1};
  HM_TEST_OK(hm_mvec_create_with_halo(ctx, dist, HM_REAL, 3, 2, &haloed));
  HM_TEST_FAILS(hm_mvec_keep_columns(haloed, keep, 0), HM_ERR_ARGUMENT, "cannot be narrowed in place");
  hm_mvec_destroy(&haloed);
  hm_mvec_destroy(&A);
  hm_mvec_destroy(&B);
  hm_mvec_destroy(&R);
  hm_mvec_destroy(&Rc);
  hm_mvec_destroy(&wide);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
  if (cuda) HM_TEST_NEED_GPU();
  seed = hm_test_seed();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  hm_dist *dist;
  HM_TEST_OK(hm_dist_create(ctx, N, 1, 1.0, &dist));
  const int widths[] = {1, 3, 8, 16, 32};
  for (int w = 0; w < 5; w++)
    for (int t = 0; t < 2; t++) {
      const hm_scalar type = t ? HM_COMPLEX : HM_REAL;
      const int m = widths[w];
      check(ctx, dist, type, m, 2 * m, 2 * m); /* LOBPCG's [X P] blocks */
      check(ctx, dist, type, m, m, 3 * m + 1); /* other widths: AX exactly R's, BX wider */
      check_gram_columns(ctx, dist, type, 2 * m, 2 * m, m, m); /* LOBPCG: [X P]^H A P */
      check_gram_columns(ctx, dist, type, m, 3 * m + 1, 1, 2 * m);
      check_in_place(ctx, dist, type, m + 2, 7);
      check_in_place(ctx, dist, type, m + 2, 0);
      check_series(ctx, dist, type, 1 + w % 3, 1 + (3 * w) % 16, m);
    }
  bad_inputs(ctx, dist);
  hm_dist_destroy(&dist);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
