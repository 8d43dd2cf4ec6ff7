/* Exact-trace conductivity moments mu_nm^{ab} = Tr[v_a T_n v_b T_m] / N against dense eigenpairs
 * (to 1e-10) on a twisted, disordered 4 x 3 Qi-Wu-Zhang lattice, components xx, xy, yx from shared
 * Chebyshev vectors in chunks of 5 (a partial last chunk); a run stopped mid-vector and restored
 * into a new object reaches the same moments bit for bit; random trace: the mean equals the average
 * of the per-vector moments, and a vector run alone (blocks of 1) equals it run in a block of 3 (the
 * blocked recursion, to rounding); bad inputs. Any rank count. */
#include "conductivity_testlib.h"

enum { M = 16, C = 3 };
static int stop_after = -1;
static int stop_now(void *user) {
  (void)user;
  return stop_after >= 0 && --stop_after < 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  /* arguments: backend (cpu | cuda), chunk */
  const int cuda = argc > 1 && !strcmp(argv[1], "cuda");
  if (cuda) HM_TEST_NEED_GPU();
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  const int64_t cells[3] = {4, 3, 1}, n = 24;
  const int bc[3] = {HM_BC_TWISTED, HM_BC_PERIODIC, HM_BC_OPEN};
  const double twist[3] = {0.37, 0, 0}, lattice[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, tau[6] = {0, 0, 0, 0.25, 0.1, 0};
  double blk[QWZ_BLOCKS * 8], vx[QWZ_BLOCKS * 8], vy[QWZ_BLOCKS * 8];
  qwz_blocks(-1.2, 0.3, blk);
  HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 0, vx));
  HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 1, vy));
  double complex *Hd = malloc(sizeof(double complex) * n * n), *Vd[2];
  stencil_dense(cells, 2, QWZ_BLOCKS, qwz_shift, blk, bc, twist, Hd);
  for (int i = 0; i < n; i++) Hd[i * n + i] += 0.8 * sin(7.1 * i); /* fixed "disorder" */
  for (int a = 0; a < 2; a++) {
    Vd[a] = malloc(sizeof(double complex) * n * n);
    stencil_dense(cells, 2, QWZ_BLOCKS, qwz_shift, a ? vy : vx, bc, twist, Vd[a]);
  }
  hm_matrix *H, *V[2];
  HM_TEST_OK(matrix_from_dense(ctx, n, 2, Hd, &H));
  for (int a = 0; a < 2; a++) HM_TEST_OK(matrix_from_dense(ctx, n, 2, Vd[a], &V[a]));
  hm_matrix *left[C] = {V[0], V[0], V[1]}, *right[C] = {V[0], V[1], V[0]};
  const int la[C] = {0, 0, 1}, rb[C] = {0, 1, 0};

  hm_conductivity_options opt;
  hm_conductivity_options_default(&opt);
  opt.moments = M;
  opt.trace = HM_TRACE_EXACT;
  opt.chunk = argc > 2 ? atoi(argv[2]) : 5; /* the 3-rank run takes 8: fewer halo exchanges */
  opt.block = 16; /* blocked recursions on every backend: 24 start vectors in blocks of 16 and 8 */
  hm_conductivity *c;
  HM_TEST_OK(hm_conductivity_create(H, C, left, right, &opt, &c));
  HM_TEST_OK(hm_conductivity_run(c));
  double s, b, *mu = malloc(sizeof(double) * 2 * C * M * M);
  int starts, chunk;
  HM_TEST_OK(hm_conductivity_info(c, NULL, NULL, &starts, NULL, &chunk, &s, &b, NULL));
  HM_TEST_ASSERT(starts == n && chunk == opt.chunk, "starts %d (want %lld), chunk %d (want %d)", starts, (long long)n,
                 chunk, opt.chunk);
  HM_TEST_OK(hm_conductivity_moments(c, mu, NULL));
  double complex *ref = malloc(sizeof(double complex) * M * M);
  for (int k = 0; k < C; k++) {
    exact_moments(n, Hd, Vd[la[k]], Vd[rb[k]], s, b, M, ref);
    double worst = 0, largest = 0;
    const double complex *got = (const double complex *)mu + (size_t)k * M * M;
    for (int i = 0; i < M * M; i++) {
      worst = fmax(worst, cabs(got[i] - ref[i]));
      largest = fmax(largest, cabs(ref[i]));
    }
    HM_TEST_ASSERT(worst < 1e-10 * fmax(1, largest) && largest > 0.1,
                   "component %d: moments off the dense eigenpair ones by %g (largest %g)", k, worst, largest);
  }

  /* Stop at chunk boundary nchunks + 1 (inside the second block of start vectors: 24 rows make blocks of
   * 16 and 8; the chunk is below M, so nchunks >= 2), restore into a new object, finish: the same
   * moments, bit for bit. */
  hm_conductivity_options o2 = opt;
  o2.stop = stop_now;
  const int nchunks = (M + opt.chunk - 1) / opt.chunk;
  stop_after = nchunks; /* stops at chunk boundary nchunks + 1: mid-block */
  hm_conductivity *c2;
  HM_TEST_OK(hm_conductivity_create(H, C, left, right, &o2, &c2));
  HM_TEST_FAILS(hm_conductivity_run(c2), HM_ERR_STOPPED, "stopped on request");
  int done, chunks, B;
  const size_t block = 2 * (size_t)C * M * M;
  HM_TEST_OK(hm_conductivity_block(c2, &B));
  HM_TEST_ASSERT(B == 16, "24 start vectors: blocks of %d, want 16", B);
  double *sum = malloc(sizeof(double) * block), *part = malloc(sizeof(double) * block * B);
  HM_TEST_OK(hm_conductivity_state(c2, &done, &chunks, sum, part, NULL));
  HM_TEST_ASSERT(nchunks >= 2 && done == B && chunks == 1,
                 "stopped at %d start vectors, %d chunks of %d (want %d, 1: mid-block)", done, chunks, nchunks, B);
  o2.stop = NULL;
  o2.bounds = HM_BOUNDS_GIVEN;
  HM_TEST_OK(hm_conductivity_interval(c2, &o2.emin, &o2.emax));
  hm_conductivity_destroy(&c2);
  HM_TEST_OK(hm_conductivity_create(H, C, left, right, &o2, &c2));
  HM_TEST_OK(hm_conductivity_restore(c2, done, chunks, sum, part, NULL));
  HM_TEST_OK(hm_conductivity_run(c2));
  double *mu2 = malloc(sizeof(double) * block), worst = 0;
  HM_TEST_OK(hm_conductivity_moments(c2, mu2, NULL));
  for (size_t i = 0; i < block; i++) worst = fmax(worst, fabs(mu2[i] - mu[i]));
  HM_TEST_ASSERT(worst == 0, "restored run differs from the uninterrupted one by %g (must be bit for bit)", worst);
  HM_TEST_FAILS(hm_conductivity_restore(c2, 0, 99, sum, part, NULL), HM_ERR_ARGUMENT, "out of range");
  HM_TEST_FAILS(hm_conductivity_restore(c2, 3, 0, sum, part, NULL), HM_ERR_ARGUMENT, "blocks are of 16");
  hm_conductivity_destroy(&c2);

  /* Random trace: the mean is the average of the per-vector estimates. */
  hm_conductivity_options o3 = opt;
  o3.trace = HM_TRACE_RANDOM;
  o3.vectors = 3;
  o3.chunk = 0;
  HM_TEST_OK(hm_conductivity_create(H, C, left, right, &o3, &c2));
  HM_TEST_OK(hm_conductivity_run(c2));
  double *per = malloc(sizeof(double) * block * 3);
  HM_TEST_OK(hm_conductivity_moments(c2, mu2, per));
  worst = 0;
  for (size_t i = 0; i < block; i++) worst = fmax(worst, fabs(mu2[i] - (per[i] + per[block + i] + per[2 * block + i]) / 3));
  HM_TEST_ASSERT(worst < 1e-14, "random-trace mean differs from the per-vector average by %g", worst);
  HM_TEST_ASSERT(fabs(mu2[0] - mu[0]) < 0.5 * fabs(mu[0]) && fabs(mu2[0] - mu[0]) > 1e-12,
                 "random mu_00 %g vs exact %g: not a stochastic estimate of it", mu2[0], mu[0]);
  hm_conductivity_destroy(&c2);
  /* Blocked = single-vector path: vector 0 of the block of 3 against a run of that vector alone
   * (column j of the phases depends on j only, so R = 1 gives vector 0 again, in blocks of 1). */
  o3.vectors = 1;
  HM_TEST_OK(hm_conductivity_create(H, C, left, right, &o3, &c2));
  HM_TEST_OK(hm_conductivity_block(c2, &B));
  HM_TEST_ASSERT(B == 1, "one random vector: blocks of %d, want 1", B);
  HM_TEST_OK(hm_conductivity_run(c2));
  HM_TEST_OK(hm_conductivity_moments(c2, mu2, NULL));
  worst = 0;
  double largest = 0;
  for (size_t i = 0; i < block; i++) worst = fmax(worst, fabs(mu2[i] - per[i])), largest = fmax(largest, fabs(per[i]));
  HM_TEST_ASSERT(worst < 1e-13 * largest, "vector 0 alone differs from vector 0 of a block of 3 by %g (largest %g)",
                 worst, largest);
  hm_conductivity_destroy(&c2);

  /* Bad inputs. */
  hm_conductivity_options bad = opt;
  bad.moments = 15;
  HM_TEST_FAILS(hm_conductivity_create(H, C, left, right, &bad, &c2), HM_ERR_ARGUMENT, "must be even");
  bad = opt;
  bad.trace = 5;
  HM_TEST_FAILS(hm_conductivity_create(H, C, left, right, &bad, &c2), HM_ERR_ARGUMENT, "HM_TRACE_EXACT");
  HM_TEST_FAILS(hm_conductivity_create(H, 0, left, right, &opt, &c2), HM_ERR_ARGUMENT, "allowed are 1 to");
  hm_matrix *wrong[1] = {NULL};
  HM_TEST_FAILS(hm_conductivity_create(H, 1, wrong, right, &opt, &c2), HM_ERR_ARGUMENT, "is NULL");

  hm_conductivity_destroy(&c);
  hm_matrix_destroy(&H);
  for (int a = 0; a < 2; a++) {
    hm_matrix_destroy(&V[a]);
    free(Vd[a]);
  }
  free(Hd);
  free(mu);
  free(mu2);
  free(ref);
  free(sum);
  free(part);
  free(per);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
