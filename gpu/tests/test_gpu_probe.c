/* GPU path alive: the device axpy equals the CPU one on fresh random data (seed printed;
 * HAMLET_TEST_SEED replays it). Skips (77) with no GPU, fails where HAMLET_TEST_REQUIRE names gpu. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "testing.h"
#include "gpu_probe.h"
#include "../linalg/core/gpu_probe.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  enum { N = 100003 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *ref = malloc(N * sizeof *ref);
  srand((unsigned)hm_test_seed());
  for (int i = 0; i < N; i++) {
    x[i] = rand() / (double)RAND_MAX - 0.5;
    y[i] = ref[i] = rand() / (double)RAND_MAX - 0.5;
  }
  const double a = 1.75;
  HM_TEST_OK(hm_gpu_axpy_selftest(N, a, x, y));
  for (int i = 0; i < N; i++) ref[i] += a * x[i];
  double worst = 0;
  for (int i = 0; i < N; i++) worst = fmax(worst, fabs(y[i] - ref[i]));
  HM_TEST_ASSERT(worst <= 1e-15, "device axpy differs from the host by %g", worst);
  free(x); free(y); free(ref);
  return hm_test_finish();
}
