// Sums of per-block partial sums, shared by the CUDA kernel families whose blocks each write one
// partial per column: out[c] = (or +=) the sum over blocks of partials[block][c], c < width. One
// block per column, a strided sum per thread, then a tree in shared memory: a fixed order
// (deterministic, no atomics on doubles) and no serial chain of loads.
#ifndef HAMLET_COLUMN_SUMS_CUH
#define HAMLET_COLUMN_SUMS_CUH
#include "cuda_check.h"

namespace {

constexpr int kColumnSumThreads = 256;

template <bool Add>
__global__ void column_sums_kernel(int blocks, int width, const double *partials, double *out, int split, int gap) {
  __shared__ double sh[kColumnSumThreads];
  const int c = blockIdx.x, t = threadIdx.x;
  double sum = 0;
  for (int blk = t; blk < blocks; blk += kColumnSumThreads) sum += partials[(size_t)blk * width + c];
  sh[t] = sum;
  __syncthreads();
  for (int h = kColumnSumThreads / 2; h > 0; h /= 2) {
    if (t < h) sh[t] += sh[t + h];
    __syncthreads();
  }
  double *o = out + c + (c >= split ? gap : 0);
  if (t == 0) *o = Add ? *o + sh[0] : sh[0];
}

// add = true: out[c] += the sums (the KPM dots accumulate over steps); false: out[c] = the sums.
// Columns from `split` on go `gap` places further (a slice's two halves into a wider block's dots).
inline int column_sums(bool add, int blocks, int width, const double *partials, double *out, int split = 0,
                       int gap = 0) {
  if (add) column_sums_kernel<true><<<width, kColumnSumThreads>>>(blocks, width, partials, out, split, gap);
  else column_sums_kernel<false><<<width, kColumnSumThreads>>>(blocks, width, partials, out, split, gap);
  HM_CHECK_LAUNCH("column_sums");
  return HM_SUCCESS;
}

} // namespace
#endif
