/* The stop callback of every iterative solver: returning 1 after k step boundaries makes the run
 * return HM_ERR_STOPPED with a complete state; that state, copied out and restored into a new
 * solver, continues to the result of an uninterrupted run (KPM moments and IDR(s) solution
 * bitwise, LOBPCG through its full checkpoint state bitwise too: eigenvalues and iteration count). */
#include <string.h>
#include "idr_testlib.h"
#include "lobpcg_checkpoint.h"

enum { M = 8, NN = M * M * M, K = 2 };

typedef struct { int calls, stop_after; } stopper;

static int stop_after(void *user) {
  stopper *st = user;
  return ++st->calls >= st->stop_after;
}

/* Host copy of a block (local rows x k x type doubles). */
static double *host_copy(hm_mvec *v) {
  int64_t local;
  int k;
  hm_scalar type;
  hm_mvec_size(v, &local, &k);
  hm_mvec_type(v, &type);
  double *h = malloc(sizeof(double) * (size_t)(local * k * type) + 8);
  HM_TEST_OK(hm_mvec_get(v, h));
  return h;
}

static void kpm_stop(hm_matrix *A) {
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = 64;
  opt.vectors = 3;
  opt.bounds = HM_BOUNDS_GERSHGORIN;
  hm_kpm *full, *part, *rest;
  enum { MOM = 64, R = 3 };
  double mu[MOM], ref[R * MOM], got[R * MOM], saved[R * MOM];
  HM_TEST_OK(hm_kpm_create(A, &opt, &full));
  HM_TEST_OK(hm_kpm_run(full));
  HM_TEST_OK(hm_kpm_moments(full, mu, ref));
  stopper st = {0, 10};
  opt.stop = stop_after;
  opt.stop_user = &st;
  HM_TEST_OK(hm_kpm_create(A, &opt, &part));
  HM_TEST_FAILS(hm_kpm_run(part), HM_ERR_STOPPED, "stopped on request after moment 22 of 64");
  int done;
  double emin, emax;
  HM_TEST_OK(hm_kpm_info(part, NULL, NULL, &done, NULL, NULL, NULL));
  HM_TEST_ASSERT(done == 22 && st.calls == 10, "stopped after %d moments, %d calls (want 22 = 2 + 2 x 10, 10)", done, st.calls);
  HM_TEST_OK(hm_kpm_moments(part, mu, saved));
  HM_TEST_OK(hm_kpm_interval(part, &emin, &emax));
  hm_mvec *vp, *vc, *rp, *rc;
  HM_TEST_OK(hm_kpm_state_vectors(part, &vp, &vc));
  double *hp = host_copy(vp), *hc = host_copy(vc);
  opt.stop = NULL;
  opt.bounds = HM_BOUNDS_GIVEN;
  opt.emin = emin;
  opt.emax = emax;
  HM_TEST_OK(hm_kpm_create(A, &opt, &rest));
  HM_TEST_OK(hm_kpm_state_vectors(rest, &rp, &rc));
  HM_TEST_OK(hm_mvec_set(rp, hp));
  HM_TEST_OK(hm_mvec_set(rc, hc));
  HM_TEST_OK(hm_kpm_restore(rest, done, saved));
  HM_TEST_OK(hm_kpm_run(rest));
  HM_TEST_OK(hm_kpm_moments(rest, mu, got));
  double worst = 0;
  for (int i = 0; i < R * MOM; i++) worst = fmax(worst, fabs(got[i] - ref[i]));
  HM_TEST_ASSERT(worst <= 1e-15, "KPM continued after the stop differs by %.3e", worst);
  free(hp);
  free(hc);
  hm_kpm_destroy(&full);
  hm_kpm_destroy(&part);
  hm_kpm_destroy(&rest);
}

static void lobpcg_stop(hm_matrix *A) {
  hm_operator *op;
  HM_TEST_OK(hm_operator_create_matrix(A, &op));
  hm_lobpcg_options opt;
  hm_lobpcg_options_default(&opt);
  opt.nev = 3;
  opt.tol = 1e-9;
  hm_lobpcg *full, *part, *rest;
  double ref[3], got[3];
  int it1, it2, iteration;
  HM_TEST_OK(hm_lobpcg_create(op, NULL, &opt, &full));
  HM_TEST_OK(hm_lobpcg_run(full));
  HM_TEST_OK(hm_lobpcg_eigenvalues(full, ref));
  HM_TEST_OK(hm_lobpcg_info(full, &it1, NULL, NULL));
  stopper st = {0, 6};
  opt.stop = stop_after;
  opt.stop_user = &st;
  HM_TEST_OK(hm_lobpcg_create(op, NULL, &opt, &part));
  HM_TEST_FAILS(hm_lobpcg_run(part), HM_ERR_STOPPED, "stopped on request at iteration 5");
  /* Continue in a fresh solver from the state the driver checkpoints (lobpcg_checkpoint.h: the
   * blocks and their images as iterated, not recomputed): the same run, bit for bit. */
  hm_mvec *blocks[3], *blocks2[3];
  int nblocks, nblocks2, nscalars, unused;
  double *scalars, *unused_scalars;
  HM_TEST_OK(hm_lobpcg_checkpoint_state(part, &nblocks, blocks, &nscalars, &scalars));
  HM_TEST_OK(hm_lobpcg_info(part, &iteration, NULL, NULL));
  HM_TEST_ASSERT(iteration == 5 && st.calls == 6, "stopped at iteration %d after %d calls (want 5, 6)", iteration, st.calls);
  opt.stop = NULL;
  HM_TEST_OK(hm_lobpcg_create(op, NULL, &opt, &rest));
  HM_TEST_OK(hm_lobpcg_checkpoint_state(rest, &nblocks2, blocks2, &unused, &unused_scalars));
  free(unused_scalars);
  HM_TEST_ASSERT(nblocks2 == nblocks, "%d blocks to restore, %d saved", nblocks2, nblocks);
  for (int b = 0; b < nblocks && b < nblocks2; b++) {
    double *h = host_copy(blocks[b]);
    HM_TEST_OK(hm_mvec_set(blocks2[b], h));
    free(h);
  }
  HM_TEST_OK(hm_lobpcg_checkpoint_restore(rest, nscalars, scalars));
  free(scalars);
  HM_TEST_OK(hm_lobpcg_run(rest));
  HM_TEST_OK(hm_lobpcg_eigenvalues(rest, got));
  HM_TEST_OK(hm_lobpcg_info(rest, &it2, NULL, NULL));
  for (int j = 0; j < 3; j++)
    HM_TEST_ASSERT(got[j] == ref[j], "lambda[%d]: continued %.17g, uninterrupted %.17g", j, got[j], ref[j]);
  HM_TEST_ASSERT(it2 == it1, "continued run took %d iterations, uninterrupted %d", it2, it1);
  hm_lobpcg_destroy(&full);
  hm_lobpcg_destroy(&part);
  hm_lobpcg_destroy(&rest);
  hm_operator_destroy(&op);
}

