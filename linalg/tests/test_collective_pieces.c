/* Collectives longer than an int count go as pieces (linalg/core/mpi_large.c): a broadcast and
 * sums of 10 doubles in pieces of 3 against the values and sums computed here, in place and not,
 * an empty one, and hm_mvec_dot / hm_mvec_gram (which now use them) with pieces of 1 equal bit for
 * bit to the unlimited call. */
#include <stdlib.h>
#include "testing.h"
#include "mpi_large.h"

enum { LEN = 10, N = 23, K = 3 };

static double value(int rank, int i) { return 1000.0 * rank + i + 0.25; }

static void check_bcast(int rank, int size) {
  const int root = size - 1;
  double buf[LEN];
  for (int i = 0; i < LEN; i++) buf[i] = rank == root ? value(root, i) : -1;
  HM_TEST_OK(hm_mpi_bcast_large(buf, LEN, MPI_DOUBLE, root, MPI_COMM_WORLD));
  for (int i = 0; i < LEN; i++)
    HM_TEST_ASSERT(buf[i] == value(root, i), "bcast element %d: %g, root sent %g", i, buf[i], value(root, i));
}

static void check_allreduce(int rank, int size) {
  double send[LEN], recv[LEN], inplace[LEN];
  for (int i = 0; i < LEN; i++) send[i] = inplace[i] = value(rank, i), recv[i] = -1;
  HM_TEST_OK(hm_mpi_allreduce_large(send, recv, LEN, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  HM_TEST_OK(hm_mpi_allreduce_large(MPI_IN_PLACE, inplace, LEN, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < LEN; i++) {
    double want = 0; /* exact: small multiples of 0.25 */
    for (int r = 0; r < size; r++) want += value(r, i);
    HM_TEST_ASSERT(recv[i] == want, "sum element %d: %g, expected %g", i, recv[i], want);
    HM_TEST_ASSERT(inplace[i] == want, "in-place sum element %d: %g, expected %g", i, inplace[i], want);
  }
  double untouched = 7;
  HM_TEST_OK(hm_mpi_allreduce_large(MPI_IN_PLACE, &untouched, 0, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  HM_TEST_OK(hm_mpi_bcast_large(&untouched, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  HM_TEST_ASSERT(untouched == 7, "an empty collective changed its buffer to %g", untouched);
}

/* Dots and Gram of complex blocks with pieces of 1 against one unlimited call, bit for bit. */
static void check_mvec(hm_context *ctx, const hm_dist *dist) {
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  hm_mvec *x = NULL, *y = NULL;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, K, &x));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, K, &y));
  double *xv = malloc(sizeof *xv * (size_t)(2 * local * K + 1)), *yv = malloc(sizeof *yv * (size_t)(2 * local * K + 1));
  for (int64_t i = 0; i < 2 * local * K; i++) {
    xv[i] = 1.0 / (double)(first * 2 * K + i + 3);
    yv[i] = 0.1 * (double)((first * 2 * K + i) % 7) - 0.3;
  }
  HM_TEST_OK(hm_mvec_set(x, xv));
  HM_TEST_OK(hm_mvec_set(y, yv));
  double dots[2][2 * K], gram[2][2 * K * K];
  for (int pass = 0; pass < 2; pass++) {
    hm_mpi_set_piece_limit(pass == 0 ? 0 : 1);
    HM_TEST_OK(hm_mvec_dot(x, y, dots[pass]));
    HM_TEST_OK(hm_mvec_gram(x, y, gram[pass]));
  }
  hm_mpi_set_piece_limit(0);
  for (int i = 0; i < 2 * K; i++)
    HM_TEST_ASSERT(dots[1][i] == dots[0][i], "dot scalar %d: %.17g in pieces of 1, %.17g in one", i, dots[1][i], dots[0][i]);
  for (int i = 0; i < 2 * K * K; i++)
    HM_TEST_ASSERT(gram[1][i] == gram[0][i], "Gram scalar %d: %.17g in pieces of 1, %.17g in one", i, gram[1][i], gram[0][i]);
  HM_TEST_ASSERT(dots[0][0] != 0, "the dot products are not all zero (the test would be empty)");
  free(xv);
  free(yv);
  HM_TEST_OK(hm_mvec_destroy(&x));
  HM_TEST_OK(hm_mvec_destroy(&y));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hm_mpi_set_piece_limit(3);
  check_bcast(rank, size);
  check_allreduce(rank, size);
  hm_mpi_set_piece_limit(0);
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_dist *dist = NULL;
  HM_TEST_OK(hm_dist_create(ctx, N, 1, 1.0, &dist));
  check_mvec(ctx, dist);
  HM_TEST_OK(hm_dist_destroy(&dist));
  HM_TEST_OK(hm_context_destroy(&ctx));
  return hm_test_finish();
}
