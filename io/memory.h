/* Peak memory of a run: host (the process's high-water resident set) and device (the most bytes
 * the GPU backend had allocated; 0 on CPU ranks), each as min and max over the ranks. */
#ifndef HAMLET_MEMORY_H
#define HAMLET_MEMORY_H
#include <stdint.h>
#include "hamlet/context.h"
#include "hamlet/output.h"

typedef struct {
  int64_t host_min, host_max;     /* bytes */
  int64_t device_min, device_max; /* bytes */
} hm_memory_peaks;

/* This process's peak resident set in bytes: VmHWM from /proc/self/status, else getrusage. */
int64_t hm_memory_host_peak(void);
/* Collective over ctx: every rank gets the min and max over the ranks. */
int hm_memory_gather(hm_context *ctx, hm_memory_peaks *peaks);
/* /memory: host_peak_min, host_peak_max, device_peak_min, device_peak_max (bytes). Collective. */
int hm_memory_write(hm_output *out, const hm_memory_peaks *peaks);
#endif
