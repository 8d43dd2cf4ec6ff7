/* hm_matrix on any rank count: y = A x of a random sparse matrix (global, built identically on
 * every rank from a seed) equals a dense product, for k = 1, 3, 8 and real and complex; bad inputs
 * are refused with clear messages. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "random.h"

enum { N = 157 };

/* PER_ROW entries per row: 7 (sorted by insertion when the matrix is made) or more than 32 (qsort). */
static void check(hm_context *ctx, hm_scalar type, int k, int PER_ROW) {
  hm_dist *dist;
  HM_TEST_OK(hm_dist_create(ctx, N, 1, 1.0, &dist));
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  /* Row i couples to PER_ROW pseudo-random columns, some repeated (duplicates must be summed). */
  int64_t *rp = calloc(local + 1, sizeof *rp), *cols = malloc(sizeof *cols * local * PER_ROW);
  double *vals = malloc(sizeof *vals * local * PER_ROW * type);
  double complex *dense = calloc(N * N, sizeof *dense);
  for (int64_t i = 0; i < N; i++)
    for (int p = 0; p < PER_ROW; p++) {
      int64_t c = (int64_t)(hm_random_u64(5, i, p) % N);
      if (p == 0) c = i;
      if (p == 1) c = (i + N - 1) % N; /* neighbours in other ranks' ranges */
      double re = hm_random_uniform(6, i, p) - 0.5, im = type == HM_COMPLEX ? hm_random_uniform(7, i, p) - 0.5 : 0;
      dense[c * N + i] += CMPLX(re, im);
      if (i >= first && i < first + local) {
        int64_t q = (i - first) * PER_ROW + p;
        cols[q] = c;
        vals[q * type] = re;
        if (type == HM_COMPLEX) vals[q * 2 + 1] = im;
      }
    }
  for (int64_t i = 0; i < local; i++) rp[i + 1] = (i + 1) * PER_ROW;
  hm_matrix *A;
  HM_TEST_OK(hm_matrix_create_csr(ctx, dist, type, rp, cols, vals, &A));
  hm_mvec *x, *y;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, k, &x));
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, k, &y));
  HM_TEST_OK(hm_mvec_random_phase(x, 42));
  HM_TEST_OK(hm_matrix_apply(A, x, y));
  double *xv = malloc(sizeof(double) * local * k * type), *yv = malloc(sizeof(double) * local * k * type);
  hm_mvec_get(x, xv);
  hm_mvec_get(y, yv);
  /* Reference: gather x globally and multiply with the dense matrix. */
  double complex *xg = calloc(N * k, sizeof *xg), *xl = calloc(N * k, sizeof *xl);
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < k; j++)
      xl[(first + i) * k + j] = type == HM_COMPLEX ? CMPLX(xv[2 * (i * k + j)], xv[2 * (i * k + j) + 1]) : xv[i * k + j];
  MPI_Allreduce(xl, xg, 2 * N * k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double worst = 0;
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < k; j++) {
      double complex ref = 0;
      for (int64_t c = 0; c < N; c++) ref += dense[c * N + first + i] * xg[c * k + j];
      double complex got = type == HM_COMPLEX ? CMPLX(yv[2 * (i * k + j)], yv[2 * (i * k + j) + 1]) : yv[i * k + j];
      worst = fmax(worst, cabs(got - ref));
    }
  HM_TEST_ASSERT(worst < 1e-13, "type %d k %d: |y - A x| = %g", (int)type, k, worst);
  /* A block of another width or type is refused with a message that says which. */
  hm_mvec *z;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, k + 1, &z));
  HM_TEST_FAILS(hm_matrix_apply(A, x, z), HM_ERR_ARGUMENT, "equal width");
  HM_TEST_FAILS(hm_matrix_apply(A, x, x), HM_ERR_ARGUMENT, "distinct");
  hm_mvec_destroy(&z);
  /* The device format: bad choices are refused naming what is allowed; the CPU backend keeps a
   * choice but multiplies from (and reports) the CSR. */
  HM_TEST_FAILS(hm_matrix_set_format(A, (hm_format)7, 0), HM_ERR_ARGUMENT, "HM_FORMAT_SELL (2)");
  HM_TEST_FAILS(hm_matrix_set_format(A, HM_FORMAT_SELL, -1), HM_ERR_ARGUMENT, "window of >= 1 rows");
  HM_TEST_FAILS(hm_matrix_set_format(A, HM_FORMAT_CSR, 64), HM_ERR_ARGUMENT, "applies only to HM_FORMAT_SELL");
  HM_TEST_OK(hm_matrix_set_format(A, HM_FORMAT_SELL, 64));
  hm_format used = HM_FORMAT_SELL;
  int chunk = -1, sigma = -1;
  double fill = -1;
  HM_TEST_OK(hm_matrix_format_info(A, &used, &chunk, &sigma, &fill));
  HM_TEST_ASSERT(used == HM_FORMAT_CSR && chunk == 0 && sigma == 0 && fill == 1,
                 "CPU backend: format %d, C %d, sigma %d, fill %g (want CSR, 0, 0, 1)", (int)used, chunk, sigma, fill);
  int made = -1;
  double reads = -1, distinct = -1;
  HM_TEST_OK(hm_matrix_block_info(A, &made, &reads, &distinct));
  HM_TEST_ASSERT(made == 0 && reads == 0 && distinct == 1, "CPU backend: block copy %d, reads %g, distinct %g (want 0, 0, 1)",
                 made, reads, distinct);
  HM_TEST_FAILS(hm_matrix_block_info(NULL, &made, NULL, NULL), HM_ERR_ARGUMENT, "A is NULL");
  HM_TEST_OK(hm_matrix_apply(A, x, y));
  double *yv2 = malloc(sizeof(double) * local * k * type);
  hm_mvec_get(y, yv2);
  HM_TEST_ASSERT(memcmp(yv, yv2, sizeof(double) * local * k * type) == 0, "type %d k %d: y changed after set_format",
                 (int)type, k);
  free(yv2);
  free(xv); free(yv); free(xg); free(xl); free(rp); free(cols); free(vals); free(dense);
  hm_mvec_destroy(&x); hm_mvec_destroy(&y); hm_matrix_destroy(&A); hm_dist_destroy(&dist);
  HM_TEST_ASSERT(A == NULL && x == NULL, "destroy must null the handle");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  for (int k = 1; k <= 8; k++) {
    check(ctx, HM_COMPLEX, k, 7);
    check(ctx, HM_REAL, k, 7);
  }
  check(ctx, HM_COMPLEX, 32, 7);
  check(ctx, HM_COMPLEX, 3, 45);
  check(ctx, HM_REAL, 1, 45);
  /* Bad inputs. */
  hm_dist *d;
  HM_TEST_FAILS(hm_dist_create(ctx, 10, 4, 1.0, &d), HM_ERR_ARGUMENT, "multiple of block");
  HM_TEST_FAILS(hm_dist_create(ctx, 12, 4, -1.0, &d), HM_ERR_ARGUMENT, "weight");
  HM_TEST_OK(hm_dist_create(ctx, 12, 4, 1.0, &d));
  int64_t local, bad_col[1] = {99};
  hm_dist_range(d, NULL, &local, NULL);
  int64_t *rp = calloc(local + 1, sizeof *rp);
  for (int i = 1; i <= local; i++) rp[i] = 1; /* one entry, in the first local row */
  double one = 1;
  hm_matrix *A;
  int64_t first;
  hm_dist_range(d, &first, NULL, NULL);
  char want[64];
  snprintf(want, sizeof want, "column 99 of global row %lld is outside [0, 12)", (long long)first);
  if (local >= 1) HM_TEST_FAILS(hm_matrix_create_csr(ctx, d, HM_REAL, rp, bad_col, &one, &A), HM_ERR_ARGUMENT, want);
  if (local >= 2) {
    rp[1] = 2;
    HM_TEST_FAILS(hm_matrix_create_csr(ctx, d, HM_REAL, rp, bad_col, &one, &A), HM_ERR_ARGUMENT, "rowptr decreases");
  }
  free(rp);
  hm_context *c2;
  HM_TEST_FAILS(hm_context_create(MPI_COMM_WORLD, (hm_backend)7, &c2), HM_ERR_ARGUMENT, "auto (0), cpu (1), cuda (2)");
  hm_dist_destroy(&d);
  /* Weighted split: rank r gets weight r+1. */
  int rank, size;
  hm_context_rank(ctx, &rank, &size);
  HM_TEST_OK(hm_dist_create(ctx, 4000, 4, rank + 1.0, &d));
  hm_dist_range(d, &first, &local, NULL);
  double expect = 4000.0 * (rank + 1) / (size * (size + 1) / 2.0);
  HM_TEST_ASSERT(fabs(local - expect) <= 4 && local % 4 == 0 && first % 4 == 0, "rank %d: %lld rows, expected about %g", rank, (long long)local, expect);
  hm_dist_destroy(&d);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
