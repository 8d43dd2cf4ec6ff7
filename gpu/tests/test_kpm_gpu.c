/* KPM on the CUDA backend equals KPM on the CPU backend (moments to 1e-12 relative to their
 * scale, the interval bit-close) on a TI lattice with dots and disorder, R = 1, 3, 8, 12, 32, with
 * the random seed fresh from the clock; run on 1 and 2 ranks (the halo through host buffers).
 * The same at R = 1 and 32 from each device format (hm_matrix_set_format: CSR only, SELL at every
 * width with sigma chosen or 1), with the format the matrix reports and whether the KPM steps made a
 * block copy (hm_matrix_block_info). The GPU builds traverse the rows in small tiles (a block width
 * 2048 R: 18 / R sites per tile plane, at most), the CPU builds in 16 x 16 tiles. Also a
 * checkpoint round trip of the device vectors. Skips (77) where no device is visible. */
#include <math.h>
#include <stdlib.h>
#include "testing.h"
#include "../linalg/core/gpu_probe.h"

static void moments(hm_backend backend, int R, uint64_t seed, hm_format format, int sigma, double *mu, double *emin,
                    double *emax) {
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = 12; p.ny = 10; p.nz = 6;
  p.boundary[2] = HM_BC_OPEN;
  p.disorder_w = 1.0;
  p.disorder_seed = seed;
  p.dot_v0 = 0.3; p.dot_period_x = 6; p.dot_period_y = 5; p.dot_radius = 1.5;
  p.block_width = backend == HM_BACKEND_CUDA ? 2048 * R : 0;
  hm_matrix *H;
  HM_TEST_OK(hm_ti_build(ctx, &p, &H));
  HM_TEST_OK(hm_matrix_set_format(H, format, sigma));
  hm_format used;
  int chunk, got_sigma;
  double fill;
  HM_TEST_OK(hm_matrix_format_info(H, &used, &chunk, &got_sigma, &fill));
  if (backend == HM_BACKEND_CPU || format == HM_FORMAT_CSR)
    HM_TEST_ASSERT(used == HM_FORMAT_CSR && chunk == 0 && got_sigma == 0 && fill == 1,
                   "backend %d, format %d asked: reports format %d, C %d, sigma %d, fill %g", (int)backend, (int)format,
                   (int)used, chunk, got_sigma, fill);
  else
    HM_TEST_ASSERT(used == format && chunk == 32 && got_sigma >= 1 && (sigma == 0 || got_sigma == sigma) && fill >= 1,
                   "format %d, sigma %d asked: reports format %d, C %d, sigma %d, fill %g", (int)format, sigma, (int)used,
                   chunk, got_sigma, fill);
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = 300; /* more than one buffer of steps on the device */
  opt.vectors = R;
  opt.seed = seed;
  hm_kpm *kpm;
  HM_TEST_OK(hm_kpm_create(H, &opt, &kpm));
  HM_TEST_OK(hm_kpm_run(kpm));
  HM_TEST_OK(hm_kpm_moments(kpm, mu, NULL));
  /* the first step at a width of 4 or more made the 4 x 4 block copy (format AUTO; the
   * GPU tests need sm_80 or later): the sites' 4 orbitals read their 7 neighbour sites' rows once,
   * fewer than the 13 entries per row, and the disordered on-site blocks are the distinct ones */
  int made = -1;
  double reads = -1, distinct = -1;
  HM_TEST_OK(hm_matrix_block_info(H, &made, &reads, &distinct));
  const int want = backend == HM_BACKEND_CUDA && format == HM_FORMAT_AUTO && R >= 4;
  HM_TEST_ASSERT(made == want, "backend %d, format %d, R = %d: block copy %d, expected %d", (int)backend, (int)format,
                 R, made, want);
  if (want)
    HM_TEST_ASSERT(reads > 0 && reads <= 7 && distinct > 0 && distinct < 0.5,
                   "block copy: %g vector rows per row (want <= 7), %g of the value blocks distinct (want < 0.5)", reads,
                   distinct);
  else
    HM_TEST_ASSERT(reads == 0 && distinct == 1, "no block copy: reads %g, distinct %g (want 0, 1)", reads, distinct);
  hm_kpm_interval(kpm, emin, emax);
  hm_kpm_destroy(&kpm);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  uint64_t seed = hm_test_seed(); /* printed; HAMLET_TEST_SEED replays it */
  const int widths[] = {1, 3, 8, 12, 32}; /* 12: the block copy's ragged widths */
  double cpu[300], gpu[300], lo[2], hi[2];
  for (int w = 0; w < 5; w++) {
    moments(HM_BACKEND_CPU, widths[w], seed, HM_FORMAT_AUTO, 0, cpu, &lo[0], &hi[0]);
    /* every format at R = 1 and 32; the default (AUTO) at every width */
    const hm_format formats[4] = {HM_FORMAT_AUTO, HM_FORMAT_CSR, HM_FORMAT_SELL, HM_FORMAT_SELL};
    const int sigmas[4] = {0, 0, 0, 1};
    for (int f = 0; f < (widths[w] == 1 || widths[w] == 32 ? 4 : 1); f++) {
      moments(HM_BACKEND_CUDA, widths[w], seed, formats[f], sigmas[f], gpu, &lo[1], &hi[1]);
      double worst = 0;
      for (int n = 0; n < 300; n++) worst = fmax(worst, fabs(gpu[n] - cpu[n]));
      HM_TEST_ASSERT(worst < 1e-12, "R = %d, format %d, sigma %d: GPU moments differ from CPU by %g", widths[w],
                     (int)formats[f], sigmas[f], worst);
      HM_TEST_ASSERT(fabs(lo[1] - lo[0]) < 1e-12 * fabs(lo[0]) && fabs(hi[1] - hi[0]) < 1e-12 * fabs(hi[0]),
                     "R = %d: intervals differ: [%.17g, %.17g] vs [%.17g, %.17g]", widths[w], lo[1], hi[1], lo[0], hi[0]);
    }
  }
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_AUTO, &ctx));
  hm_backend b;
  hm_context_backend(ctx, &b);
  HM_TEST_ASSERT(b == HM_BACKEND_CUDA, "backend = auto with a visible device must pick cuda, got %d", (int)b);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