static double complex rhs(int64_t row, int col, const void *par) {
  (void)par;
  return col == 0 ? 1.0 : idr_test_hash(5, (uint64_t)row, 3);
}

static void idr_stop(hm_context *ctx, hm_matrix *A) {
  const hm_dist *dist;
  hm_matrix_dist(A, &dist);
  hm_operator *op;
  HM_TEST_OK(hm_operator_create_matrix(A, &op));
  hm_mvec *b, *x;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, K, &b));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, K, &x));
  HM_TEST_OK(idr_test_fill(b, rhs, NULL));
  hm_idr_options opt;
  hm_idr_options_default(&opt);
  opt.s = 4;
  opt.tol = 1e-10;
  static double complex xa[NN * K], xb[NN * K];
  hm_idr *idr;
  HM_TEST_OK(hm_idr_create(op, &opt, &idr));
  HM_TEST_OK(hm_idr_solve(idr, b, x));
  HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, x, xa));
  hm_idr_destroy(&idr);
  stopper st = {0, 3};
  opt.stop = stop_after;
  opt.stop_user = &st;
  HM_TEST_OK(hm_idr_create(op, &opt, &idr));
  const double zero[K] = {0};
  HM_TEST_OK(hm_mvec_axpby(x, zero, x, zero)); /* the same start as the uninterrupted solve */
  HM_TEST_FAILS(hm_idr_solve(idr, b, x), HM_ERR_STOPPED, "stopped on request after outer iteration 3");
  int nb, ns;
  HM_TEST_OK(hm_idr_state_size(idr, &nb, &ns));
  double *scalars = malloc(sizeof(double) * (size_t)ns), *blocks[2 * 4 + 4];
  HM_TEST_OK(hm_idr_state_get(idr, scalars)); /* refused unless the state is complete */
  for (int i = 0; i < nb; i++) {
    hm_mvec *blk;
    HM_TEST_OK(hm_idr_state_block(idr, i, &blk));
    blocks[i] = host_copy(blk);
  }
  hm_idr_destroy(&idr);
  opt.stop = NULL;
  HM_TEST_OK(hm_idr_create(op, &opt, &idr));
  HM_TEST_OK(hm_idr_restore(idr, K, scalars));
  for (int i = 0; i < nb; i++) {
    hm_mvec *blk;
    HM_TEST_OK(hm_idr_state_block(idr, i, &blk));
    HM_TEST_OK(hm_mvec_set(blk, blocks[i]));
    free(blocks[i]);
  }
  HM_TEST_OK(hm_idr_solve(idr, b, x));
  HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, x, xb));
  const double d = idr_test_rel_diff(xb, xa, NN * K);
  HM_TEST_ASSERT(d < 1e-13, "IDR continued after the stop differs by %.3e", d);
  /* checkpoint_seconds needs a callback */
  hm_idr_destroy(&idr);
  opt.checkpoint_seconds = 1;
  HM_TEST_FAILS(hm_idr_create(op, &opt, &idr), HM_ERR_ARGUMENT, "needs a checkpoint callback");
  free(scalars);
  hm_mvec_destroy(&b);
  hm_mvec_destroy(&x);
  hm_operator_destroy(&op);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  idr_test_convdiff lap = {M, {0, 0, 0}}, cd = {M, {30, 10, 0}}; /* symmetric Laplacian; convection-diffusion */
  hm_matrix *L, *C;
  HM_TEST_OK(idr_test_matrix(ctx, NN, HM_REAL, idr_test_convdiff_row, &lap, 7, &L));
  HM_TEST_OK(idr_test_matrix(ctx, NN, HM_REAL, idr_test_convdiff_row, &cd, 7, &C));
  kpm_stop(L);
  lobpcg_stop(L);
  idr_stop(ctx, C);
  hm_matrix_destroy(&L);
  hm_matrix_destroy(&C);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
