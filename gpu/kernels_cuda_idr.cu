// CUDA kernels of IDR(s) (Anzt et al. 2016): the per-system combination of up to 64 blocks in one
// pass, the fused residual / solution / smoothing update that also reduces the norms the next
// branch needs, so each vector is read once per step, and the merged tall-skinny multi-dot P^H Y
// (all s x k shadow-space products of a step in one pass over P and Y). The reduction is deterministic: every thread
// keeps one column (the grid stride is a multiple of k), a block sums its threads per column in a
// fixed order, and the block partials are summed by column_sums (column_sums.cuh: one block per
// column, fixed order); only 5k doubles go to the host.
#include <cstring>
#include <cuda_runtime.h>
#include "gpu_state.h"
#include "async_upload.cuh"
#include "column_sums.cuh"
#include "cuda_check.h"
#include "device_buffer.cuh"
#include "kernels_cpu_shift.h"
#include "kernels_cuda_idr.h"
#include "occupancy.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kSums = 5; // <r|r>, Re and Im <dr|r>, <dr|dr>, spare

struct Blocks {
  const double *p[64];
};

hm_device_buffers scratch_buffer; // coefficients, block partial sums, final sums (per device)
double *scratch = nullptr;

int scratch_at_least(size_t doubles) {
  HM_CALL(hm_device_buffer_grow(&scratch_buffer, doubles));
  scratch = scratch_buffer.p;
  return HM_SUCCESS;
}

int grid_for(int64_t work) {
  int64_t b = (work + kThreads - 1) / kThreads;
  return (int)(b < 65535 ? (b > 0 ? b : 1) : 65535);
}

template <bool Complex>
__global__ void combine_kernel(int64_t n, int k, int m, Blocks X, const double *c, const double *a, const double *W,
                               double *Y) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * k; e += (int64_t)gridDim.x * blockDim.x) {
    const int j = (int)(e % k);
    if (Complex) {
      const double wr = W[2 * e], wi = W[2 * e + 1];
      double re = a[2 * j] * wr - a[2 * j + 1] * wi, im = a[2 * j] * wi + a[2 * j + 1] * wr;
      for (int l = 0; l < m; l++) {
        const double cr = c[2 * (l * k + j)], ci = c[2 * (l * k + j) + 1];
        const double xr = X.p[l][2 * e], xi = X.p[l][2 * e + 1];
        re += cr * xr - ci * xi;
        im += cr * xi + ci * xr;
      }
      Y[2 * e] = re;
      Y[2 * e + 1] = im;
    } else {
      double v = a[j] * W[e];
      for (int l = 0; l < m; l++) v += c[l * k + j] * X.p[l][e];
      Y[e] = v;
    }
  }
}

// coef: beta (k scalars) then sigma (k scalars). partial: gridDim.x x k x kSums.
template <bool Complex>
__global__ void update_kernel(int64_t n, int k, int64_t stride, const double *coef, const double *g, const double *u,
                              double *r, double *x, double *dr, double *dx, double *partial) {
  __shared__ double acc[kThreads][kSums];
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  if (tid < stride) {
    const int j = (int)(tid % k);
    const int t = Complex ? 2 : 1;
    const double br = coef[t * j], bi = Complex ? coef[t * j + 1] : 0;
    const double sr = coef[t * (k + j)], si = Complex ? coef[t * (k + j) + 1] : 0;
    for (int64_t e = tid; e < n * k; e += stride) {
      if (Complex) {
        const bool move = br != 0 || bi != 0; // a stopped system: g, u may hold anything (NaN)
        const double gr = move ? g[2 * e] : 0, gi = move ? g[2 * e + 1] : 0;
        const double ur = move ? u[2 * e] : 0, ui = move ? u[2 * e + 1] : 0;
        const double bgr = br * gr - bi * gi, bgi = br * gi + bi * gr;
        const double bur = br * ur - bi * ui, bui = br * ui + bi * ur;
        const double rr = r[2 * e] - bgr, ri = r[2 * e + 1] - bgi;
        r[2 * e] = rr;
        r[2 * e + 1] = ri;
        x[2 * e] += bur;
        x[2 * e + 1] += bui;
        s0 += rr * rr + ri * ri;
        if (dr) {
          const double d0 = dr[2 * e], d1 = dr[2 * e + 1], x0 = dx[2 * e], x1 = dx[2 * e + 1];
          const double dre = sr * d0 - si * d1 + bgr, dim = sr * d1 + si * d0 + bgi;
          dr[2 * e] = dre;
          dr[2 * e + 1] = dim;
          dx[2 * e] = sr * x0 - si * x1 - bur;
          dx[2 * e + 1] = sr * x1 + si * x0 - bui;
          s1 += dre * rr + dim * ri;
          s2 += dre * ri - dim * rr;
          s3 += dre * dre + dim * dim;
        }
      } else {
        const bool move = br != 0; // a stopped system: g, u may hold anything (NaN)
        const double bg = move ? br * g[e] : 0, bu = move ? br * u[e] : 0;
        const double rv = r[e] - bg;
        r[e] = rv;
        x[e] += bu;
        s0 += rv * rv;
        if (dr) {
          const double d = sr * dr[e] + bg;
          dr[e] = d;
          dx[e] = sr * dx[e] - bu;
          s1 += d * rv;
          s3 += d * d;
        }
      }
    }
  }
  acc[threadIdx.x][0] = s0;
  acc[threadIdx.x][1] = s1;
  acc[threadIdx.x][2] = s2;
  acc[threadIdx.x][3] = s3;
  acc[threadIdx.x][4] = 0;
  __syncthreads();
  // per column c: the threads t of this block with (block start + t) % k == c, in order
  const int64_t start = blockIdx.x * (int64_t)blockDim.x;
  for (int c = threadIdx.x; c < k; c += blockDim.x) {
    double v[kSums] = {0, 0, 0, 0, 0};
    int t0 = (int)((c - start % k + k) % k);
    for (int t = t0; t < (int)blockDim.x; t += k)
      if (start + t < stride)
        for (int q = 0; q < kSums; q++) v[q] += acc[t][q];
    for (int q = 0; q < kSums; q++) partial[((int64_t)blockIdx.x * k + c) * kSums + q] = v[q];
  }
}

