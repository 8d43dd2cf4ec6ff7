/* KPM in passes (hm_kpm_options.block): R = 5 random vectors on a ring of N = 128 sites, real and
 * complex, in one pass and in passes of 1, 2 and 3 vectors (the last pass partial) and 5: moments
 * and per-vector moments equal to 1e-12 (vector r is column r of the random-phase block whatever
 * its pass). A run with block = 2 stopped in its second pass, checkpointed, restored into a fresh
 * kpm and continued reaches the uninterrupted run's moments (1e-13), its state the written one.
 * Refused: block > R, block < 0, a start block with passes, a checkpoint of another block.
 * Argument "cuda": the same on the GPU backend (the passes' random phases made on the device). */
#include <stdio.h>
#include "hamlet/checkpoint.h"
#include "test_output_util.h"

enum { N = 128, M = 32, R = 5 };
static const char *deck = "[kpm]\nmoments = 32\nvectors = 5\nblock = 2\n";

static hm_kpm_options options(int block) {
  hm_kpm_options o;
  hm_kpm_options_default(&o);
  o.moments = M;
  o.vectors = R;
  o.seed = 13;
  o.block = block;
  o.bounds = HM_BOUNDS_GIVEN;
  o.emin = -4.2;
  o.emax = 4.2;
  return o;
}

static void run_moments(hm_matrix *H, int block, double *mu, double *mu_vec) {
  hm_kpm_options o = options(block);
  hm_kpm *k = NULL;
  HM_TEST_OK(hm_kpm_create(H, &o, &k));
  HM_TEST_OK(hm_kpm_run(k));
  HM_TEST_OK(hm_kpm_moments(k, mu, mu_vec));
  hm_kpm_destroy(&k);
}

static double max_diff(const double *a, const double *b, int n) {
  double d = 0;
  for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

/* Stops after `after` steps (the same count on every rank). */
static int stop_after(void *user) {
  int *left = user;
  return --*left <= 0;
}

static void check_restart(hm_matrix *H, const double *mu_ref, const char *what) {
  const char *path = "kpm_block_checkpoint.h5";
  hm_kpm_options o = options(2);
  int left = 20; /* pass 0 asks 14 times (moments 4 .. 30), pass 1 from moment 4 on: stopped at 14 */
  o.stop = stop_after;
  o.stop_user = &left;
  hm_kpm *k = NULL;
  HM_TEST_OK(hm_kpm_create(H, &o, &k));
  HM_TEST_FAILS(hm_kpm_run(k), HM_ERR_STOPPED, "of pass 2 of 3");
  hm_error_clear();
  HM_TEST_OK(hm_checkpoint_write(k, path, deck));
  double mu_stop[M], vec_stop[R * M];
  int written = 0;
  HM_TEST_OK(hm_kpm_moments(k, mu_stop, vec_stop));
  HM_TEST_OK(hm_kpm_info(k, NULL, NULL, &written, NULL, NULL, NULL));
  HM_TEST_ASSERT(written > 2 && written < M, "%s: stopped at moment %d of the pass, not inside it", what, written);
  hm_kpm_destroy(&k);
  /* a fresh kpm, the checkpoint restored: the state written, then the run continued */
  hm_kpm_options fresh = options(2);
  HM_TEST_OK(hm_kpm_create(H, &fresh, &k));
  HM_TEST_OK(hm_checkpoint_restore(k, path));
  int done = 0;
  double mu[M], mu_vec[R * M];
  HM_TEST_OK(hm_kpm_info(k, NULL, NULL, &done, NULL, NULL, NULL));
  HM_TEST_ASSERT(done == written, "%s: restored at moment %d of the pass, written at %d", what, done, written);
  HM_TEST_OK(hm_kpm_moments(k, mu, mu_vec));
  HM_TEST_ASSERT(max_diff(mu_vec, vec_stop, R * M) <= 1e-15, "%s: the restored moments differ from the written ones",
                 what);
  HM_TEST_ASSERT(mu_vec[1 * M + M - 1] != 0 && mu_vec[2 * M + done - 1] != 0 && mu_vec[2 * M + done] == 0 &&
                     mu_vec[4 * M + 2] == 0,
                 "%s: the restored state is not 'pass 1 complete, vector 2 at %d moments, vector 4 at none'", what, done);
  HM_TEST_OK(hm_kpm_run(k));
  HM_TEST_OK(hm_kpm_moments(k, mu, mu_vec));
  const double d = max_diff(mu, mu_ref, M);
  HM_TEST_ASSERT(d <= 1e-13, "%s: the restarted run's moments differ from the uninterrupted one's by %.3g", what, d);
  hm_kpm_destroy(&k);
  /* another block: refused by name */
  hm_kpm_options other = options(0);
  HM_TEST_OK(hm_kpm_create(H, &other, &k));
  HM_TEST_FAILS(hm_checkpoint_restore(k, path), HM_ERR_INPUT, "has block = 2");
  hm_error_clear();
  hm_kpm_destroy(&k);
  int rank;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) remove(path);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  for (int type = HM_REAL; type <= HM_COMPLEX; type++) {
    const char *what = type == HM_REAL ? "real" : "complex";
    hm_matrix *H;
    HM_TEST_OK(t_ring(ctx, N, (hm_scalar)type, &H));
    double mu_ref[M], vec_ref[R * M], mu[M], mu_vec[R * M];
    run_moments(H, 0, mu_ref, vec_ref);
    HM_TEST_ASSERT(fabs(mu_ref[0] - 1) <= 1e-14 && fabs(mu_ref[M - 1]) > 0, "%s: the one-pass moments look wrong", what);
    const int blocks[4] = {1, 2, 3, 5};
    for (int b = 0; b < 4; b++) {
      run_moments(H, blocks[b], mu, mu_vec);
      const double d = fmax(max_diff(mu, mu_ref, M), max_diff(mu_vec, vec_ref, R * M));
      HM_TEST_ASSERT(d <= 1e-12, "%s, block = %d: moments differ from one pass by %.3g", what, blocks[b], d);
    }
    check_restart(H, mu_ref, what);
    hm_kpm *k = NULL;
    hm_kpm_options bad = options(R + 1);
    HM_TEST_FAILS(hm_kpm_create(H, &bad, &k), HM_ERR_ARGUMENT, "block = 6: allowed 1 .. vectors = 5");
    bad.block = -1;
    HM_TEST_FAILS(hm_kpm_create(H, &bad, &k), HM_ERR_ARGUMENT, "block = -1");
    hm_kpm_options passes = options(2);
    HM_TEST_OK(hm_kpm_create(H, &passes, &k));
    const hm_dist *dist;
    HM_TEST_OK(hm_matrix_dist(H, &dist));
    hm_mvec *V0;
    HM_TEST_OK(hm_mvec_create(ctx, dist, (hm_scalar)type, R, &V0));
    HM_TEST_OK(hm_mvec_random_phase(V0, 3));
    HM_TEST_FAILS(hm_kpm_set_start(k, V0), HM_ERR_ARGUMENT, "a start block runs in one pass");
    hm_mvec_destroy(&V0);
    hm_kpm_destroy(&k);
    hm_matrix_destroy(&H);
  }
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
