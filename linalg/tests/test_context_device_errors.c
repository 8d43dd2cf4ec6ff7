/* hm_context_create_on_device refuses a device number that is not a visible device, with a message
 * that names it and the visible count, on every rank (the ranks agree before the collective part):
 * on a machine without CUDA built or without a device (CI) as on a GPU node. */
#include <string.h>
#include "testing.h"
#include "gpu_probe.h" /* hm_gpu_compiled, hm_gpu_device_count (linalg/core, internal) */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int devices = 0;
  if (hm_gpu_compiled()) HM_TEST_OK(hm_gpu_device_count(&devices));
  hm_context *ctx = (hm_context *)&rank; /* not NULL: a refusal must set it to NULL */

  HM_TEST_FAILS(hm_context_create_on_device(MPI_COMM_WORLD, 0, NULL), HM_ERR_ARGUMENT, "ctx is NULL");
  HM_TEST_FAILS(hm_context_create_on_device(MPI_COMM_WORLD, -1, &ctx), HM_ERR_ARGUMENT,
                "CUDA device -1 asked: a device number is >= 0");
  HM_TEST_ASSERT(ctx == NULL, "a refused context is not NULL");

  /* one past the visible devices: an argument error naming the count; without CUDA, a backend error */
  char needle[128];
  if (!hm_gpu_compiled())
    snprintf(needle, sizeof needle, "CUDA device %d asked, but this hamlet was built without CUDA", devices);
  else if (devices == 0)
    snprintf(needle, sizeof needle, "CUDA device 0 asked, but 0 CUDA devices are visible here");
  else
    snprintf(needle, sizeof needle, "CUDA device %d asked, but %d CUDA device%s visible here: allowed 0 to %d",
             devices, devices, devices == 1 ? " is" : "s are", devices - 1);
  HM_TEST_FAILS(hm_context_create_on_device(MPI_COMM_WORLD, devices, &ctx),
                hm_gpu_compiled() ? HM_ERR_ARGUMENT : HM_ERR_BACKEND, needle);
  HM_TEST_ASSERT(ctx == NULL, "a refused context is not NULL");

  /* ranks that disagree: rank 0 asks a bad number, the others a good one (where there is one) or a
   * bad one; every rank returns an error, none waits in the collective part */
  const int mine = rank == 0 ? -5 : (devices > 0 ? 0 : 1000);
  const int st = hm_context_create_on_device(MPI_COMM_WORLD, mine, &ctx);
  HM_TEST_ASSERT(st != HM_SUCCESS && ctx == NULL, "rank %d, device %d: status %d with another rank's device bad", rank,
                 mine, st);
  if (rank > 0 && devices > 0)
    HM_TEST_ASSERT(strstr(hm_error_message(), "another rank's CUDA device could not be used") != NULL,
                   "rank %d: the message does not say that another rank failed:\n%s", rank, hm_error_message());
  hm_error_clear();

  /* the default creation is not disturbed by the refusals */
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  HM_TEST_OK(hm_context_destroy(&ctx));
  return hm_test_finish();
}
