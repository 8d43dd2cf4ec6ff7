/* Halo messages longer than an int count travel as ordered pieces (linalg/core/mpi_large.c). The
 * count path is exercised without 2^31-element buffers by lowering the piece limit: the piece
 * arithmetic, a ring exchange of 10 doubles in pieces of 3, and a complex block product through
 * the halo with pieces of 1, 5 and unlimited, each against the product computed from the formula
 * for x (`bench/cases.sh BUILD large-halo` runs one real halo of more than 2^31 doubles). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "testing.h"
#include "mpi_large.h"
#include "mpi_waitall.h"

enum { N = 30, K = 3 };

static double complex x_of(int64_t g, int c) { return (g + 1) + I * (c + 1) * 0.5; }

/* A periodic chain with hops of 1 and 7 (complex, Hermitian): halo rows from several ranks. */
static int make_matrix(hm_context *ctx, const hm_dist *dist, hm_matrix **A) {
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t rp[N + 1], cols[4 * N];
  double vals[8 * N];
  rp[0] = 0;
  for (int64_t i = 0; i < local; i++) {
    const int64_t g = first + i, nb[4] = {(g + 1) % N, (g + N - 1) % N, (g + 7) % N, (g + N - 7) % N};
    const double complex h[4] = {-1 + 0.25 * I, -1 - 0.25 * I, 0.5 * I, -0.5 * I};
    for (int e = 0; e < 4; e++) {
      cols[4 * i + e] = nb[e];
      vals[2 * (4 * i + e)] = creal(h[e]);
      vals[2 * (4 * i + e) + 1] = cimag(h[e]);
    }
    rp[i + 1] = 4 * (i + 1);
  }
  return hm_matrix_create_csr(ctx, dist, HM_COMPLEX, rp, cols, vals, A);
}

static void check_product(hm_context *ctx, const hm_dist *dist, hm_matrix *A, int limit) {
  hm_mpi_set_piece_limit(limit);
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  hm_mvec *x = NULL, *y = NULL;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, K, &x));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, K, &y));
  double complex *xv = malloc(sizeof *xv * (size_t)(local * K + 1)), *yv = malloc(sizeof *yv * (size_t)(local * K + 1));
  for (int64_t i = 0; i < local; i++)
    for (int c = 0; c < K; c++) xv[i * K + c] = x_of(first + i, c);
  HM_TEST_OK(hm_mvec_set(x, (double *)xv));
  HM_TEST_OK(hm_matrix_apply(A, x, y));
  HM_TEST_OK(hm_mvec_get(y, (double *)yv));
  double worst = 0;
  for (int64_t i = 0; i < local; i++) {
    const int64_t g = first + i;
    for (int c = 0; c < K; c++) {
      const double complex want = (-1 + 0.25 * I) * x_of((g + 1) % N, c) + (-1 - 0.25 * I) * x_of((g + N - 1) % N, c) +
                                  0.5 * I * x_of((g + 7) % N, c) - 0.5 * I * x_of((g + N - 7) % N, c);
      worst = fmax(worst, cabs(yv[i * K + c] - want));
    }
  }
  HM_TEST_ASSERT(worst == 0, "piece limit %d: |y - formula| = %g, must be 0 (small integers and halves)", limit, worst);
  free(xv);
  free(yv);
  HM_TEST_OK(hm_mvec_destroy(&x));
  HM_TEST_OK(hm_mvec_destroy(&y));
  hm_mpi_set_piece_limit(0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  hm_mpi_set_piece_limit(3);
  HM_TEST_ASSERT(hm_mpi_pieces(0) == 1, "an empty message still takes one request");
  HM_TEST_ASSERT(hm_mpi_pieces(3) == 1 && hm_mpi_pieces(4) == 2 && hm_mpi_pieces(10) == 4,
                 "pieces of 3: 3 -> 1, 4 -> 2, 10 -> 4; got %zu %zu %zu", hm_mpi_pieces(3), hm_mpi_pieces(4),
                 hm_mpi_pieces(10));
  hm_mpi_set_piece_limit(0);
  HM_TEST_ASSERT(hm_mpi_pieces((size_t)1 << 32) == 3, "2^32 elements in int pieces: 3 requests, got %zu",
                 hm_mpi_pieces((size_t)1 << 32));

  /* A ring: 10 doubles to the next rank in pieces of 3, in order. */
  hm_mpi_set_piece_limit(3);
  double out[10], in[10] = {0};
  for (int i = 0; i < 10; i++) out[i] = 100 * rank + i;
  MPI_Request req[8];
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  HM_TEST_OK(hm_mpi_irecv_large(in, 10, MPI_DOUBLE, prev, 5, MPI_COMM_WORLD, req));
  HM_TEST_OK(hm_mpi_isend_large(out, 10, MPI_DOUBLE, next, 5, MPI_COMM_WORLD, req + 4));
  hm_mpi_waitall(8, req);
  for (int i = 0; i < 10; i++)
    HM_TEST_ASSERT(in[i] == 100 * prev + i, "ring element %d: %g, expected %d", i, in[i], 100 * prev + i);
  hm_mpi_set_piece_limit(0);

  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_dist *dist = NULL;
  HM_TEST_OK(hm_dist_create(ctx, N, 1, 1.0, &dist));
  hm_matrix *A = NULL;
  HM_TEST_OK(make_matrix(ctx, dist, &A));
  const int limits[] = {0, 1, 5, 0};
  for (int l = 0; l < 4; l++) check_product(ctx, dist, A, limits[l]);
  HM_TEST_OK(hm_matrix_destroy(&A));
  HM_TEST_OK(hm_dist_destroy(&dist));
  HM_TEST_OK(hm_context_destroy(&ctx));
  return hm_test_finish();
}
