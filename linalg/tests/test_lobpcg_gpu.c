/* LOBPCG on the CUDA backend against the CPU backend (blocks in device memory, Gram products and
 * block updates by cuBLAS, the small problem on the host): the TI lattice (complex, smallest and
 * largest), a random real pencil with an SPD B and the Jacobi preconditioner, and a callback
 * operator; eigenvalues agree to 1e-10 relative, residuals below tol. Skips without a GPU. */
#include "lobpcg_problems.h"

enum { NEV = 6 };

static int matrix_callback(hm_mvec *x, hm_mvec *y, void *user) { return hm_matrix_apply((hm_matrix *)user, x, y); }

static void solve(hm_backend backend, int which_case, double *values) {
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  hm_matrix *A = NULL, *B = NULL;
  hm_lobpcg_options opt;
  hm_lobpcg_options_default(&opt);
  opt.nev = NEV;
  opt.block = NEV + 4;
  opt.tol = 1e-10;
  opt.maxit = 600;
  if (which_case <= 1) {
    hm_ti_params p;
    hm_ti_params_default(&p);
    p.nx = 6; p.ny = 5; p.nz = 4;
    p.disorder_w = 1.0;
    HM_TEST_OK(hm_ti_build(ctx, &p, &A));
    opt.which = which_case ? HM_LOBPCG_LARGEST : HM_LOBPCG_SMALLEST;
  } else {
    HM_TEST_OK(lp_build(ctx, 3, HM_REAL, 400, 0, &A));
    HM_TEST_OK(lp_build(ctx, 1, HM_REAL, 400, 0, &B));
    opt.precond = HM_LOBPCG_PRECOND_JACOBI;
    opt.precond_matrix = A;
  }
  const hm_dist *dist;
  hm_scalar type;
  hm_matrix_dist(A, &dist);
  hm_matrix_info(A, NULL, NULL, &type);
  hm_operator *opA, *opB = NULL;
  if (which_case == 3) HM_TEST_OK(hm_operator_create_shell(ctx, dist, type, matrix_callback, A, &opA));
  else HM_TEST_OK(hm_operator_create_matrix(A, &opA));
  if (B) HM_TEST_OK(hm_operator_create_matrix(B, &opB));
  hm_lobpcg *lob;
  HM_TEST_OK(hm_lobpcg_create(opA, opB, &opt, &lob));
  HM_TEST_OK(hm_lobpcg_run(lob));
  hm_lobpcg_reason reason;
  int it;
  double res[NEV];
  hm_lobpcg_info(lob, &it, NULL, &reason);
  HM_TEST_OK(hm_lobpcg_eigenvalues(lob, values));
  HM_TEST_OK(hm_lobpcg_residuals(lob, res));
  HM_TEST_ASSERT(reason == HM_LOBPCG_CONVERGED, "backend %d case %d: reason %d after %d iterations", (int)backend,
                 which_case, (int)reason, it);
  for (int j = 0; j < NEV; j++)
    HM_TEST_ASSERT(res[j] <= opt.tol, "backend %d case %d: residual[%d] = %g", (int)backend, which_case, j, res[j]);
  hm_lobpcg_destroy(&lob);
  hm_operator_destroy(&opA);
  hm_operator_destroy(&opB);
  hm_matrix_destroy(&A);
  hm_matrix_destroy(&B);
  hm_context_destroy(&ctx);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  for (int c = 0; c < 4; c++) {
    double cpu[NEV], gpu[NEV];
    solve(HM_BACKEND_CPU, c == 3 ? 2 : c, cpu);
    solve(HM_BACKEND_CUDA, c, gpu);
    for (int j = 0; j < NEV; j++)
      HM_TEST_ASSERT(fabs(gpu[j] - cpu[j]) <= 1e-10 * fabs(cpu[j]), "case %d: lambda[%d] GPU %.15g, CPU %.15g", c, j,
                     gpu[j], cpu[j]);
  }
  return hm_test_finish();
}