// P^H Y, partial sums per block. np = s*k entries. With np < blockDim, a block runs lb = blockDim/np
// lanes of np threads (thread t: entry t % np, lane t / np) over rows lane, lane + L, ... (L lanes
// in the grid), then sums its lanes per entry in lane order; with np >= blockDim, one lane per
// block and each thread takes entries t, t + blockDim, ... Entry order never depends on s or k
// beyond the lane layout, and the sums are in a fixed order (deterministic).
template <bool Complex>
__global__ void multidot_kernel(int64_t n, int s, const double *P, int k, const double *Y, double *partial) {
  __shared__ double sh[kThreads][2];
  const int np = s * k;
  const int lb = np >= (int)blockDim.x ? 1 : (int)blockDim.x / np;
  const int64_t L = (int64_t)gridDim.x * lb;
  const int per_thread = np >= (int)blockDim.x ? (np + blockDim.x - 1) / blockDim.x : 1;
  for (int q = 0; q < per_thread; q++) {
    const int t = threadIdx.x;
    const int p = np >= (int)blockDim.x ? t + q * blockDim.x : t % np;
    const int lane_local = np >= (int)blockDim.x ? 0 : t / np;
    const bool active = p < np && lane_local < lb;
    double re = 0, im = 0;
    if (active) {
      const int a = p / k, j = p % k;
      for (int64_t i = (int64_t)blockIdx.x * lb + lane_local; i < n; i += L) {
        if (Complex) {
          const double pr = P[2 * (i * s + a)], pi = P[2 * (i * s + a) + 1];
          const double yr = Y[2 * (i * k + j)], yi = Y[2 * (i * k + j) + 1];
          re += pr * yr + pi * yi;
          im += pr * yi - pi * yr;
        } else {
          re += P[i * s + a] * Y[i * k + j];
        }
      }
    }
    if (lb == 1) {
      if (active) {
        partial[2 * ((int64_t)blockIdx.x * np + p)] = re;
        partial[2 * ((int64_t)blockIdx.x * np + p) + 1] = im;
      }
    } else {
      sh[t][0] = re;
      sh[t][1] = im;
      __syncthreads();
      if (t < np) {
        double sr = 0, si = 0;
        for (int l = 0; l < lb; l++) {
          sr += sh[l * np + t][0];
          si += sh[l * np + t][1];
        }
        partial[2 * ((int64_t)blockIdx.x * np + t)] = sr;
        partial[2 * ((int64_t)blockIdx.x * np + t) + 1] = si;
      }
    }
  }
}

// At most one wave of blocks for grid-stride kernel `fn`: every SM at its occupancy for the kernel.
// More blocks than that run a partial second wave: measured on the H100 (2026-11-23, convection-
// diffusion, 5.1 M rows), the update kernel's 1024 blocks were 1.55 waves at 58-62% of the DRAM
// bandwidth, and the multi-dot's 512 blocks filled 0.78 of a wave (68%). A kernel's wave is asked
// for once (these launches are on the solver's per-iteration path).
template <class Kernel>
int one_wave(Kernel fn, int64_t want, int *blocks) {
  int per_sm = 1, sms = 1;
  HM_CALL(resident_blocks((const void *)fn, kThreads, kCarveoutUnset, &per_sm, &sms));
  const int64_t wave = (int64_t)per_sm * sms;
  *blocks = (int)(want < wave ? (want > 0 ? want : 1) : wave);
  return HM_SUCCESS;
}

}  // namespace

