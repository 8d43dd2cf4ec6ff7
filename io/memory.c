/* Peak host and device memory per rank, reduced to min and max: a batch user sizes the next job's
 * memory request from these (the largest rank decides whether it fits). */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "context_access.h"
#include "device_memory.h"
#include "error_macros.h"
#include "memory.h"

/* VmHWM is the resident high-water mark in kB; getrusage's ru_maxrss is the same figure on
 * Linux (kB), kept as the fallback where /proc is not mounted. */
int64_t hm_memory_host_peak(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (f) {
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
      if (strncmp(line, "VmHWM:", 6) == 0 && sscanf(line + 6, "%lld", &kb) == 1) break;
    fclose(f);
    if (kb >= 0) return (int64_t)kb * 1024;
  }
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return (int64_t)usage.ru_maxrss * 1024;
}

int hm_memory_gather(hm_context *ctx, hm_memory_peaks *peaks) {
  HM_CHECK(ctx && peaks, HM_ERR_ARGUMENT, "ctx or peaks is NULL");
  hm_backend backend;
  HM_CALL(hm_context_backend(ctx, &backend));
  /* min and max in one reduction: the max of the negated values is minus the min */
  int64_t mine[4] = {hm_memory_host_peak(), 0, 0, 0};
  mine[2] = backend == HM_BACKEND_CUDA ? (int64_t)hm_device_memory_peak() : 0;
  mine[1] = -mine[0];
  mine[3] = -mine[2];
  int64_t most[4];
  HM_CALL_MPI(MPI_Allreduce(mine, most, 4, MPI_INT64_T, MPI_MAX, hm_io_comm(ctx)));
  peaks->host_max = most[0];
  peaks->host_min = -most[1];
  peaks->device_max = most[2];
  peaks->device_min = -most[3];
  return HM_SUCCESS;
}

int hm_memory_write(hm_output *out, const hm_memory_peaks *peaks) {
  HM_CHECK(out && peaks, HM_ERR_ARGUMENT, "out or peaks is NULL");
  /* bytes as doubles: exact below 2^53 (8 PiB) */
  HM_CALL(hm_output_write_scalar(out, "/memory/host_peak_min", (double)peaks->host_min, "bytes"));
  HM_CALL(hm_output_write_scalar(out, "/memory/host_peak_max", (double)peaks->host_max, "bytes"));
  HM_CALL(hm_output_write_scalar(out, "/memory/device_peak_min", (double)peaks->device_min, "bytes"));
  HM_CALL(hm_output_write_scalar(out, "/memory/device_peak_max", (double)peaks->device_max, "bytes"));
  return HM_SUCCESS;
}
