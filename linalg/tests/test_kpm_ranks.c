/* The moments do not depend on the rank count: the same deck-like problem on sub-communicators
 * of 1, 2 and 3 ranks (disorder and random vectors depend only on seed and global row). */
#include <math.h>
#include <stdlib.h>
#include "testing.h"

enum { M = 128, R = 4 };

static void moments_on(MPI_Comm comm, double *mu) {
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(comm, HM_BACKEND_CPU, &ctx));
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = 7; p.ny = 6; p.nz = 5;
  p.boundary[2] = HM_BC_OPEN;
  p.disorder_w = 2.0;
  p.dot_v0 = 0.5; p.dot_period_x = 4; p.dot_period_y = 3; p.dot_radius = 1.2;
  hm_matrix *H;
  HM_TEST_OK(hm_ti_build(ctx, &p, &H));
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = M;
  opt.vectors = R;
  hm_kpm *kpm;
  HM_TEST_OK(hm_kpm_create(H, &opt, &kpm));
  HM_TEST_OK(hm_kpm_run(kpm));
  HM_TEST_OK(hm_kpm_moments(kpm, mu, NULL));
  hm_kpm_destroy(&kpm);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double mu[3][M];
  for (int ranks = 1; ranks <= size && ranks <= 3; ranks++) {
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank < ranks ? 0 : MPI_UNDEFINED, rank, &sub);
    if (sub != MPI_COMM_NULL) {
      moments_on(sub, mu[ranks - 1]);
      MPI_Comm_free(&sub);
    }
  }
  if (rank == 0)
    for (int ranks = 2; ranks <= size && ranks <= 3; ranks++) {
      double worst = 0;
      for (int n = 0; n < M; n++) worst = fmax(worst, fabs(mu[ranks - 1][n] - mu[0][n]));
      HM_TEST_ASSERT(worst < 1e-12, "moments on %d ranks differ from 1 rank by %g", ranks, worst);
    }
  return hm_test_finish();
}