int hm_cuda_idr_multidot(hm_scalar type, int64_t n, int s, const double *P, int k, const double *Y, double *G) {
  const int np = s * k;
  const int lb = np >= kThreads ? 1 : kThreads / np;
  const int64_t want = (n + lb - 1) / lb / 8; // about 8 rows per lane, or one wave
  int blocks = 1;
  if (type == HM_COMPLEX) HM_CALL(one_wave(multidot_kernel<true>, want, &blocks));
  else HM_CALL(one_wave(multidot_kernel<false>, want, &blocks));
  const size_t npart = (size_t)blocks * np * 2, nout = (size_t)np * 2;
  HM_CALL(scratch_at_least(npart + nout));
  double *partial = scratch, *out = scratch + npart;
  if (type == HM_COMPLEX) multidot_kernel<true><<<blocks, kThreads>>>(n, s, P, k, Y, partial);
  else multidot_kernel<false><<<blocks, kThreads>>>(n, s, P, k, Y, partial);
  HM_CHECK_LAUNCH("idr_multidot");
  // A column per (entry, re/im): one thread summing all blocks serially took 30-80 us here.
  HM_CALL(column_sums(false, blocks, 2 * np, partial, out));
  double *h = new double[nout];
  cudaError_t e = cudaMemcpy(h, out, nout * sizeof(double), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess)
    for (int p = 0; p < np; p++) {
      G[(int)type * p] = h[2 * p];
      if (type == HM_COMPLEX) G[2 * p + 1] = h[2 * p + 1];
    }
  delete[] h;
  HM_CALL_CUDA(e);
  return HM_SUCCESS;
}

int hm_cuda_idr_combine(hm_scalar type, int64_t n, int k, int m, const double *const *X, const double *c,
                        const double *a, const double *W, double *Y) {
  if (n == 0) return HM_SUCCESS;
  if (m > 64) return hm_error_raise(HM_ERR_ARGUMENT, __FILE__, __LINE__, __func__, "%d blocks > 64", m);
  const size_t t = (size_t)type, nc = (size_t)m * k * t, na = (size_t)k * t;
  HM_CALL(scratch_at_least(nc + na));
  HM_CALL(upload_async(scratch, c, nc, a, na));
  Blocks blocks{};
  for (int l = 0; l < m; l++) blocks.p[l] = X[l];
  int grid = 1;
  if (type == HM_COMPLEX) {
    HM_CALL(one_wave(combine_kernel<true>, grid_for(n * k), &grid));
    combine_kernel<true><<<grid, kThreads>>>(n, k, m, blocks, scratch, scratch + nc, W, Y);
  } else {
    HM_CALL(one_wave(combine_kernel<false>, grid_for(n * k), &grid));
    combine_kernel<false><<<grid, kThreads>>>(n, k, m, blocks, scratch, scratch + nc, W, Y);
  }
  HM_CHECK_LAUNCH("idr_combine");
  return HM_SUCCESS;
}

int hm_cuda_idr_update(hm_scalar type, int64_t n, int k, const double *beta, const double *sigma, const double *g,
                       const double *u, double *r, double *x, double *dr, double *dx, double *dots) {
  const size_t t = (size_t)type, nco = 2 * (size_t)k * t;
  const int64_t min_blocks = (k + kThreads - 1) / kThreads; // the stride must hold k columns
  int blocks = 1;
  if (type == HM_COMPLEX) HM_CALL(one_wave(update_kernel<true>, (n * k + kThreads - 1) / kThreads, &blocks));
  else HM_CALL(one_wave(update_kernel<false>, (n * k + kThreads - 1) / kThreads, &blocks));
  if (blocks < min_blocks) blocks = (int)min_blocks;
  const int64_t stride = ((int64_t)blocks * kThreads / k) * k;
  const size_t npart = (size_t)blocks * k * kSums, nout = (size_t)k * kSums;
  HM_CALL(scratch_at_least(nco + npart + nout));
  double *coef = scratch, *partial = scratch + nco, *out = partial + npart;
  HM_CALL(upload_async(coef, beta, (size_t)k * t, dr ? sigma : beta, (size_t)k * t));
  if (type == HM_COMPLEX)
    update_kernel<true><<<blocks, kThreads>>>(n, k, stride, coef, g, u, r, x, dr, dx, partial);
  else
    update_kernel<false><<<blocks, kThreads>>>(n, k, stride, coef, g, u, r, x, dr, dx, partial);
  HM_CHECK_LAUNCH("idr_update");
  HM_CALL(column_sums(false, blocks, k * kSums, partial, out));
  double host[5 * 64];
  double *h = k <= 64 ? host : new double[nout];
  cudaError_t e = cudaMemcpy(h, out, nout * sizeof(double), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess)
    for (int j = 0; j < k; j++) {
      double *d = dots + 3 * t * j;
      d[0] = h[j * kSums];
      d[t] = h[j * kSums + 1];
      d[2 * t] = h[j * kSums + 3];
      if (t == 2) {
        d[1] = 0;
        d[3] = h[j * kSums + 2];
        d[5] = 0;
      }
    }
  if (h != host) delete[] h;
  HM_CALL_CUDA(e);
  return HM_SUCCESS;
}

