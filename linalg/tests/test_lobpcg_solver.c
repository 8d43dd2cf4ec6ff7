/* LOBPCG options and robustness:
 * - the Jacobi preconditioner converges in fewer iterations on a badly scaled SPD matrix, and a
 *   user preconditioner doing the same scaling by callback takes the same iterations;
 * - a user callback operator (matrix-free) gives the matrix operator's eigenvalues;
 * - a start block with duplicate columns (singular Gram matrix: the SVQB fallback) converges;
 * - maxit reached is a status with the best estimates (Ritz values bound the eigenvalues above);
 * - checkpoint/restore continues to the answer of an uninterrupted run;
 * - bad options and calls give clear errors. */
#include <string.h>
#include "lobpcg_problems.h"

enum { N = 300 };

static double exact_w[N];

static void dense_spectrum(hm_matrix *A) {
  double complex *a;
  int64_t n;
  HM_TEST_OK(hm_test_dense(A, &a, &n));
  HM_TEST_ASSERT(hm_test_eigh(n, a, exact_w, NULL) == 0, "zheevd failed");
  free(a);
}

/* Run and return iterations; values (nev) compared with the dense spectrum when check. */
static int solve(hm_operator *A, hm_lobpcg_options *opt, double *values, hm_lobpcg_reason *reason, int check,
                 const char *what) {
  hm_lobpcg *lob;
  int it = -1;
  HM_TEST_OK(hm_lobpcg_create(A, NULL, opt, &lob));
  HM_TEST_OK(hm_lobpcg_run(lob));
  HM_TEST_OK(hm_lobpcg_info(lob, &it, NULL, reason));
  HM_TEST_OK(hm_lobpcg_eigenvalues(lob, values));
  if (check) {
    HM_TEST_ASSERT(*reason == HM_LOBPCG_CONVERGED, "%s: not converged (reason %d, %d iterations)", what, (int)*reason, it);
    for (int j = 0; j < opt->nev; j++)
      HM_TEST_ASSERT(fabs(values[j] - exact_w[j]) <= 1e-10 * fabs(exact_w[j]), "%s: lambda[%d] = %.15g, LAPACK %.15g",
                     what, j, values[j], exact_w[j]);
  }
  hm_lobpcg_destroy(&lob);
  return it;
}

/* y = A x by callback (user = the matrix). */
static int matrix_callback(hm_mvec *x, hm_mvec *y, void *user) { return hm_matrix_apply((hm_matrix *)user, x, y); }

/* y = D x with D a one-column block (user). */
static int scale_callback(hm_mvec *x, hm_mvec *y, void *user) { return hm_mvec_scale_rows(y, (hm_mvec *)user, x); }

static void preconditioners(hm_context *ctx) {
  hm_matrix *A;
  HM_TEST_OK(lp_build(ctx, 3, HM_REAL, N, 0, &A));
  dense_spectrum(A);
  hm_operator *op;
  HM_TEST_OK(hm_operator_create_matrix(A, &op));
  hm_lobpcg_options opt;
  hm_lobpcg_options_default(&opt);
  opt.nev = 4;
  opt.block = 8;
  opt.tol = 1e-9;
  opt.maxit = 300;
  double v[4];
  hm_lobpcg_reason reason;
  int plain = solve(op, &opt, v, &reason, 0, "none");
  opt.precond = HM_LOBPCG_PRECOND_JACOBI;
  opt.precond_matrix = A;
  int jacobi = solve(op, &opt, v, &reason, 1, "jacobi");
  HM_TEST_ASSERT(jacobi < plain / 2, "Jacobi took %d iterations, none %d", jacobi, plain);
  /* The same scaling through a user preconditioner: diag from the matrix, inverted here. */
  const hm_dist *dist;
  hm_matrix_dist(A, &dist);
  hm_mvec *d;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 1, &d));
  HM_TEST_OK(hm_matrix_diagonal(A, d));
  int64_t local;
  hm_mvec_size(d, &local, NULL);
  double *dv = malloc(sizeof(double) * (local + 1));
  hm_mvec_get(d, dv);
  for (int64_t i = 0; i < local; i++) dv[i] = 1.0 / fabs(dv[i]);
  hm_mvec_set(d, dv);
  free(dv);
  hm_operator *T;
  HM_TEST_OK(hm_operator_create_shell(ctx, dist, HM_REAL, scale_callback, d, &T));
  opt.precond = HM_LOBPCG_PRECOND_USER;
  opt.precond_op = T;
  int user = solve(op, &opt, v, &reason, 1, "user preconditioner");
  HM_TEST_ASSERT(abs(user - jacobi) <= 1, "user Jacobi took %d iterations, built-in %d", user, jacobi);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("iterations: none %d, jacobi %d, user jacobi %d\n", plain, jacobi, user);
  hm_operator_destroy(&T);
  hm_mvec_destroy(&d);
  hm_operator_destroy(&op);
  hm_matrix_destroy(&A);
}

