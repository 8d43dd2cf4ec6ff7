/* The conductivity moment matrix on a periodic L x L Qi-Wu-Zhang lattice (N = 2 L^2), one
 * component (xy), timed per start vector and split into Chebyshev steps, velocity products and
 * dense Gram products, each next to its bound:
 *   Chebyshev: B start vectors advance together (hm_conductivity_block); the block step's floor =
 *     bytes a CSR SpMMV + recursion update must move (entries 16 B + column 4 B, rows 8 B, once per
 *     block; vectors 5 x 16 B per row and column: read x, prev, write next, copy into the chunk) /
 *     bandwidth, per vector = that / B;
 *   Gram rate = 8 N M^2 flops of the complex products / seconds, against the backend's ZGEMM rate
 *     measured in the same run before it (hm_mvec_gram of two min(N, 2e6) x 256 blocks, best of 3;
 *     --zgemm overrides).
 * Usage: bench_conductivity [--L n] [--moments M] [--vectors R] [--chunk c] [--block B] [--cuda]
 *                           [--bandwidth GB/s (2985: H100 copy)] [--zgemm TFLOP/s] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../linalg/kpm/conductivity_timing.h"
#include "../linalg/tests/conductivity_testlib.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int L = 64, M = 256, R = 2, chunk = 0, block = 0, cuda = 0;
  double bandwidth = 2985, zgemm = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--L") && i + 1 < argc) L = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--moments") && i + 1 < argc) M = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--vectors") && i + 1 < argc) R = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) chunk = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--block") && i + 1 < argc) block = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--bandwidth") && i + 1 < argc) bandwidth = atof(argv[++i]);
    else if (!strcmp(argv[i], "--zgemm") && i + 1 < argc) zgemm = atof(argv[++i]);
    else if (!strcmp(argv[i], "--cuda")) cuda = 1;
    else {
      fprintf(stderr, "unknown argument %s (see the usage at the top of bench/conductivity_bench.c)\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  const double lattice[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, tau[6] = {0};
  double blk[QWZ_BLOCKS * 8], vx[QWZ_BLOCKS * 8], vy[QWZ_BLOCKS * 8];
  qwz_blocks(1, 0, blk);
  HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 0, vx));
  HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 1, vy));
  hm_matrix *H, *Vx, *Vy;
  HM_TEST_OK(stencil_matrix_periodic(ctx, L, L, 2, QWZ_BLOCKS, qwz_shift, blk, &H));
  HM_TEST_OK(stencil_matrix_periodic(ctx, L, L, 2, QWZ_BLOCKS, qwz_shift, vx, &Vx));
  HM_TEST_OK(stencil_matrix_periodic(ctx, L, L, 2, QWZ_BLOCKS, qwz_shift, vy, &Vy));
  int64_t n, nnz;
  hm_matrix_info(H, &n, &nnz, NULL);
  hm_conductivity_options opt;
  hm_conductivity_options_default(&opt);
  opt.moments = M;
  opt.vectors = R;
  opt.chunk = chunk;
  opt.block = block;
  opt.bounds = HM_BOUNDS_GIVEN;
  opt.emin = -3.1;
  opt.emax = 3.1;
  /* before the run, whose chunks may take most of the device memory (at N = 10^7 on the H200 the
   * reference blocks did not fit beside them) */
  if (zgemm <= 0) { /* the backend's ZGEMM (cuBLAS on cuda) at a Gram shape with a large inner dimension */
    /* at most 2e6 rows: two N x 256 blocks at N = 10^7 (82 GB) would not fit an H100 */
    const int64_t nref = n < 2000000 ? n : 2000000;
    hm_dist *dist;
    hm_mvec *X, *Y;
    HM_TEST_OK(hm_dist_create(ctx, nref, 1, 1.0, &dist));
    HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 256, &X));
    HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 256, &Y));
    HM_TEST_OK(hm_mvec_random_phase(X, 1));
    HM_TEST_OK(hm_mvec_random_phase(Y, 2));
    double *G = malloc(sizeof(double) * 2 * 256 * 256), best = INFINITY;
    for (int rep = 0; rep < 4; rep++) {
      const double t = MPI_Wtime();
      HM_TEST_OK(hm_mvec_gram(X, Y, G)); /* copies G to the host: the device is done when it returns */
      if (rep) best = fmin(best, MPI_Wtime() - t);
    }
    zgemm = 8.0 * nref * 256.0 * 256.0 / best / 1e12;
    free(G);
    hm_mvec_destroy(&X);
    hm_mvec_destroy(&Y);
    hm_dist_destroy(&dist);
  }
  hm_conductivity *c;
  hm_matrix *left[1] = {Vx}, *right[1] = {Vy};
  HM_TEST_OK(hm_conductivity_create(H, 1, left, right, &opt, &c));
  double t0 = MPI_Wtime();
  HM_TEST_OK(hm_conductivity_run(c));
  double total = MPI_Wtime() - t0, cheb, vel, gram;
  int used_chunk, B;
  hm_conductivity_info(c, NULL, NULL, NULL, NULL, &used_chunk, NULL, NULL, NULL);
  hm_conductivity_block(c, &B);
  hm_conductivity_timing(c, &cheb, &vel, &gram);
  const int nchunks = (M + used_chunk - 1) / used_chunk, nblocks = (R + B - 1) / B;
  const double steps = (double)M + (double)M * nchunks; /* left + right sweeps per block */
  const double block_bytes = 20.0 * nnz + 8.0 * n + 5 * 16.0 * n * B;
  const double floor_vector = nblocks * steps * block_bytes / (bandwidth * 1e9) / R; /* per start vector */
  const double gram_flops = 8.0 * n * (double)nchunks * used_chunk * (double)nchunks * used_chunk;
  int rank;
  hm_context_rank(ctx, &rank, NULL);
  if (rank == 0) {
    printf("conductivity moments: N = %lld, nnz = %lld, M = %d, R = %d, block = %d, chunk = %d (%d chunks), %s\n",
           (long long)n, (long long)nnz, M, R, B, used_chunk, nchunks, cuda ? "cuda" : "cpu");
    printf("per vector: %.4f s total, Chebyshev %.4f s (%.0f block steps of %d, floor %.4f s at %.0f GB/s: %.2fx), "
           "velocity %.4f s, Gram %.4f s (%.2f TFLOP/s vs ZGEMM %.2f (min(N, 2e6) x 256 Gram, same run): %.0f%%)\n",
           total / R, cheb / R, nblocks * steps, B, floor_vector, bandwidth, cheb / R / floor_vector, vel / R, gram / R,
           gram_flops * R / gram / 1e12, zgemm, 100 * gram_flops * R / gram / 1e12 / zgemm);
  }
  hm_conductivity_destroy(&c);
  hm_matrix_destroy(&H);
  hm_matrix_destroy(&Vx);
  hm_matrix_destroy(&Vy);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
