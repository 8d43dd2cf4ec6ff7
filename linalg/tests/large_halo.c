/* One halo message of more than 2^31 doubles (run on 2 ranks, ~65 GiB, by `bench/cases.sh BUILD large-halo`):
 * rank 0 holds few rows, rank 1 the rest (weights 1 : 1000); row 0 sums x over all of rank 1's rows,
 * so rank 1 sends its whole block (rows x K > 2^31 doubles) to rank 0. y_0[c] is checked against the
 * exact integer sum; every other row of y against x (a unit diagonal). Exit 0 on success. */
#include <inttypes.h>
#include <stdlib.h>
#include "testing.h"

enum { K = 128 };

static double x_of(int64_t g, int c) { return (double)((g + c) % 7); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 17000000;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_dist *dist = NULL;
  HM_TEST_OK(hm_dist_create(ctx, n, 1, rank == 0 ? 1.0 : 1000.0, &dist));
  int64_t first, local, rank1_first = 0;
  HM_TEST_OK(hm_dist_range(dist, &first, &local, NULL));
  if (rank == 1) rank1_first = first;
  MPI_Allreduce(MPI_IN_PLACE, &rank1_first, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  const int64_t far = n - rank1_first; /* rank 1's rows: the halo of rank 0 */
  if (rank == 0) printf("n = %lld, rank 1 rows %lld, halo %lld doubles (2^31 = %lld)\n", (long long)n, (long long)far,
                        (long long)far * K, (long long)1 << 31);
  const int64_t nnz = local + (rank == 0 ? far : 0);
  int64_t *rp = malloc(sizeof *rp * (size_t)(local + 1)), *cols = malloc(sizeof *cols * (size_t)nnz);
  double *vals = malloc(sizeof *vals * (size_t)nnz);
  int64_t p = 0;
  rp[0] = 0;
  for (int64_t i = 0; i < local; i++) {
    cols[p] = first + i, vals[p++] = 1;
    if (first + i == 0)
      for (int64_t j = rank1_first; j < n; j++) cols[p] = j, vals[p++] = 1;
    rp[i + 1] = p;
  }
  hm_matrix *A = NULL;
  HM_TEST_OK(hm_matrix_create_csr(ctx, dist, HM_REAL, rp, cols, vals, &A));
  free(rp), free(cols), free(vals);
  hm_mvec *x = NULL, *y = NULL;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, K, &x));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, K, &y));
  double *v = malloc(sizeof *v * (size_t)(local * K));
  for (int64_t i = 0; i < local; i++)
    for (int c = 0; c < K; c++) v[i * K + c] = x_of(first + i, c);
  HM_TEST_OK(hm_mvec_set(x, v));
  const double t0 = MPI_Wtime();
  HM_TEST_OK(hm_matrix_apply(A, x, y));
  const double t1 = MPI_Wtime();
  HM_TEST_OK(hm_mvec_get(y, v));
  int64_t bad = 0;
  for (int64_t i = 0; i < local; i++)
    for (int c = 0; c < K; c++) {
      double want = x_of(first + i, c);
      if (first + i == 0)
        for (int64_t j = rank1_first; j < n; j++) want += x_of(j, c);
      bad += v[i * K + c] != want;
    }
  HM_TEST_ASSERT(bad == 0, "rank %d: %" PRId64 " wrong entries of y", rank, bad);
  if (rank == 0) printf("product through the halo: %.2f s, %s\n", t1 - t0, bad ? "WRONG" : "exact");
  free(v);
  hm_mvec_destroy(&x), hm_mvec_destroy(&y), hm_matrix_destroy(&A), hm_dist_destroy(&dist), hm_context_destroy(&ctx);
  return hm_test_finish();
}