static void callback_operator(hm_context *ctx, hm_scalar type) {
  hm_matrix *A;
  HM_TEST_OK(lp_build(ctx, 0, type, N, 8.0, &A));
  dense_spectrum(A);
  const hm_dist *dist;
  hm_matrix_dist(A, &dist);
  hm_operator *op, *shell;
  HM_TEST_OK(hm_operator_create_matrix(A, &op));
  HM_TEST_OK(hm_operator_create_shell(ctx, dist, type, matrix_callback, A, &shell));
  hm_lobpcg_options opt;
  hm_lobpcg_options_default(&opt);
  opt.nev = 5;
  opt.block = 9;
  opt.tol = 1e-9;
  opt.maxit = 600;
  double v1[5], v2[5];
  hm_lobpcg_reason reason;
  int i1 = solve(op, &opt, v1, &reason, 1, "matrix operator");
  int i2 = solve(shell, &opt, v2, &reason, 1, "callback operator");
  HM_TEST_ASSERT(i1 == i2, "matrix operator %d iterations, callback %d", i1, i2);
  for (int j = 0; j < 5; j++)
    HM_TEST_ASSERT(fabs(v1[j] - v2[j]) <= 1e-12 * fabs(v1[j]), "lambda[%d]: matrix %.15g, callback %.15g", j, v1[j], v2[j]);
  hm_operator_destroy(&shell);
  hm_operator_destroy(&op);
  hm_matrix_destroy(&A);
}

/* Start block whose columns are all copies of two vectors; then maxit as a status. */
static void start_and_maxit(hm_context *ctx) {
  hm_matrix *A;
  HM_TEST_OK(lp_build(ctx, 0, HM_COMPLEX, N, 8.0, &A));
  dense_spectrum(A);
  const hm_dist *dist;
  hm_matrix_dist(A, &dist);
  hm_operator *op;
  HM_TEST_OK(hm_operator_create_matrix(A, &op));
  hm_lobpcg_options opt;
  hm_lobpcg_options_default(&opt);
  opt.nev = 4;
  opt.block = 8;
  opt.tol = 1e-9;
  hm_mvec *X0, *two;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 8, &X0));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 2, &two));
  HM_TEST_OK(hm_mvec_random_phase(two, 99));
  for (int j = 0; j < 8; j++) HM_TEST_OK(hm_mvec_copy_columns(two, j % 2, X0, j, 1));
  hm_lobpcg *lob;
  HM_TEST_OK(hm_lobpcg_create(op, NULL, &opt, &lob));
  HM_TEST_OK(hm_lobpcg_set_start(lob, X0));
  HM_TEST_OK(hm_lobpcg_run(lob));
  hm_lobpcg_reason reason;
  int it;
  double v[4];
  hm_lobpcg_info(lob, &it, NULL, &reason);
  hm_lobpcg_eigenvalues(lob, v);
  HM_TEST_ASSERT(reason == HM_LOBPCG_CONVERGED, "duplicate start columns: reason %d after %d iterations", (int)reason, it);
  for (int j = 0; j < 4; j++)
    HM_TEST_ASSERT(fabs(v[j] - exact_w[j]) <= 1e-10 * fabs(exact_w[j]), "duplicate start: lambda[%d] = %.15g, LAPACK %.15g",
                   j, v[j], exact_w[j]);
  HM_TEST_FAILS(hm_lobpcg_set_start(lob, X0), HM_ERR_ARGUMENT, "before hm_lobpcg_run");
  hm_lobpcg_destroy(&lob);

  opt.maxit = 3;
  double res[4];
  HM_TEST_OK(hm_lobpcg_create(op, NULL, &opt, &lob));
  HM_TEST_OK(hm_lobpcg_run(lob));
  int conv;
  hm_lobpcg_info(lob, &it, &conv, &reason);
  HM_TEST_OK(hm_lobpcg_eigenvalues(lob, v));
  HM_TEST_OK(hm_lobpcg_residuals(lob, res));
  HM_TEST_ASSERT(reason == HM_LOBPCG_MAXIT && it == 3 && conv < 4, "maxit 3: reason %d, %d iterations, %d converged",
                 (int)reason, it, conv);
  for (int j = 0; j < 4; j++) {
    HM_TEST_ASSERT(isfinite(v[j]) && v[j] >= exact_w[j] - 1e-12 && v[j] < exact_w[N - 1],
                   "maxit 3: estimate %g not a Ritz bound of %g", v[j], exact_w[j]);
    HM_TEST_ASSERT(isfinite(res[j]) && res[j] > 0, "maxit 3: residual %g", res[j]);
  }
  HM_TEST_ASSERT(res[3] > opt.tol, "maxit 3: residual %g of the last pair already below tol", res[3]);
  hm_lobpcg_destroy(&lob);
  hm_mvec_destroy(&X0);
  hm_mvec_destroy(&two);
  hm_operator_destroy(&op);
  hm_matrix_destroy(&A);
}

