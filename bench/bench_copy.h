/* The C benchmarks' memory roofline: copy bandwidth (read + write counted) in the backend's own
 * memory (host for cpu, device for cuda), best of 5 after a warm-up. Needs linalg/core on the
 * include path (the backend's kernel table). Returns the status of a failed allocation or copy. */
#ifndef HAMLET_BENCH_COPY_H
#define HAMLET_BENCH_COPY_H
#include <mpi.h>
#include "hamlet.h"
#include "kernels.h"
#include "objects.h"

static inline int bench_copy_bandwidth(hm_context *ctx, size_t bytes, double *bytes_per_s) {
  const hm_kernels *k = ctx->kernels;
  void *a = NULL, *b = NULL;
  int st = k->alloc(bytes, &a);
  if (!st) st = k->alloc(bytes, &b);
  if (!st) st = k->copy(b, a, bytes); /* warm up */
  double best = 1e30;
  for (int rep = 0; rep < 5 && !st; rep++) {
    double t = MPI_Wtime();
    st = k->copy(b, a, bytes);
    char probe;
    if (!st) st = k->download(&probe, (char *)b + bytes - 1, 1); /* waits for the copy */
    t = MPI_Wtime() - t;
    if (t < best) best = t;
  }
  if (a) k->release(a);
  if (b) k->release(b);
  *bytes_per_s = st ? 0 : 2.0 * (double)bytes / best;
  return st;
}
#endif
