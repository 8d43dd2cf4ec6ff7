// The complex 4 x 4 block product on the FP64 tensor cores (mma m8n8k4, sm_80 and later), shared by
// the stored block copy (block_cuda.cu) and the matrix-free lattice operator (stencil_mma_cuda.cu).
// In real arithmetic a block's product is, per column pair h of the block (x rows 2 h and 2 h + 1)
// and tile of 8 columns, one mma: the 8 x 4 A holds the coefficients that take (Re x, Im x) of the
// pair's two rows to [Re Y; Im Y], the 4 x 8 B the two rows' real and imaginary parts. Fragments
// (PTX ISA): A element (lane / 4, lane % 4), B element (lane % 4, lane / 4), C elements (lane / 4,
// 2 (lane % 4) + i).
#ifndef HAMLET_MMA_F64_CUH
#define HAMLET_MMA_F64_CUH

__device__ __forceinline__ void mma_f64(double &c0, double &c1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap(); // never launched: callers check for sm_80 or later first
#else
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
      : "+d"(c0), "+d"(c1)
      : "d"(a), "d"(b));
#endif
}

// The A coefficient lane L takes for column pair h of a 4 x 4 complex block (entries row-major, (re,
// im) pairs): A fragment row m = L / 4 is block row m % 4, the real part of the product for m < 4,
// the imaginary part above; column q = L % 4 is x's row 2 h + q / 2 of the pair, its real part for
// even q, its imaginary part for odd q: Re Y = Re A Re x - Im A Im x, Im Y = Im A Re x + Re A Im x.
__host__ __device__ inline double hm_mma_coefficient(const double *entries, int L, int h) {
  const int row = (L >> 2) & 3, imag_out = L >> 4, q = L & 3, slot = 4 * row + 2 * h + (q >> 1);
  const double re = entries[2 * slot], im = entries[2 * slot + 1];
  return imag_out ? ((q & 1) ? re : im) : ((q & 1) ? -im : re);
}
// The end of a warp-per-group KPM step (block_cuda.cu, stencil_mma_cuda.cu): each lane holds the
// dots of its column 2 (lane % 4) + lane / 16 of 8 NT columns over its rows; the lanes of a column
// (rows lane / 4 % 4) are summed, then the block's warps in a fixed order into
// partials[block][2 k] (columns c0 .. c0 + present). sums: shared [warps][2][8 NT].
template <int NT>
__device__ inline void mma_block_dots(double (&vv)[NT], double (&wv)[NT], double (*sums)[2][8 * NT], int nwarps,
                                      int c0, int k, int present, double *partials) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, cl = 2 * (lane & 3) + (lane >> 4);
#pragma unroll
  for (int t = 0; t < NT; t++)
#pragma unroll
    for (int off = 4; off < 16; off *= 2) {
      vv[t] += __shfl_xor_sync(0xffffffffu, vv[t], off);
      wv[t] += __shfl_xor_sync(0xffffffffu, wv[t], off);
    }
  if (((lane >> 2) & 3) == 0)
#pragma unroll
    for (int t = 0; t < NT; t++) {
      sums[warp][0][8 * t + cl] = vv[t];
      sums[warp][1][8 * t + cl] = wv[t];
    }
  __syncthreads();
  if ((int)threadIdx.x < 16 * NT && (int)threadIdx.x % (8 * NT) < present) {
    const int which = threadIdx.x / (8 * NT), col = threadIdx.x % (8 * NT);
    double sum = 0;
    for (int j = 0; j < nwarps; j++) sum += sums[j][which][col];
    partials[(size_t)blockIdx.x * 2 * k + which * k + c0 + col] = sum;
  }
}
#endif
