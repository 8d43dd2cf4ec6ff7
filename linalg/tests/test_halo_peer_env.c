/* HAMLET_HALO_PEER is read wherever a matrix plans its halo, on the CPU backend too: a value other
 * than 0, 1 or unset/empty is refused with HM_ERR_ARGUMENT naming the variable; 0, 1 and empty are
 * accepted on CPU ranks (1 requires the device path only where ranks run on devices) and the
 * matrix then multiplies correctly through its halo (a periodic chain, split over the ranks). */
#include <stdlib.h>
#include <string.h>
#include "testing.h"

enum { N = 12 };

/* The chain H_(i, i+-1) = -1 with periodic ends: every rank's first and last rows need a halo
 * row from its neighbours once there are several ranks. */
static int make_chain(hm_context *ctx, const hm_dist *dist, hm_matrix **A) {
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t rp[N + 1], cols[2 * N];
  double vals[2 * N];
  rp[0] = 0;
  for (int64_t i = 0; i < local; i++) {
    const int64_t g = first + i;
    cols[2 * i] = (g + N - 1) % N;
    cols[2 * i + 1] = (g + 1) % N;
    vals[2 * i] = vals[2 * i + 1] = -1;
    rp[i + 1] = 2 * (i + 1);
  }
  return hm_matrix_create_csr(ctx, dist, HM_REAL, rp, cols, vals, A);
}

/* y = A x with x_g = g + 1 must be -(x_(g-1) + x_(g+1)) on every own row. */
static void check_product(hm_context *ctx, const hm_dist *dist, hm_matrix *A, const char *value) {
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  hm_mvec *x, *y;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 1, &x));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 1, &y));
  double xv[N], yv[N];
  for (int64_t i = 0; i < local; i++) xv[i] = (double)(first + i + 1);
  HM_TEST_OK(hm_mvec_set(x, xv));
  HM_TEST_OK(hm_matrix_apply(A, x, y));
  HM_TEST_OK(hm_mvec_get(y, yv));
  int wrong = 0;
  for (int64_t i = 0; i < local; i++) {
    const int64_t g = first + i;
    wrong += yv[i] != -(double)((g + N - 1) % N + 1 + (g + 1) % N + 1);
  }
  HM_TEST_ASSERT(wrong == 0, "HAMLET_HALO_PEER='%s': %d rows of A x are wrong", value, wrong);
  hm_mvec_destroy(&x);
  hm_mvec_destroy(&y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_dist *dist;
  HM_TEST_OK(hm_dist_create(ctx, N, 1, 1.0, &dist));
  const char *before = getenv("HAMLET_HALO_PEER");
  char *saved = before ? strdup(before) : NULL;
  hm_matrix *A = NULL;

  const char *bad[] = {"2", "yes", "10"};
  for (int i = 0; i < 3; i++) {
    setenv("HAMLET_HALO_PEER", bad[i], 1);
    HM_TEST_FAILS(make_chain(ctx, dist, &A), HM_ERR_ARGUMENT, "HAMLET_HALO_PEER is '");
    HM_TEST_ASSERT(A == NULL, "HAMLET_HALO_PEER='%s': a refused matrix must leave A NULL", bad[i]);
  }

  const char *good[] = {"0", "1", ""};
  for (int i = 0; i < 3; i++) {
    setenv("HAMLET_HALO_PEER", good[i], 1);
    HM_TEST_OK(make_chain(ctx, dist, &A));
    if (A) check_product(ctx, dist, A, good[i]);
    hm_matrix_destroy(&A);
  }

  /* Leave the environment as it was. */
  if (saved) setenv("HAMLET_HALO_PEER", saved, 1);
  else unsetenv("HAMLET_HALO_PEER");
  free(saved);
  hm_dist_destroy(&dist);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