/* Checkpoint: the state at iteration `at` kept on the host. */
typedef struct {
  int at, np, iteration, calls;
  double *x, *p;
} saved_state;

static int save_state(hm_lobpcg *lob, void *user) {
  saved_state *s = user;
  hm_mvec *X, *P;
  int it, np;
  s->calls++;
  HM_TEST_OK(hm_lobpcg_state(lob, &X, &P, &np, &it));
  if (it != s->at) return 0;
  int64_t local;
  int k;
  hm_mvec_size(X, &local, &k);
  s->x = malloc(sizeof(double) * 2 * (local * k + 1));
  s->p = malloc(sizeof(double) * 2 * (local * k + 1));
  hm_mvec_get(X, s->x);
  hm_mvec_get(P, s->p);
  s->np = np;
  s->iteration = it;
  return 0;
}

static int failing_checkpoint(hm_lobpcg *lob, void *user) {
  (void)lob; (void)user;
  return HM_ERR_IO;
}

static void checkpoint_restore(hm_context *ctx) {
  hm_matrix *A, *B;
  HM_TEST_OK(lp_build(ctx, 0, HM_COMPLEX, N, 8.0, &A));
  HM_TEST_OK(lp_build(ctx, 1, HM_COMPLEX, N, 0, &B));
  hm_operator *opA, *opB;
  HM_TEST_OK(hm_operator_create_matrix(A, &opA));
  HM_TEST_OK(hm_operator_create_matrix(B, &opB));
  saved_state s = {.at = 20};
  hm_lobpcg_options opt;
  hm_lobpcg_options_default(&opt);
  opt.nev = 4;
  opt.block = 7;
  opt.tol = 1e-10;
  opt.checkpoint_every = 10;
  opt.checkpoint = save_state;
  opt.checkpoint_user = &s;
  hm_lobpcg *lob;
  double v1[4], v2[4];
  int it1, it2;
  HM_TEST_OK(hm_lobpcg_create(opA, opB, &opt, &lob));
  HM_TEST_OK(hm_lobpcg_run(lob));
  hm_lobpcg_info(lob, &it1, NULL, NULL);
  hm_lobpcg_eigenvalues(lob, v1);
  hm_lobpcg_destroy(&lob);
  HM_TEST_ASSERT(s.x && s.iteration == 20 && it1 > 25, "no state saved at iteration 20 (run took %d iterations)", it1);
  HM_TEST_ASSERT(s.calls == it1 / 10, "%d checkpoints in %d iterations", s.calls, it1);
  if (s.x) {
    opt.checkpoint_every = 0;
    opt.checkpoint = NULL;
    opt.seed = 12345; /* the restored state decides, not the start block */
    HM_TEST_OK(hm_lobpcg_create(opA, opB, &opt, &lob));
    hm_mvec *X, *P;
    HM_TEST_OK(hm_lobpcg_state(lob, &X, &P, NULL, NULL));
    hm_mvec_set(X, s.x);
    hm_mvec_set(P, s.p);
    HM_TEST_OK(hm_lobpcg_restore(lob, s.np, s.iteration));
    HM_TEST_OK(hm_lobpcg_run(lob));
    hm_lobpcg_reason reason;
    hm_lobpcg_info(lob, &it2, NULL, &reason);
    hm_lobpcg_eigenvalues(lob, v2);
    HM_TEST_ASSERT(reason == HM_LOBPCG_CONVERGED && abs(it2 - it1) <= 2, "restored run: reason %d, %d iterations (uninterrupted %d)",
                   (int)reason, it2, it1);
    for (int j = 0; j < 4; j++)
      HM_TEST_ASSERT(fabs(v1[j] - v2[j]) <= 1e-10 * fabs(v1[j]), "restored lambda[%d] = %.15g, uninterrupted %.15g", j, v2[j], v1[j]);
    double *hv = malloc(sizeof(double) * (it2 + 1) * 4);
    HM_TEST_OK(hm_lobpcg_history(lob, hv, NULL));
    HM_TEST_ASSERT(isnan(hv[0]) && isnan(hv[19 * 4]) && hv[20 * 4] > exact_w[0] - 1, "history rows before the restore are not NaN");
    free(hv);
    hm_lobpcg_destroy(&lob);
  }
  free(s.x);
  free(s.p);
  opt.checkpoint_every = 5;
  opt.checkpoint = failing_checkpoint;
  HM_TEST_OK(hm_lobpcg_create(opA, opB, &opt, &lob));
  HM_TEST_FAILS(hm_lobpcg_run(lob), HM_ERR_IO, "checkpoint callback returned status 8 at iteration 5");
  hm_lobpcg_destroy(&lob);
  /* Time-based: overdue at every iteration after the first (none at the start or after the last). */
  saved_state every = {.at = -1};
  opt.checkpoint_every = 0;
  opt.checkpoint_seconds = 1e-9;
  opt.checkpoint = save_state;
  opt.checkpoint_user = &every;
  HM_TEST_OK(hm_lobpcg_create(opA, opB, &opt, &lob));
  HM_TEST_OK(hm_lobpcg_run(lob));
  hm_lobpcg_info(lob, &it1, NULL, NULL);
  HM_TEST_ASSERT(every.calls == it1 - 1, "time-based checkpoints: %d calls in %d iterations", every.calls, it1);
  hm_lobpcg_destroy(&lob);
  hm_operator_destroy(&opA);
  hm_operator_destroy(&opB);
  hm_matrix_destroy(&A);
  hm_matrix_destroy(&B);
}

