/* The C benchmarks' memory roofline: copy bandwidth (read + write counted) in the backend's own
 * memory (host for cpu, device for cuda), best of 5 after a warm-up. On the host the copy runs on
 * all OpenMP threads (the kernels measured against it do; the table's copy is one memcpy, one core:
 * CPU steps were found at 0.6x that "floor") over arrays each thread first wrote (read from
 * never-written memory would stream the kernel's zero page). Needs linalg/core on the include path
 * (the backend's kernel table). Returns the status of a failed allocation or copy. */
#ifndef HAMLET_BENCH_COPY_H
#define HAMLET_BENCH_COPY_H
#include <mpi.h>
#include "hamlet.h"
#include "kernels.h"
#include "objects.h"

/* dst = src over n doubles, rows split statically over the threads (as the kernels split theirs). */
static inline void bench_copy_threads(double *dst, const double *src, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) dst[i] = src[i];
}

static inline int bench_copy_bandwidth(hm_context *ctx, size_t bytes, double *bytes_per_s) {
  const hm_kernels *k = ctx->kernels;
  const int host = !k->device_memory;
  const size_t n = bytes / sizeof(double);
  bytes = n * sizeof(double);
  void *a = NULL, *b = NULL;
  int st = k->alloc(bytes, &a);
  if (!st) st = k->alloc(bytes, &b);
  if (!st && host) {
    double *pa = a;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) pa[i] = 1.0; /* each thread's pages first written by it */
    bench_copy_threads(b, a, n);
  } else if (!st) {
    st = k->copy(b, a, bytes); /* warm up */
  }
  double best = 1e30;
  for (int rep = 0; rep < 5 && !st; rep++) {
    double t = MPI_Wtime();
    if (host) bench_copy_threads(b, a, n);
    else st = k->copy(b, a, bytes);
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
