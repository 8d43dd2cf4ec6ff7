/* LOBPCG on the FEM pencil K x = E M x (Q1 hexahedra, V = 0, B = M) against the exact discrete
 * eigenvalues: sums over directions of the 1D Q1 values (3 / h^2) (1 - cos t) / (2 + cos t),
 * t = j pi / e, j = 1 .. e - 1 (the 1D stiffness/2 and mass eigenpairs are the sine modes).
 * Without and with the Jacobi preconditioner (diagonal of K); the box has unequal edges, and the
 * cube case keeps the threefold degeneracies. */
#include <stdlib.h>
#include "lobpcg_problems.h"
#include "lobpcg_report.h"

static void run(hm_context *ctx, double lx, double ly, double lz, int e, int jacobi) {
  hm_matrix *K, *M;
  double *exact = lp_fem_box(ctx, lx, ly, lz, e, &K, &M);
  hm_operator *opK, *opM;
  HM_TEST_OK(hm_operator_create_matrix(K, &opK));
  HM_TEST_OK(hm_operator_create_matrix(M, &opM));
  hm_lobpcg_options opt;
  hm_lobpcg_options_default(&opt);
  opt.nev = 7;
  opt.block = 10;
  opt.tol = 1e-10;
  opt.maxit = 500;
  if (jacobi) {
    opt.precond = HM_LOBPCG_PRECOND_JACOBI;
    opt.precond_matrix = K;
  }
  hm_lobpcg *lob;
  HM_TEST_OK(hm_lobpcg_create(opK, opM, &opt, &lob));
  HM_TEST_OK(hm_lobpcg_run(lob));
  int it;
  hm_lobpcg_reason reason;
  double v[7], res[7];
  hm_lobpcg_info(lob, &it, NULL, &reason);
  HM_TEST_OK(hm_lobpcg_eigenvalues(lob, v));
  HM_TEST_OK(hm_lobpcg_residuals(lob, res));
  HM_TEST_ASSERT(reason == HM_LOBPCG_CONVERGED, "box %g x %g x %g, jacobi %d: reason %d after %d iterations", lx, ly, lz,
                 jacobi, (int)reason, it);
  for (int j = 0; j < 7; j++) {
    HM_TEST_ASSERT(fabs(v[j] - exact[j]) <= 1e-10 * exact[j], "box %g x %g x %g, jacobi %d: E[%d] = %.15g, exact %.15g", lx,
                   ly, lz, jacobi, j, v[j], exact[j]);
    HM_TEST_ASSERT(res[j] <= opt.tol, "residual[%d] = %g", j, res[j]);
  }
  /* The NORM test's backward errors ||K x - E M x|| / ((||K||_est + |E| ||M||_est) ||x||) against the
   * same formula from the eigenvectors (||x||: B-orthonormal columns, not unit; they were read from
   * rows that mixed X and P once), and ||K||_est a lower bound of ||K||_2 (Gershgorin above). */
  hm_lobpcg_report rep;
  double backward[7], kx[7], xn[7], emin, emax;
  HM_TEST_OK(hm_lobpcg_convergence_report(lob, &rep, backward));
  HM_TEST_OK(hm_matrix_gershgorin(K, &emin, &emax));
  const hm_dist *dist;
  hm_matrix_dist(K, &dist);
  hm_mvec *X, *KX, *MX;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, opt.block, &X));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, opt.block, &KX));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, opt.block, &MX));
  HM_TEST_OK(hm_lobpcg_eigenvectors(lob, X));
  HM_TEST_OK(hm_matrix_apply(K, X, KX));
  HM_TEST_OK(hm_matrix_apply(M, X, MX));
  double minus_e[10] = {0}, one[10];
  for (int j = 0; j < opt.block; j++) one[j] = 1.0, minus_e[j] = j < 7 ? -v[j] : 0.0;
  HM_TEST_OK(hm_mvec_axpby(KX, minus_e, MX, one));
  double all_r[10], all_x[10];
  HM_TEST_OK(hm_mvec_norms(KX, all_r));
  HM_TEST_OK(hm_mvec_norms(X, all_x));
  for (int j = 0; j < 7; j++) {
    kx[j] = all_r[j], xn[j] = all_x[j];
    const double expect = kx[j] / ((rep.norm_a + fabs(v[j]) * rep.norm_b) * xn[j]);
    HM_TEST_ASSERT(fabs(backward[j] - expect) <= 1e-3 * expect, "box %g x %g x %g, jacobi %d: backward error[%d] %.6g, "
                   "from the eigenvectors %.6g (||x|| = %.6g)", lx, ly, lz, jacobi, j, backward[j], expect, xn[j]);
  }
  HM_TEST_ASSERT(rep.norm_a > 0 && rep.norm_a <= fmax(fabs(emin), fabs(emax)) * (1 + 1e-12),
                 "||K||_est = %g is no lower bound of ||K||_2 (Gershgorin bound %g)", rep.norm_a, fmax(fabs(emin), emax));
  hm_mvec_destroy(&X), hm_mvec_destroy(&KX), hm_mvec_destroy(&MX);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("box %g x %g x %g, jacobi %d: %d iterations, ||K||_est %.6g\n", lx, ly, lz, jacobi, it, rep.norm_a);
  free(exact);
  hm_lobpcg_destroy(&lob);
  hm_operator_destroy(&opK);
  hm_operator_destroy(&opM);
  hm_matrix_destroy(&K);
  hm_matrix_destroy(&M);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  run(ctx, 1.0, 1.3, 0.8, 8, 0);
  run(ctx, 1.0, 1.3, 0.8, 8, 1);
  run(ctx, 2.0, 2.0, 2.0, 7, 1);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
