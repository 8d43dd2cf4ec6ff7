/* The CUDA backend's kept state (scratch buffers, cuBLAS/cuSOLVER handles, staging, streams) lives
 * while a CUDA context does: after the last context is destroyed no device memory of hamlet's
 * allocator is left, and a new context makes the state again and computes the same KPM moments,
 * bit for bit (R = 8 takes the block kernels and the fused step, so their scratch is made, freed
 * and made again). Two contexts at once: destroying one keeps the state for the other. Skips (77)
 * where no device is visible. */
#include <string.h>
#include "testing.h"
#include "../linalg/core/device_memory.h"

enum { M = 64, R = 8 };

static void kpm_moments(hm_context *ctx, double *mu) {
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = p.ny = 6;
  p.nz = 4;
  hm_matrix *H = NULL;
  HM_TEST_OK(hm_ti_build(ctx, &p, &H));
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = M;
  opt.vectors = R;
  opt.seed = 7;
  hm_kpm *kpm = NULL;
  HM_TEST_OK(hm_kpm_create(H, &opt, &kpm));
  HM_TEST_OK(hm_kpm_run(kpm));
  HM_TEST_OK(hm_kpm_moments(kpm, mu, NULL));
  hm_kpm_destroy(&kpm);
  hm_matrix_destroy(&H);
}

static void round_trip(double *mu) {
  hm_context *ctx = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CUDA, &ctx));
  kpm_moments(ctx, mu);
  HM_TEST_ASSERT(hm_device_memory_peak() > 0, "the CUDA backend allocated nothing");
  hm_context_destroy(&ctx);
  HM_TEST_ASSERT(hm_device_memory_in_use() == 0, "%zu bytes of device memory left after the last context",
                 hm_device_memory_in_use());
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  double first[M], second[M], third[M];
  round_trip(first);
  round_trip(second);
  HM_TEST_ASSERT(memcmp(first, second, sizeof first) == 0, "moments differ after the state was made again");
  /* one context kept open: destroying the other frees nothing the kept one uses */
  hm_context *kept = NULL, *other = NULL;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CUDA, &kept));
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CUDA, &other));
  kpm_moments(other, third);
  hm_context_destroy(&other);
  kpm_moments(kept, third);
  HM_TEST_ASSERT(memcmp(first, third, sizeof first) == 0, "moments differ with a second context destroyed");
  hm_context_destroy(&kept);
  HM_TEST_ASSERT(hm_device_memory_in_use() == 0, "%zu bytes left", hm_device_memory_in_use());
  return hm_test_finish();
}