static void bad_options(hm_context *ctx) {
  hm_matrix *A, *Z, *C;
  HM_TEST_OK(lp_build(ctx, 0, HM_REAL, N, 8.0, &A));
  HM_TEST_OK(lp_build(ctx, 0, HM_REAL, N, 0.0, &Z)); /* zero diagonal */
  HM_TEST_OK(lp_build(ctx, 0, HM_COMPLEX, N, 8.0, &C));
  hm_operator *op, *opC;
  HM_TEST_OK(hm_operator_create_matrix(A, &op));
  HM_TEST_OK(hm_operator_create_matrix(C, &opC));
  hm_lobpcg_options o, d;
  hm_lobpcg_options_default(&d);
  hm_lobpcg *lob = NULL;
  o = d; o.nev = 0;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "nev = 0, must be >= 1");
  o = d; o.nev = 4; o.block = 3;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "block = 3, must be >= nev = 4");
  o = d; o.tol = -1;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "tol = -1");
  o = d; o.maxit = 0;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "maxit = 0");
  o = d; o.which = (hm_lobpcg_which)5;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "which = 5");
  o = d; o.precond = HM_LOBPCG_PRECOND_JACOBI;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "JACOBI needs precond_matrix");
  o = d; o.precond = HM_LOBPCG_PRECOND_USER;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "USER needs precond_op");
  o = d; o.precond = HM_LOBPCG_PRECOND_JACOBI; o.precond_matrix = Z;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "zero diagonal entry in row 0");
  o = d; o.precond = HM_LOBPCG_PRECOND_JACOBI; o.precond_matrix = C;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "precond_matrix has scalar type 2");
  o = d; o.nev = 101;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "must fit in the 300 rows");
  o = d; o.checkpoint_every = 3;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "checkpoint is NULL");
  o = d; o.history = 2;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "history = 2");
  o = d;
  o.convergence = (hm_lobpcg_convergence)3;
  HM_TEST_FAILS(hm_lobpcg_create(op, NULL, &o, &lob), HM_ERR_ARGUMENT, "convergence = 3, must be HM_LOBPCG_CONV_AUTO");
  HM_TEST_FAILS(hm_lobpcg_create(op, opC, &d, &lob), HM_ERR_ARGUMENT, "B has scalar type 2, A has 1");
  HM_TEST_FAILS(hm_lobpcg_create(NULL, NULL, &d, &lob), HM_ERR_ARGUMENT, "A, opt or lob is NULL");
  hm_context *other;
  hm_matrix *A2;
  hm_operator *op2;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &other));
  HM_TEST_OK(lp_build(other, 1, HM_REAL, N, 0, &A2));
  HM_TEST_OK(hm_operator_create_matrix(A2, &op2));
  HM_TEST_FAILS(hm_lobpcg_create(op, op2, &d, &lob), HM_ERR_ARGUMENT, "B was made in another context than A");
  hm_operator_destroy(&op2);
  hm_matrix_destroy(&A2);
  hm_context_destroy(&other);
  HM_TEST_ASSERT(lob == NULL, "a failed create left a handle");
  o = d; o.history = 0;
  HM_TEST_OK(hm_lobpcg_create(op, NULL, &o, &lob));
  double v[1];
  HM_TEST_FAILS(hm_lobpcg_eigenvalues(lob, v), HM_ERR_ARGUMENT, "call hm_lobpcg_run first");
  HM_TEST_FAILS(hm_lobpcg_residuals(lob, v), HM_ERR_ARGUMENT, "call hm_lobpcg_run first");
  HM_TEST_FAILS(hm_lobpcg_history(lob, v, v), HM_ERR_ARGUMENT, "history = 0");
  HM_TEST_FAILS(hm_lobpcg_restore(lob, 0, 0), HM_ERR_ARGUMENT, "set the blocks from hm_lobpcg_state first");
  HM_TEST_OK(hm_lobpcg_state(lob, NULL, NULL, NULL, NULL));
  HM_TEST_FAILS(hm_lobpcg_restore(lob, 99, 0), HM_ERR_ARGUMENT, "np = 99");
  const hm_dist *dist;
  hm_matrix_dist(A, &dist);
  hm_mvec *wide;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, 4, &wide));
  HM_TEST_FAILS(hm_lobpcg_set_start(lob, wide), HM_ERR_ARGUMENT, "X0 has 4 columns; it may have 1 to block = 3");
  HM_TEST_OK(hm_lobpcg_run(lob));
  HM_TEST_FAILS(hm_lobpcg_eigenvectors(lob, wide), HM_ERR_ARGUMENT, "at most block = 3");
  hm_lobpcg_options back;
  HM_TEST_OK(hm_lobpcg_options_get(lob, &back));
  HM_TEST_ASSERT(back.block == 3, "automatic block for nev = 1 is %d, expected 3", back.block);
  hm_mvec_destroy(&wide);
  hm_lobpcg_destroy(&lob);
  HM_TEST_OK(hm_lobpcg_destroy(&lob));
  hm_operator_destroy(&op);
  hm_operator_destroy(&opC);
  hm_matrix_destroy(&A);
  hm_matrix_destroy(&Z);
  hm_matrix_destroy(&C);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  preconditioners(ctx);
  callback_operator(ctx, HM_REAL);
  callback_operator(ctx, HM_COMPLEX);
  start_and_maxit(ctx);
  checkpoint_restore(ctx);
  bad_options(ctx);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
