/* LOBPCG against dense LAPACK (zheevd / zhegv of the gathered matrices) on random sparse
 * Hermitian matrices, real and complex, B = I and B = an SPD sparse matrix, smallest and largest,
 * nev = 1, 4, 8 with block > nev: eigenvalues to 1e-10 relative, the solver's residuals below tol
 * and the same residuals and B-orthonormality recomputed here from the returned eigenvectors. */
#include <string.h>
#include "lobpcg_problems.h"

enum { N = 240 };

static void run_case(hm_context *ctx, hm_scalar type, int with_b, int nev, hm_lobpcg_which which) {
  hm_matrix *A, *B = NULL;
  HM_TEST_OK(lp_build(ctx, 0, type, N, 8.0, &A));
  if (with_b) HM_TEST_OK(lp_build(ctx, 1, type, N, 0, &B));
  double w[N];
  HM_TEST_OK(hm_test_pencil_eigenvalues(A, B, w));
  hm_operator *opA, *opB = NULL;
  HM_TEST_OK(hm_operator_create_matrix(A, &opA));
  if (B) HM_TEST_OK(hm_operator_create_matrix(B, &opB));
  hm_lobpcg_options opt;
  hm_lobpcg_options_default(&opt);
  opt.nev = nev;
  opt.block = nev + 4;
  opt.tol = 1e-9;
  opt.maxit = 600;
  opt.which = which;
  opt.seed = 7;
  hm_lobpcg *lob;
  HM_TEST_OK(hm_lobpcg_create(opA, opB, &opt, &lob));
  HM_TEST_OK(hm_lobpcg_run(lob));
  int it, conv;
  hm_lobpcg_reason reason;
  HM_TEST_OK(hm_lobpcg_info(lob, &it, &conv, &reason));
  double val[8], res[8], myres[8], orth;
  HM_TEST_OK(hm_lobpcg_eigenvalues(lob, val));
  HM_TEST_OK(hm_lobpcg_residuals(lob, res));
  const char *tname = type == HM_REAL ? "real" : "complex";
  const char *wname = which == HM_LOBPCG_SMALLEST ? "smallest" : "largest";
  HM_TEST_ASSERT(reason == HM_LOBPCG_CONVERGED && conv == nev, "%s B=%d nev=%d %s: reason %d, %d converged in %d its",
                 tname, with_b, nev, wname, (int)reason, conv, it);
  for (int j = 0; j < nev; j++) {
    double exact = which == HM_LOBPCG_SMALLEST ? w[j] : w[N - 1 - j];
    HM_TEST_ASSERT(fabs(val[j] - exact) <= 1e-10 * fabs(exact), "%s B=%d nev=%d %s: lambda[%d] = %.15g, LAPACK %.15g",
                   tname, with_b, nev, wname, j, val[j], exact);
    HM_TEST_ASSERT(res[j] <= opt.tol, "%s B=%d nev=%d %s: residual[%d] = %g > tol", tname, with_b, nev, wname, j, res[j]);
  }
  const hm_dist *dist;
  hm_matrix_dist(A, &dist);
  hm_mvec *V;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, nev, &V));
  HM_TEST_OK(hm_lobpcg_eigenvectors(lob, V));
  lp_check_vectors(A, B, V, val, nev, myres, &orth);
  for (int j = 0; j < nev; j++)
    HM_TEST_ASSERT(myres[j] <= 2 * opt.tol, "%s B=%d nev=%d %s: recomputed residual[%d] = %g", tname, with_b, nev, wname,
                   j, myres[j]);
  HM_TEST_ASSERT(orth < 1e-12, "%s B=%d nev=%d %s: ||V^H B V - I|| = %g", tname, with_b, nev, wname, orth);
  /* History: row `it` holds the final estimates; the first row is the start block's. */
  double *hv = malloc(sizeof(double) * (it + 1) * nev), *hr = malloc(sizeof(double) * (it + 1) * nev);
  HM_TEST_OK(hm_lobpcg_history(lob, hv, hr));
  HM_TEST_ASSERT(hv[(size_t)it * nev] == val[0] && hr[(size_t)it * nev] == res[0], "history's last row is not the result");
  HM_TEST_ASSERT(hr[0] > 1e3 * res[0], "history: first residual %g not far above the last %g", hr[0], res[0]);
  free(hv); free(hr);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%s B=%d nev=%d %s: %d iterations\n", tname, with_b, nev, wname, it);
  hm_mvec_destroy(&V);
  hm_lobpcg_destroy(&lob);
  hm_operator_destroy(&opA);
  hm_operator_destroy(&opB);
  hm_matrix_destroy(&A);
  hm_matrix_destroy(&B);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  const int nevs[] = {1, 4, 8};
  for (int t = 1; t <= 2; t++)
    for (int with_b = 0; with_b <= 1; with_b++)
      for (int i = 0; i < 3; i++)
        run_case(ctx, (hm_scalar)t, with_b, nevs[i], i == 1 ? HM_LOBPCG_LARGEST : HM_LOBPCG_SMALLEST);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