namespace {

// Multi-shift IDR(s): a thread per (row, packed column p < ncol) of blocks ncol wide, consecutive
// threads on consecutive entries, so every block is one contiguous stream. Column p holds
// system cols[p] (its v entry: right-hand side cols[p] % nv). The coefficients (a: ncol, then c:
// m x ncol complex) and cols (ints, two to a double) sit in scratch. Each entry is read from every
// D_l before Dnew (one of them) is written.
__global__ void shift_update_kernel(int64_t n, int nv, int ncol, int m, const double2 *__restrict__ v, Blocks D,
                                    const double2 *__restrict__ coef, const int *__restrict__ cols, double2 *Dnew,
                                    double2 *__restrict__ x) {
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n * ncol; t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t row = t / ncol;
    const int p = (int)(t - row * ncol);
    const size_t e = (size_t)t;
    const double2 a = coef[p], vv = v[(size_t)row * nv + cols[p] % nv];
    double2 w = make_double2(a.x * vv.x - a.y * vv.y, a.x * vv.y + a.y * vv.x);
    for (int l = 0; l < m; l++) {
      const double2 c = coef[(size_t)(l + 1) * ncol + p];
      const double2 d = reinterpret_cast<const double2 *>(D.p[l])[e];
      w.x += c.x * d.x - c.y * d.y;
      w.y += c.x * d.y + c.y * d.x;
    }
    Dnew[e] = w;
    const double2 xs = x[e];
    x[e] = make_double2(xs.x + w.x, xs.y + w.y);
  }
}

}  // namespace

int hm_cuda_idr_shift_update(hm_scalar type, int64_t n, int nv, int ns, int ncol, const int *cols, int m,
                             const double *v, const double *a, const double *const *D, const double *c, double *Dnew,
                             double *x) {
  HM_CALL(hm_idr_shift_update_check(type, nv, ns, ncol, cols, m));
  if (ncol == 0 || n == 0) return HM_SUCCESS;
  const size_t nc = 2 * (size_t)ncol * (m + 1), words = ((size_t)ncol + 1) / 2;
  HM_CALL(scratch_at_least(nc + words));
  // the coefficients and the list (two ints to a double) in one stream-ordered upload
  double *host = new double[nc + words];
  int *ints = reinterpret_cast<int *>(host + nc);
  memcpy(host, a, sizeof(double) * 2 * (size_t)ncol);
  memcpy(host + 2 * (size_t)ncol, c, sizeof(double) * 2 * (size_t)ncol * m);
  memcpy(ints, cols, sizeof(int) * (size_t)ncol);
  if (ncol % 2) ints[ncol] = 0;
  const int st = upload_async(scratch, host, nc + words);
  delete[] host;
  HM_CALL(st);
  Blocks blocks = {};
  for (int l = 0; l < m; l++) blocks.p[l] = D[l];
  int grid = 1;
  HM_CALL(one_wave(shift_update_kernel, grid_for(n * ncol), &grid));
  shift_update_kernel<<<grid, kThreads>>>(n, nv, ncol, m, reinterpret_cast<const double2 *>(v), blocks,
                                          reinterpret_cast<const double2 *>(scratch),
                                          reinterpret_cast<const int *>(scratch + nc),
                                          reinterpret_cast<double2 *>(Dnew), reinterpret_cast<double2 *>(x));
  HM_CHECK_LAUNCH("idr_shift_update");
  return HM_SUCCESS;
}

void hm_kernels_cuda_idr_release_state() {
  hm_device_buffer_free(&scratch_buffer);
  scratch = nullptr;
  upload_slots_release();
}
