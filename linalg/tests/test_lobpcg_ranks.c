/* LOBPCG's eigenvalues do not depend on the rank count: the same problems (entries and start
 * block depend only on global indices and the seed) on 1 and 2 ranks agree to 1e-10 relative
 * (real with B = I, complex with B = an SPD matrix, and the TI lattice's largest). */
#include "lobpcg_problems.h"

enum { NEV = 6 };

static void solve_on(MPI_Comm comm, int which_case, double *values) {
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(comm, HM_BACKEND_CPU, &ctx));
  hm_matrix *A = NULL, *B = NULL;
  hm_lobpcg_options opt;
  hm_lobpcg_options_default(&opt);
  opt.nev = NEV;
  opt.block = NEV + 3;
  opt.tol = 1e-10;
  opt.maxit = 800;
  if (which_case == 0) {
    HM_TEST_OK(lp_build(ctx, 0, HM_REAL, 256, 6.0, &A));
  } else if (which_case == 1) {
    HM_TEST_OK(lp_build(ctx, 0, HM_COMPLEX, 256, 6.0, &A));
    HM_TEST_OK(lp_build(ctx, 1, HM_COMPLEX, 256, 0, &B));
  } else {
    HM_TEST_OK(hm_test_ti_slab(ctx, 4, 4, 3, 1.5, NULL, &A));
    opt.which = HM_LOBPCG_LARGEST;
  }
  hm_operator *opA, *opB = NULL;
  HM_TEST_OK(hm_operator_create_matrix(A, &opA));
  if (B) HM_TEST_OK(hm_operator_create_matrix(B, &opB));
  hm_lobpcg *lob;
  HM_TEST_OK(hm_lobpcg_create(opA, opB, &opt, &lob));
  HM_TEST_OK(hm_lobpcg_run(lob));
  hm_lobpcg_reason reason;
  hm_lobpcg_info(lob, NULL, NULL, &reason);
  HM_TEST_ASSERT(reason == HM_LOBPCG_CONVERGED, "case %d: not converged (reason %d)", which_case, (int)reason);
  HM_TEST_OK(hm_lobpcg_eigenvalues(lob, values));
  hm_lobpcg_destroy(&lob);
  hm_operator_destroy(&opA);
  hm_operator_destroy(&opB);
  hm_matrix_destroy(&A);
  hm_matrix_destroy(&B);
  hm_context_destroy(&ctx);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int c = 0; c < 3; c++) {
    double v[2][NEV];
    for (int ranks = 1; ranks <= size && ranks <= 2; ranks++) {
      MPI_Comm sub;
      MPI_Comm_split(MPI_COMM_WORLD, rank < ranks ? 0 : MPI_UNDEFINED, rank, &sub);
      if (sub != MPI_COMM_NULL) {
        solve_on(sub, c, v[ranks - 1]);
        MPI_Comm_free(&sub);
      }
    }
    if (rank == 0 && size >= 2)
      for (int j = 0; j < NEV; j++)
        HM_TEST_ASSERT(fabs(v[1][j] - v[0][j]) <= 1e-10 * fabs(v[0][j]), "case %d: lambda[%d] on 2 ranks %.15g, on 1 %.15g",
                       c, j, v[1][j], v[0][j]);
  }
  return hm_test_finish();
}
