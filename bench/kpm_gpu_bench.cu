/* GPU KPM / SpMV benchmark: hamlet's CUDA kernels next to cuSPARSE + cuBLAS compositions and the
 * memory roofline, all from one run on one GPU.
 *   bench_kpm_gpu [--nx 200 --ny 100 --nz 40] [--steps 50] [--R 1,4,8,16,32,64] [--copy-mib 2048]
 * Bandwidth: device-to-device cudaMemcpy, bytes read + written per second, best of 5.
 * SpMV (k = 1): roofline bytes = nnz (16 + 4) + (N + 1) 8 + 16 N (x) + 16 N (y).
 * KPM step W = 2a (H - b) V - W with <V_j|V_j>, Re<W_j|V_j> per column, per vector-step:
 *   (a) hamlet's fused kpm_step on an N x R row-major block, on the CSR arrays, on the
 *       SELL-C-sigma copy the CUDA table's prepare makes and on the 4 x 4 block copy (tensor cores,
 *       any R; made here before any timing, as a first KPM step would make it) (the
 *       library routes each width to one of them: 'lib'),
 *   (b) one vector at a time: cuSPARSE SpMV (W = 2a H V - W via beta = -1), cublasZaxpy (-2ab V),
 *       two cublasZdotc,
 *   (c) the whole block: cuSPARSE SpMM (row-major, n = R, beta = -1), cublasZaxpy on the flat
 *       block, one small kernel for the 2R column dots,
 * next to the Kreutzer floor (20 nnz / R + 48 N) bytes / copy bandwidth.
 * (a) and (c) (and (b) for column 0) must give the same dots after one step from the same data
 * and summed over the timed steps, and hamlet's SpMV the same y as cuSPARSE, or the program
 * exits 1 (after printing everything). Exit 77: no CUDA device; 2: bad arguments.
 * --sweep r1,...: also time the SELL kernel's launch shapes (hm_sell_tuning) at these R (and the
 * SpMV's at k = 1), the CSR kernel's register caps and the block KPM step's shapes, to choose the
 * defaults; --block-sweep r1,...: the block KPM step's shapes only.
 * --traversal r1,...: also time the CSR KPM kernel's traversals (hm_cuda_csr_traversal) at these R. */
#define MPICH_SKIP_MPICXX 1
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "hamlet.h"
extern "C" {
#include "kernels.h"
#include "objects.h"
}

#include "../gpu/block_cuda.h"
#include "gpu_bench_common.h"
#include "../gpu/sell_cuda.h"
#include "../physics/ti/ti_internal.h"


/* ---- small device kernels ---------------------------------------------------------------------- */
/* x[i*R + j] = amp exp(i theta(seed, i, j)): entry (i, j) does not depend on R, so column 0 of any
 * block equals the single vector filled with R = 1. */
__global__ void fill_phases(int64_t n, int R, uint64_t seed, double amp, double2 *x) {
  const int64_t len = n * R;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < len; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = e / R, j = e % R;
    const double th = 6.283185307179586 * (double)(mix64(mix64(seed + (uint64_t)i) + (uint64_t)j) >> 11) * 0x1p-53;
    double s, c;
    sincos(th, &s, &c);
    x[e] = make_double2(amp * c, amp * s);
  }
}



/* dots[j] += sum_i |V_ij|^2, dots[R + j] += sum_i Re(conj(W_ij) V_ij) over a row-major N x R block.
 * Threads: x = a column within a chunk of blockDim.x columns (blockIdx.y), y = rows; blockDim.y is
 * a power of two for the tree reduction. */
__global__ void column_dots(int64_t n, int R, const double2 *V, const double2 *W, double *dots) {
  extern __shared__ double part[];
  const int nt = blockDim.x * blockDim.y, t = threadIdx.y * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.x + threadIdx.x;
  double vv = 0, wv = 0;
  if (j < R)
    for (int64_t i = blockIdx.x * (int64_t)blockDim.y + threadIdx.y; i < n; i += (int64_t)gridDim.x * blockDim.y) {
      const double2 v = V[i * R + j], w = W[i * R + j];
      vv += v.x * v.x + v.y * v.y;
      wv += w.x * v.x + w.y * v.y;
    }
  part[t] = vv;
  part[nt + t] = wv;
  __syncthreads();
  for (int s = blockDim.y / 2; s > 0; s >>= 1) {
    if (threadIdx.y < s) {
      part[t] += part[t + s * blockDim.x];
      part[nt + t] += part[nt + t + s * blockDim.x];
    }
    __syncthreads();
  }
  if (threadIdx.y == 0 && j < R) {
    atomicAdd(&dots[j], part[threadIdx.x]);
    atomicAdd(&dots[R + j], part[nt + threadIdx.x]);
  }
}

static unsigned grid_for(int64_t n, int threads) {
  return (unsigned)std::max<int64_t>(1, std::min<int64_t>((n + threads - 1) / threads, 8192));
}

static void launch_column_dots(int64_t n, int R, const double2 *V, const double2 *W, double *dots) {
  int cx = 1;
  while (cx < R && cx < 32) cx *= 2;
  const dim3 block(cx, 256 / cx);
  const dim3 grid((unsigned)std::max<int64_t>(1, std::min<int64_t>((n + block.y - 1) / block.y, 1024)),
                  (unsigned)((R + cx - 1) / cx));
  column_dots<<<grid, block, 2 * 256 * sizeof(double)>>>(n, R, V, W, dots);
  CK_LAUNCH();
}

static void fill(int64_t n, int R, uint64_t seed, double amp, double2 *x) {
  fill_phases<<<grid_for(n * R, 256), 256>>>(n, R, seed, amp, x);
  CK_LAUNCH();
}

/* Wall time after the device finished everything queued (whatever streams the kernels use). */
static double synced_now() {
  CK_CUDA(cudaDeviceSynchronize());
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* ---- the matrix on the device, in hamlet's and cuSPARSE's index types ------------------------- */
struct DeviceMatrix {
  int32_t n;
  int64_t nnz;
  int64_t *rowptr;          /* hamlet: 64-bit row offsets */
  int32_t *col;             /* shared with cuSPARSE when its indices are 32-bit */
  double *val;              /* complex: 2 doubles per entry */
  int32_t *rows;            /* the row list hamlet's kernels take (the matrix's traversal order) */
  void *sp_rowptr, *sp_col; /* cuSPARSE: both index arrays of one type */
  cusparseIndexType_t sp_index;
  struct hm_csr_view sell;  /* CSR with the SELL-C-sigma copy of the row list (route picks the kernels) */
};

/* The library's own copy of H's row list (SELL-C-sigma, and the block copy where it pays), as
 * hm_matrix makes it on the CUDA backend; d.rows holds the list. */
static void prepare_copy(DeviceMatrix *d, const struct hm_matrix_s *H) {
  const struct hm_csr_view host = {H->csr.nrows, H->csr.rowptr, H->csr.col, H->csr.val, nullptr, nullptr};
  const int32_t *list = H->interior_rows, count = d->n, *key = d->rows;
  void *format = nullptr;
  const hm_kernels *K = hm_kernels_cuda();
  if (!K->prepare) die(__FILE__, __LINE__, "hm_kernels_cuda()", "the CUDA table lacks prepare");
  CK_HM(K->prepare(HM_COMPLEX, &host, 1, &list, &count, &key, HM_FORMAT_AUTO, 0, &format));
  d->sell = {d->n, d->rowptr, d->col, d->val, format};
}

/* The matrix and its traversal order (the row list hamlet's solvers use: on one rank, all rows in
 * the builder's cache-friendly order). */
static DeviceMatrix upload(const struct hm_matrix_s *H) {
  const hm_csr *c = &H->csr;
  DeviceMatrix d = {};
  d.n = c->nrows;
  d.nnz = c->rowptr[c->nrows];
  const size_t n1 = (size_t)d.n + 1, nnz = (size_t)d.nnz;
  CK_CUDA(cudaMalloc(&d.rowptr, n1 * sizeof(int64_t)));
  CK_CUDA(cudaMalloc(&d.col, nnz * sizeof(int32_t)));
  CK_CUDA(cudaMalloc(&d.val, nnz * 2 * sizeof(double)));
  CK_CUDA(cudaMalloc(&d.rows, (size_t)d.n * sizeof(int32_t)));
  CK_CUDA(cudaMemcpy(d.rowptr, c->rowptr, n1 * sizeof(int64_t), cudaMemcpyHostToDevice));
  CK_CUDA(cudaMemcpy(d.col, c->col, nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
  CK_CUDA(cudaMemcpy(d.val, c->val, nnz * 2 * sizeof(double), cudaMemcpyHostToDevice));
  CK_CUDA(cudaMemcpy(d.rows, H->interior_rows, (size_t)d.n * sizeof(int32_t), cudaMemcpyHostToDevice));
  /* cuSPARSE wants row offsets and columns of one index type: 32-bit where nnz allows. */
  if (d.nnz <= INT32_MAX) {
    std::vector<int32_t> rp(n1);
    for (size_t i = 0; i < n1; i++) rp[i] = (int32_t)c->rowptr[i];
    CK_CUDA(cudaMalloc(&d.sp_rowptr, n1 * sizeof(int32_t)));
    CK_CUDA(cudaMemcpy(d.sp_rowptr, rp.data(), n1 * sizeof(int32_t), cudaMemcpyHostToDevice));
    d.sp_col = d.col;
    d.sp_index = CUSPARSE_INDEX_32I;
  } else {
    std::vector<int64_t> cl(nnz);
    for (size_t e = 0; e < nnz; e++) cl[e] = c->col[e];
    CK_CUDA(cudaMalloc(&d.sp_col, nnz * sizeof(int64_t)));
    CK_CUDA(cudaMemcpy(d.sp_col, cl.data(), nnz * sizeof(int64_t), cudaMemcpyHostToDevice));
    d.sp_rowptr = d.rowptr;
    d.sp_index = CUSPARSE_INDEX_64I;
  }
  prepare_copy(&d, H);
  return d;
}

static void release(DeviceMatrix *d) {
  hm_kernels_cuda()->unprepare((void *)d->sell.format);
  if (d->sp_rowptr != d->rowptr) CK_CUDA(cudaFree(d->sp_rowptr));
  if (d->sp_col != d->col) CK_CUDA(cudaFree(d->sp_col));
  CK_CUDA(cudaFree(d->rowptr));
  CK_CUDA(cudaFree(d->col));
  CK_CUDA(cudaFree(d->val));
  CK_CUDA(cudaFree(d->rows));
}

/* The rows traversed in the tiles cut for block width `width` (hm_ti_params.block_width, as `hamlet
 * run` sets it on GPU ranks): the row list and the library's copies made again where the tile
 * changes (the CSR arrays, and so the cuSPARSE peers, stay). */
static void use_tiles(DeviceMatrix *d, struct hm_matrix_s *H, hm_ti_params *p, int width) {
  int64_t tx0, ty0, tx, ty;
  hm_ti_tile(p, &tx0, &ty0);
  p->block_width = width;
  hm_ti_tile(p, &tx, &ty);
  if (tx == tx0 && ty == ty0) return;
  const double t0 = MPI_Wtime();
  CK_HM(hm_ti_order_rows(p, 0, H));
  hm_kernels_cuda()->unprepare((void *)d->sell.format);
  CK_CUDA(cudaMemcpy(d->rows, H->interior_rows, (size_t)d->n * sizeof(int32_t), cudaMemcpyHostToDevice));
  prepare_copy(d, H);
  const double order_s = MPI_Wtime() - t0; /* what hm_ti_build on a GPU spent twice before it took the key */
  const void *blk = nullptr; /* made now, before any timing */
  CK_HM(hm_cuda_sell_block(d->sell.format, 0, 1, &blk));
  printf("R = %d: rows traversed in tile columns of %lld x %lld sites (ordered, with the SELL copy, in %.2f s)\n",
         width, (long long)tx, (long long)ty, order_s);
}

static cusparseSpMatDescr_t sparse_descr(const DeviceMatrix &d) {
  cusparseSpMatDescr_t A;
  CK_SPARSE(cusparseCreateCsr(&A, d.n, d.n, d.nnz, d.sp_rowptr, d.sp_col, d.val, d.sp_index, d.sp_index,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_C_64F));
  return A;
}

/* ---- everything one run shares ---------------------------------------------------------------- */
struct Bench {
  const hm_kernels *K;
  DeviceMatrix M;
  cusparseHandle_t sp;
  cublasHandle_t bl;   /* pointer mode device: scalars and results in d_small */
  double *d_small;     /* [0..1] -1, [2..3] -2ab, [4..] results */
  double a, b;         /* KPM scale and shift */
  double bw;           /* copy bandwidth, bytes/s */
  int steps;
  int failed;
  hm_sell_tuning lib; /* the library's defaults: SELL up to lib.kpm_max_k / spmmv_max_k, CSR above */
  double sell_spmv_us; /* hamlet's SpMV on the SELL copy */
  bool has_block;      /* the library made a block copy of the row list (block_cuda.h) */
  double spmv_roof_us; /* its roofline */
};

/* A cuSPARSE algorithm we may try: a status other than success skips it with the reason. */
static bool sparse_ok(cusparseStatus_t s, const char *what, const char *alg) {
  if (s == CUSPARSE_STATUS_SUCCESS) return true;
  printf("  (cuSPARSE %s %s skipped: %s)\n", what, alg, cusparseGetErrorString(s));
  return false;
}

/* ||x - y|| / ||y|| over n complex entries (tmp: n complex of scratch). */
static double rel_diff(Bench &B, int n, const double2 *x, const double2 *y, double2 *tmp) {
  CK_CUDA(cudaMemcpy(tmp, x, (size_t)n * sizeof(double2), cudaMemcpyDeviceToDevice));
  const cuDoubleComplex *m1 = (const cuDoubleComplex *)B.d_small;
  CK_BLAS(cublasZaxpy(B.bl, n, m1, (const cuDoubleComplex *)y, 1, (cuDoubleComplex *)tmp, 1));
  CK_BLAS(cublasDznrm2(B.bl, n, (const cuDoubleComplex *)tmp, 1, B.d_small + 4));
  CK_BLAS(cublasDznrm2(B.bl, n, (const cuDoubleComplex *)y, 1, B.d_small + 5));
  double r[2];
  CK_CUDA(cudaMemcpy(r, B.d_small + 4, sizeof r, cudaMemcpyDeviceToHost));
  return r[0] / std::max(r[1], 1e-300);
}

/* The cuSPARSE SpMV the KPM peer (b) uses: the fastest algorithm found in the SpMV section. */
struct SpMV {
  const char *name;
  cusparseSpMVAlg_t alg;
  cusparseSpMatDescr_t A;
  void *buf;
  double us;
};

/* The library's prepared matrix, its products routed to the SELL, block or CSR kernels. */
static const struct hm_csr_view *route(Bench &B, bench_route r) {
  route_products(r);
  return &B.M.sell;
}

/* ---- SpMV (k = 1) ------------------------------------------------------------------------------ */
static SpMV bench_spmv(Bench &B) {
  const int n = B.M.n, reps = std::max(B.steps, 10);
  const double nnz = (double)B.M.nnz;
  const double bytes = nnz * (16 + 4) + (n + 1.0) * 8 + 16.0 * n + 16.0 * n;
  double2 *x, *y, *yref, *tmp;
  CK_CUDA(cudaMalloc(&x, (size_t)n * sizeof(double2)));
  CK_CUDA(cudaMalloc(&y, (size_t)n * sizeof(double2)));
  CK_CUDA(cudaMalloc(&yref, (size_t)n * sizeof(double2)));
  CK_CUDA(cudaMalloc(&tmp, (size_t)n * sizeof(double2)));
  fill(n, 1, 11, 1.0, x);
  printf("SpMV y = H x (k = 1), %d calls each; roofline bytes = nnz (16 + 4) + (N + 1) 8 + 16 N (x) + 16 N (y)"
         " = %.1f MB -> %.1f us at the copy bandwidth\n",
         reps, bytes / 1e6, 1e6 * bytes / B.bw);
  printf("  %-28s %12s %10s %12s %10s\n", "kernel", "us/call", "GB/s", "of roofline", "|y-y_h|/|y_h|");

  const struct hm_csr_view *A = route(B, ROUTE_CSR);
  CK_HM(B.K->spmmv(HM_COMPLEX, A, 1, B.M.rows, n, (const double *)x, (double *)yref));
  double t = synced_now();
  for (int r = 0; r < reps; r++) CK_HM(B.K->spmmv(HM_COMPLEX, A, 1, B.M.rows, n, (const double *)x, (double *)yref));
  t = (synced_now() - t) / reps;
  printf("  %-28s %12.2f %10.1f %11.0f%% %10s\n", "hamlet spmmv CSR", 1e6 * t, bytes / t / 1e9, 100 * bytes / B.bw / t, "-");
  A = route(B, ROUTE_SELL);
  CK_HM(B.K->spmmv(HM_COMPLEX, A, 1, B.M.rows, n, (const double *)x, (double *)y));
  t = synced_now();
  for (int r = 0; r < reps; r++) CK_HM(B.K->spmmv(HM_COMPLEX, A, 1, B.M.rows, n, (const double *)x, (double *)y));
  t = (synced_now() - t) / reps;
  {
    const double err = rel_diff(B, n, y, yref, tmp);
    printf("  %-28s %12.2f %10.1f %11.0f%% %10.1e\n", "hamlet spmmv SELL-32-sigma", 1e6 * t, bytes / t / 1e9,
           100 * bytes / B.bw / t, err);
    if (!(err <= 1e-12)) {
      printf("  MISMATCH: hamlet spmmv SELL and CSR differ by %.3e (relative 2-norm; allowed 1e-12)\n", err);
      B.failed = 1;
    }
    B.sell_spmv_us = 1e6 * t;
    B.spmv_roof_us = 1e6 * bytes / B.bw;
  }

  const struct { const char *name; cusparseSpMVAlg_t alg; } algs[] = {
      {"ALG_DEFAULT", CUSPARSE_SPMV_ALG_DEFAULT}, {"CSR_ALG1", CUSPARSE_SPMV_CSR_ALG1}, {"CSR_ALG2", CUSPARSE_SPMV_CSR_ALG2}};
  SpMV best = {nullptr, CUSPARSE_SPMV_ALG_DEFAULT, nullptr, nullptr, 1e30};
  const cuDoubleComplex one = {1, 0}, zero = {0, 0};
  cusparseDnVecDescr_t dx, dy;
  CK_SPARSE(cusparseCreateDnVec(&dx, n, x, CUDA_C_64F));
  CK_SPARSE(cusparseCreateDnVec(&dy, n, y, CUDA_C_64F));
  for (const auto &al : algs) {
    cusparseSpMatDescr_t A = sparse_descr(B.M);
    size_t sz = 0;
    void *buf = nullptr;
    bool ok = sparse_ok(cusparseSpMV_bufferSize(B.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, dx, &zero, dy,
                                                CUDA_C_64F, al.alg, &sz), "SpMV", al.name);
    if (ok) {
      CK_CUDA(cudaMalloc(&buf, std::max<size_t>(sz, 16)));
      ok = sparse_ok(cusparseSpMV_preprocess(B.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, dx, &zero, dy,
                                             CUDA_C_64F, al.alg, buf), "SpMV_preprocess", al.name) &&
           sparse_ok(cusparseSpMV(B.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, dx, &zero, dy, CUDA_C_64F,
                                  al.alg, buf), "SpMV", al.name);
    }
    if (ok) {
      t = synced_now();
      for (int r = 0; r < reps; r++)
        CK_SPARSE(cusparseSpMV(B.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, dx, &zero, dy, CUDA_C_64F, al.alg, buf));
      t = (synced_now() - t) / reps;
      const double err = rel_diff(B, n, y, yref, tmp);
      char label[64];
      snprintf(label, sizeof label, "cuSPARSE SpMV %s", al.name);
      printf("  %-28s %12.2f %10.1f %11.0f%% %10.1e\n", label, 1e6 * t, bytes / t / 1e9, 100 * bytes / B.bw / t, err);
      if (!(err <= 1e-12)) {
        printf("  MISMATCH: hamlet spmmv and cuSPARSE %s differ by %.3e (relative 2-norm; allowed 1e-12)\n", al.name, err);
        B.failed = 1;
      }
      if (1e6 * t < best.us) {
        if (best.A) {
          CK_SPARSE(cusparseDestroySpMat(best.A));
          CK_CUDA(cudaFree(best.buf));
        }
        best = {al.name, al.alg, A, buf, 1e6 * t};
        continue;
      }
    }
    CK_SPARSE(cusparseDestroySpMat(A));
    if (buf) CK_CUDA(cudaFree(buf));
  }
  if (!best.A) die(__FILE__, __LINE__, "cusparseSpMV", "no cuSPARSE SpMV algorithm ran on this matrix");
  CK_SPARSE(cusparseDestroyDnVec(dx));
  CK_SPARSE(cusparseDestroyDnVec(dy));
  CK_CUDA(cudaFree(x));
  CK_CUDA(cudaFree(y));
  CK_CUDA(cudaFree(yref));
  CK_CUDA(cudaFree(tmp));
  printf("  the KPM peer (b) uses cuSPARSE SpMV %s\n\n", best.name);
  return best;
}

/* ---- KPM (b): one vector at a time with cuSPARSE SpMV + cuBLAS --------------------------------- */
/* One step: out = 2a H in - out (SpMV, beta = -1); out += -2ab in; res = <in|in>, <out|in>. */
static void step_b(Bench &B, const SpMV &S, cusparseDnVecDescr_t din, cusparseDnVecDescr_t dout, const double2 *in,
                   double2 *out, double *res) {
  const cuDoubleComplex alpha = {2 * B.a, 0}, beta = {-1, 0};
  CK_SPARSE(cusparseSpMV(B.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, S.A, din, &beta, dout, CUDA_C_64F, S.alg, S.buf));
  const int n = B.M.n;
  CK_BLAS(cublasZaxpy(B.bl, n, (const cuDoubleComplex *)(B.d_small + 2), (const cuDoubleComplex *)in, 1,
                      (cuDoubleComplex *)out, 1));
  CK_BLAS(cublasZdotc(B.bl, n, (const cuDoubleComplex *)in, 1, (const cuDoubleComplex *)in, 1, (cuDoubleComplex *)res));
  CK_BLAS(cublasZdotc(B.bl, n, (const cuDoubleComplex *)out, 1, (const cuDoubleComplex *)in, 1,
                      (cuDoubleComplex *)(res + 2)));
}

/* Returns us per vector-step; dots_b = {<V|V>, Re<W|V>} after one step from the seeded data. */
static double bench_kpm_b(Bench &B, const SpMV &S, double dots_b[2]) {
  const int n = B.M.n;
  double2 *buf[2];
  double *res;
  cusparseDnVecDescr_t d[2];
  for (int i = 0; i < 2; i++) {
    CK_CUDA(cudaMalloc(&buf[i], (size_t)n * sizeof(double2)));
    CK_SPARSE(cusparseCreateDnVec(&d[i], n, buf[i], CUDA_C_64F));
  }
  CK_CUDA(cudaMalloc(&res, 4 * sizeof(double)));
  fill(n, 1, 101, 1.0, buf[0]);
  fill(n, 1, 202, 0.5, buf[1]);
  step_b(B, S, d[0], d[1], buf[0], buf[1], res);
  double h[4];
  CK_CUDA(cudaMemcpy(h, res, sizeof h, cudaMemcpyDeviceToHost));
  dots_b[0] = h[0];
  dots_b[1] = h[2];
  double t = synced_now();
  for (int s = 0; s < B.steps; s++) step_b(B, S, d[(s + 1) % 2], d[s % 2], buf[(s + 1) % 2], buf[s % 2], res);
  t = (synced_now() - t) / B.steps;
  for (int i = 0; i < 2; i++) {
    CK_SPARSE(cusparseDestroyDnVec(d[i]));
    CK_CUDA(cudaFree(buf[i]));
  }
  CK_CUDA(cudaFree(res));
  return 1e6 * t;
}

/* ---- KPM (a) and (c) on an N x R block --------------------------------------------------------- */
struct SpMM {
  const char *name;
  cusparseSpMMAlg_t alg;
  cusparseSpMatDescr_t A;
  void *buf;
};

static void step_a(Bench &B, const struct hm_csr_view *A, int R, const double2 *V, double2 *W, double *dots) {
  CK_HM(B.K->kpm_step(HM_COMPLEX, A, R, B.M.rows, B.M.n, B.a, B.b, (const double *)V, (double *)W, dots));
}

/* Seconds per step of (a) on view A from the seeded blocks (one warm-up step); the summed dots
 * land in `dots` (2R, device). */
static double time_a(Bench &B, const struct hm_csr_view *A, int R, double2 *V, double2 *W, double *dots, int steps) {
  fill(B.M.n, R, 101, 1.0, V);
  fill(B.M.n, R, 202, 0.5, W);
  CK_CUDA(cudaMemset(dots, 0, 2 * R * sizeof(double)));
  double2 *blk[2] = {V, W};
  step_a(B, A, R, V, W, dots); /* warm up */
  double t = synced_now();
  for (int s = 0; s < steps; s++) step_a(B, A, R, blk[s % 2], blk[(s + 1) % 2], dots);
  return (synced_now() - t) / steps;
}

/* The dots of one step of (a) on view A from the seeded blocks, into out (2R). */
static void one_step_a(Bench &B, const struct hm_csr_view *A, int R, double2 *V, double2 *W, double *dots,
                       std::vector<double> &out) {
  fill(B.M.n, R, 101, 1.0, V);
  fill(B.M.n, R, 202, 0.5, W);
  CK_CUDA(cudaMemset(dots, 0, 2 * R * sizeof(double)));
  step_a(B, A, R, V, W, dots);
  CK_CUDA(cudaMemcpy(out.data(), dots, 2 * R * sizeof(double), cudaMemcpyDeviceToHost));
}

/* W = 2a H V - W (SpMM, beta = -1), W += -2ab V on the flat block, then the 2R column dots. */
static void step_c(Bench &B, const SpMM &S, int R, cusparseDnMatDescr_t dV, cusparseDnMatDescr_t dW, const double2 *V,
                   double2 *W, double *dots) {
  const cuDoubleComplex alpha = {2 * B.a, 0}, beta = {-1, 0};
  CK_SPARSE(cusparseSpMM(B.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, S.A, dV,
                         &beta, dW, CUDA_C_64F, S.alg, S.buf));
  CK_BLAS(cublasZaxpy_64(B.bl, (int64_t)B.M.n * R, (const cuDoubleComplex *)(B.d_small + 2),
                         (const cuDoubleComplex *)V, 1, (cuDoubleComplex *)W, 1));
  launch_column_dots(B.M.n, R, V, W, dots);
}

/* The fastest cuSPARSE SpMM algorithm for this R (mean of a few SpMM calls each), or die if none runs. */
static SpMM pick_spmm(Bench &B, int R, cusparseDnMatDescr_t dV, cusparseDnMatDescr_t dW) {
  const struct { const char *name; cusparseSpMMAlg_t alg; } algs[] = {{"ALG_DEFAULT", CUSPARSE_SPMM_ALG_DEFAULT},
                                                                    {"CSR_ALG1", CUSPARSE_SPMM_CSR_ALG1},
                                                                    {"CSR_ALG2", CUSPARSE_SPMM_CSR_ALG2},
                                                                    {"CSR_ALG3", CUSPARSE_SPMM_CSR_ALG3}};
  const cuDoubleComplex alpha = {2 * B.a, 0}, beta = {-1, 0};
  const auto opn = CUSPARSE_OPERATION_NON_TRANSPOSE;
  SpMM best = {nullptr, CUSPARSE_SPMM_ALG_DEFAULT, nullptr, nullptr};
  double best_t = 1e30;
  char skipped[256] = "", timed[256] = "";
  const int calls = 5;
  for (const auto &al : algs) {
    cusparseSpMatDescr_t A = sparse_descr(B.M);
    size_t sz = 0;
    void *buf = nullptr;
    cusparseStatus_t s = cusparseSpMM_bufferSize(B.sp, opn, opn, &alpha, A, dV, &beta, dW, CUDA_C_64F, al.alg, &sz);
    if (s == CUSPARSE_STATUS_SUCCESS) {
      CK_CUDA(cudaMalloc(&buf, std::max<size_t>(sz, 16)));
      s = cusparseSpMM_preprocess(B.sp, opn, opn, &alpha, A, dV, &beta, dW, CUDA_C_64F, al.alg, buf);
    }
    if (s == CUSPARSE_STATUS_SUCCESS) s = cusparseSpMM(B.sp, opn, opn, &alpha, A, dV, &beta, dW, CUDA_C_64F, al.alg, buf);
    if (s == CUSPARSE_STATUS_SUCCESS) {
      double t = synced_now();
      for (int r = 0; r < calls; r++)
        CK_SPARSE(cusparseSpMM(B.sp, opn, opn, &alpha, A, dV, &beta, dW, CUDA_C_64F, al.alg, buf));
      t = (synced_now() - t) / calls;
      snprintf(timed + strlen(timed), sizeof timed - strlen(timed), " %s %.1f", al.name, 1e6 * t);
      if (t < best_t) {
        if (best.A) {
          CK_SPARSE(cusparseDestroySpMat(best.A));
          CK_CUDA(cudaFree(best.buf));
        }
        best = {al.name, al.alg, A, buf};
        best_t = t;
        continue;
      }
    } else {
      snprintf(skipped + strlen(skipped), sizeof skipped - strlen(skipped), " %s (%s)", al.name, cusparseGetErrorString(s));
    }
    CK_SPARSE(cusparseDestroySpMat(A));
    if (buf) CK_CUDA(cudaFree(buf));
  }
  printf("  R = %d: cuSPARSE SpMM us/call (%d calls):%s%s%s\n", R, calls, timed, skipped[0] ? "; skipped:" : "", skipped);
  if (!best.A) die(__FILE__, __LINE__, "cusparseSpMM", "no cuSPARSE SpMM algorithm ran on this matrix");
  return best;
}

/* Same dots within tol: relative to the larger value, and for Re<W|V> (which may nearly cancel)
 * to <V|V> as well, the natural size of both when the spectrum of a(H - b) is inside [-1, 1]. */
static int compare_dots(const char *what, int R, int cols, const double *x, const double *y, int ldx, int ldy,
                        double tol) {
  int bad = 0;
  for (int j = 0; j < cols; j++) {
    const double scale_vv = std::max(fabs(x[j]), fabs(y[j]));
    const double scale_wv = std::max({fabs(x[ldx + j]), fabs(y[ldy + j]), scale_vv});
    const double evv = fabs(x[j] - y[j]) / std::max(scale_vv, 1e-300);
    const double ewv = fabs(x[ldx + j] - y[ldy + j]) / std::max(scale_wv, 1e-300);
    if (!(evv <= tol && ewv <= tol)) {
      if (bad < 4)
        printf("  MISMATCH R = %d column %d (%s): <V|V> %.15e vs %.15e, Re<W|V> %.15e vs %.15e (rel %.2e, %.2e; allowed %.0e)\n",
               R, j, what, x[j], y[j], x[ldx + j], y[ldy + j], evv, ewv, tol);
      bad++;
    }
  }
  return bad;
}

struct Row {
  int R;
  double a_us, s_us, k_us, c_us, floor_us, l_us; /* (a) CSR, SELL, block; (c), floor, (a) as the library routes it */
  const char *c_alg;
};

static Row bench_block(Bench &B, int R, double2 *V, double2 *W, double *dots, const double dots_b[2], bool check_b) {
  const int64_t n = B.M.n;
  Row row = {R, 0, 0, 0, 0, 0, 0, nullptr};
  std::vector<double> ha(2 * R), hc(2 * R), hs(2 * R), hk(2 * R);
  cusparseDnMatDescr_t dV, dW;
  CK_SPARSE(cusparseCreateDnMat(&dV, n, R, R, V, CUDA_C_64F, CUSPARSE_ORDER_ROW));
  CK_SPARSE(cusparseCreateDnMat(&dW, n, R, R, W, CUDA_C_64F, CUSPARSE_ORDER_ROW));
  fill(n, R, 101, 1.0, V);
  fill(n, R, 202, 0.5, W);
  SpMM S = pick_spmm(B, R, dV, dW);
  row.c_alg = S.name;

  /* one step of (a) and of (c) from the same data: same dots */
  one_step_a(B, route(B, ROUTE_CSR), R, V, W, dots, ha);
  one_step_a(B, route(B, ROUTE_SELL), R, V, W, dots, hs);
  if (B.has_block) one_step_a(B, route(B, ROUTE_BLOCK), R, V, W, dots, hk);
  fill(n, R, 101, 1.0, V);
  fill(n, R, 202, 0.5, W);
  CK_CUDA(cudaMemset(dots, 0, 2 * R * sizeof(double)));
  step_c(B, S, R, dV, dW, V, W, dots);
  CK_CUDA(cudaMemcpy(hc.data(), dots, 2 * R * sizeof(double), cudaMemcpyDeviceToHost));
  if (compare_dots("(a) vs (c)", R, R, ha.data(), hc.data(), R, R, 1e-10)) B.failed = 1;
  if (compare_dots("(a) SELL vs (c)", R, R, hs.data(), hc.data(), R, R, 1e-10)) B.failed = 1;
  if (B.has_block && compare_dots("(a) block vs (c)", R, R, hk.data(), hc.data(), R, R, 1e-10)) B.failed = 1;
  {
    size_t free_b = 0, total_b = 0;
    CK_CUDA(cudaMemGetInfo(&free_b, &total_b));
    printf("  R = %d: device memory in use %.1f of %.1f GiB (V, W, matrix copies, cuSPARSE buffers)\n", R,
           (total_b - free_b) / 1073741824.0, total_b / 1073741824.0);
  }
  if (check_b && compare_dots("(a) vs (b), column 0", R, 1, ha.data(), dots_b, R, 1, 1e-10)) B.failed = 1;

  /* (a) timed: CSR, SELL, block */
  row.a_us = 1e6 * time_a(B, route(B, ROUTE_CSR), R, V, W, dots, B.steps) / R;
  CK_CUDA(cudaMemcpy(ha.data(), dots, 2 * R * sizeof(double), cudaMemcpyDeviceToHost));
  row.s_us = 1e6 * time_a(B, route(B, ROUTE_SELL), R, V, W, dots, B.steps) / R;
  CK_CUDA(cudaMemcpy(hs.data(), dots, 2 * R * sizeof(double), cudaMemcpyDeviceToHost));
  if (B.has_block) {
    row.k_us = 1e6 * time_a(B, route(B, ROUTE_BLOCK), R, V, W, dots, B.steps) / R;
    CK_CUDA(cudaMemcpy(hk.data(), dots, 2 * R * sizeof(double), cudaMemcpyDeviceToHost));
  }
  double2 *blk[2] = {V, W};
  double t;

  /* (c) timed */
  fill(n, R, 101, 1.0, V);
  fill(n, R, 202, 0.5, W);
  CK_CUDA(cudaMemset(dots, 0, 2 * R * sizeof(double)));
  cusparseDnMatDescr_t dd[2] = {dV, dW};
  step_c(B, S, R, dV, dW, V, W, dots); /* warm up */
  t = synced_now();
  for (int s = 0; s < B.steps; s++) step_c(B, S, R, dd[s % 2], dd[(s + 1) % 2], blk[s % 2], blk[(s + 1) % 2], dots);
  t = (synced_now() - t) / B.steps;
  row.c_us = 1e6 * t / R;
  /* the same steps in the same order from the same data: the summed dots agree too (this covers
   * the swapped block roles of the timed loop; 1e-9 leaves room for rounding over the steps) */
  CK_CUDA(cudaMemcpy(hc.data(), dots, 2 * R * sizeof(double), cudaMemcpyDeviceToHost));
  if (compare_dots("(a) vs (c), summed over the timed steps", R, R, ha.data(), hc.data(), R, R, 1e-9)) B.failed = 1;
  if (compare_dots("(a) SELL vs (c), summed over the timed steps", R, R, hs.data(), hc.data(), R, R, 1e-9)) B.failed = 1;
  if (B.has_block &&
      compare_dots("(a) block vs (c), summed over the timed steps", R, R, hk.data(), hc.data(), R, R, 1e-9))
    B.failed = 1;

  row.floor_us = 1e6 * (20.0 * (double)B.M.nnz / R + 48.0 * n) / B.bw;
  CK_SPARSE(cusparseDestroySpMat(S.A));
  CK_CUDA(cudaFree(S.buf));
  CK_SPARSE(cusparseDestroyDnMat(dV));
  CK_SPARSE(cusparseDestroyDnMat(dW));
  return row;
}

/* ---- launch shapes of the block KPM step --------------------------------------------------------- */
/* Times the block KPM step's launch shapes (hm_cuda_block_tuning) at block width R; restores the
 * defaults. Runs of more than one round only for the shapes that were fastest without. */
static void block_sweep(Bench &B, int R, double2 *V, double2 *W, double *dots) {
  if (!B.has_block) return;
  const int steps = std::max(5, B.steps / 2);
  int def_b[5];
  hm_cuda_block_tuning(nullptr, def_b);
  for (int tiles : {7, 5, 4, 3, 2, 1})
    for (int loads : {2, 1})
      for (int unroll : {1, 2})
        for (int mb : {2, 3, 4})
          for (int run : {1, 2, 4}) {
            if (run > 1 && (tiles == 1 || mb == 4)) continue; /* runs: the fastest shapes only */
            const int set[5] = {tiles, unroll, mb, run, loads};
            hm_cuda_block_tuning(set, nullptr);
            printf("  block KPM step, %d column tiles of 8 per warp at most, %s loads, unroll %d, register cap for %d"
                   " blocks per SM, runs of %d: %.3f us per vector-step\n",
                   tiles, loads == 2 ? "pair" : "complex", unroll, mb, run,
                   1e6 * time_a(B, route(B, ROUTE_BLOCK), R, V, W, dots, steps) / R);
          }
  hm_cuda_block_tuning(def_b, nullptr);
  printf("  (block KPM step defaults, 0 = by tile count: %d tiles, unroll %d, %d blocks per SM, runs of %d, loads %d)\n",
         def_b[0], def_b[1], def_b[2], def_b[3], def_b[4]);
}

/* ---- launch shapes of the SELL kernels ----------------------------------------------------------- */
/* Times every shape of hm_sell_tuning at block width R (k = 1: the SpMV; else the KPM step), prints
 * them fastest first, and restores the defaults. */
static void sweep(Bench &B, int R, double2 *V, double2 *W, double *dots) {
  hm_sell_tuning def, t;
  hm_cuda_sell_tuning(nullptr, &def);
  struct Shape {
    hm_sell_tuning t;
    double us;
  };
  std::vector<Shape> shapes;
  const int lanes[] = {32, 16, 8}, passes[] = {8, 16}, warps[] = {2, 4, 8}, l1[] = {0, 1};
  const int steps = std::max(5, B.steps / 2);
  for (int la : lanes)
    for (int pa : passes)
      for (int wa : warps)
        for (int u : l1) {
          if (R == 1 && (la != 32 || pa != 8)) continue; /* one lane per row at k = 1: no lane or pass choice */
          if (R > 1 && wa == 2) continue;
          if (la > R && la != 32) continue; /* narrower caps than R only */
          if (pa > la && pa != 8) continue; /* passes beyond the groups are the same shape */
          t = def;
          t.max_lanes = la;
          t.rows_per_pass = pa;
          t.warps_per_block = wa;
          t.prefer_l1 = u;
          hm_cuda_sell_tuning(&t, nullptr);
          double sec;
          if (R == 1) {
            const int n = B.M.n;
            fill(n, 1, 11, 1.0, V);
            CK_HM(B.K->spmmv(HM_COMPLEX, route(B, ROUTE_SELL), 1, B.M.rows, n, (const double *)V, (double *)W));
            sec = synced_now();
            for (int r = 0; r < steps; r++)
              CK_HM(B.K->spmmv(HM_COMPLEX, route(B, ROUTE_SELL), 1, B.M.rows, n, (const double *)V, (double *)W));
            sec = (synced_now() - sec) / steps;
          } else {
            sec = time_a(B, route(B, ROUTE_SELL), R, V, W, dots, steps);
          }
          shapes.push_back({t, 1e6 * sec / R});
        }
  hm_cuda_sell_tuning(&def, nullptr);
  if (R > 1) { /* the CSR kernel's register cap, for comparison */
    int mb0 = 1;
    hm_cuda_csr_min_blocks(0, &mb0);
    for (int mb : {1, 4, 8}) {
      hm_cuda_csr_min_blocks(mb, nullptr);
      printf("  CSR kernel, register cap for %d blocks per SM: %.3f us per vector-step\n", mb,
             1e6 * time_a(B, route(B, ROUTE_CSR), R, V, W, dots, steps) / R);
    }
    hm_cuda_csr_min_blocks(mb0, nullptr);
  }
  block_sweep(B, R, V, W, dots);
  std::sort(shapes.begin(), shapes.end(), [](const Shape &x, const Shape &y) { return x.us < y.us; });
  printf("SELL launch shapes at %s R = %d (us per vector-step, %d steps; defaults: lanes %d, pass %d, warps %d, L1 %d):\n",
         R == 1 ? "SpMV" : "KPM", R, steps, def.max_lanes, def.rows_per_pass, def.warps_per_block, def.prefer_l1);
  for (const Shape &sh : shapes)
    printf("  lanes %2d pass %2d warps %d L1 %d: %9.3f\n", sh.t.max_lanes, sh.t.rows_per_pass, sh.t.warps_per_block,
           sh.t.prefer_l1, sh.us);
  printf("\n");
}

/* ---- traversal of the CSR kernels --------------------------------------------------------------- */
/* Times the CSR KPM kernel at block width R for groups of blocks x tiles per block, the old grid
 * stride (2048 blocks over the whole list) among them, fastest first; restores the defaults.
 * Groups of 128 and 256 with `planes` (the lattice's nz) tiles per block match the TI builder's
 * order (16 x 16 sites per plane, walked through z): each block then walks one z column. */
static void traversal(Bench &B, int R, int planes, double2 *V, double2 *W, double *dots) {
  int g0 = 0, i0 = 0;
  hm_cuda_csr_traversal(0, 0, &g0, &i0);
  int rb = 1; /* the kernel's rows per tile (shape_for in gpu/kernels_cuda.cu) */
  while (std::min(R, 256) * rb * 2 <= 256) rb *= 2;
  const int stride_iters = (int)((((int64_t)B.M.n + rb - 1) / rb + 2047) / 2048);
  struct Choice {
    int group, iters;
    double us;
  };
  std::vector<Choice> all;
  for (int g : {1, 4, 66, 128, 132, 256, 264, 528, 1056})
    for (int it : {1, 4, 16, 64}) all.push_back({g, it, 0});
  for (int g : {128, 256}) all.push_back({g, planes, 0});
  all.push_back({2048, stride_iters, 0});
  const int steps = std::max(5, B.steps / 2);
  for (Choice &c : all) {
    hm_cuda_csr_traversal(c.group, c.iters, nullptr, nullptr);
    c.us = 1e6 * time_a(B, route(B, ROUTE_CSR), R, V, W, dots, steps) / R;
  }
  hm_cuda_csr_traversal(g0, i0, nullptr, nullptr);
  std::sort(all.begin(), all.end(), [](const Choice &x, const Choice &y) { return x.us < y.us; });
  printf("CSR KPM traversals at R = %d (us per vector-step, %d steps; default: group %d, tiles per block %d;\n"
         "  group 2048 x %d tiles = the old grid stride):\n", R, steps, g0, i0, stride_iters);
  for (const Choice &c : all) printf("  group %4d tiles %3d: %9.3f\n", c.group, c.iters, c.us);
  printf("\n");
}

/* ---- arguments --------------------------------------------------------------------------------- */
[[noreturn]] static void usage(const char *why) {
  fprintf(stderr,
          "bench_kpm_gpu: %s\nusage: bench_kpm_gpu [--nx N] [--ny N] [--nz N] (TI lattice, each >= 2; default 200 100 40)\n"
          "                     [--steps S] (>= 1; default 50) [--R r1,r2,...] (each 1..1024; default 1,4,8,16,32,64)\n"
          "                     [--block-width W] (the lattice's traversal tiles cut for W vectors at every R; 0 =\n"
          "                      16 x 16; default: cut for each R, as `hamlet run` cuts them on GPU ranks)\n"
          "                     [--copy-mib M] (>= 1; default 2048) [--sweep r1,...] (SELL launch shapes at these R)\n"
          "                     [--block-sweep r1,...] (the block KPM step's launch shapes at these R)\n"
          "                     [--traversal r1,...] (CSR KPM traversals at these R)\n"
          "                     [--use-traversal GROUP,TILES] (the CSR kernels' traversal for the whole run)\n",
          why);
  MPI_Finalize();
  exit(2);
}

static long long parse_int(const char *opt, const char *s, long long lo, long long hi) {
  return bench_parse_int(usage, opt, s, lo, hi);
}

/* A comma-separated list of integers in [lo, hi]. */
static std::vector<int> int_list(const char *opt, const char *v, long long lo, long long hi) {
  std::vector<int> out;
  std::vector<char> s(v, v + strlen(v) + 1);
  for (char *tok = strtok(s.data(), ","); tok; tok = strtok(nullptr, ",")) out.push_back((int)parse_int(opt, tok, lo, hi));
  return out;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_ti_params p;
  CK_HM(hm_ti_params_default(&p));
  p.nx = 200;
  p.ny = 100;
  p.nz = 40;
  int steps = 50, fixed_width = -1; /* -1: the tiles cut for each R */
  long long copy_mib = 2048;
  std::vector<int> Rs = {1, 4, 8, 16, 32, 64}, sweeps, block_sweeps, traversals, use_traversal;
  for (int i = 1; i < argc; i += 2) {
    const char *o = argv[i];
    if (i + 1 >= argc) usage("an option is missing its value");
    const char *v = argv[i + 1];
    if (!strcmp(o, "--nx")) p.nx = parse_int(o, v, 2, 1 << 20);
    else if (!strcmp(o, "--ny")) p.ny = parse_int(o, v, 2, 1 << 20);
    else if (!strcmp(o, "--nz")) p.nz = parse_int(o, v, 2, 1 << 20);
    else if (!strcmp(o, "--steps")) steps = (int)parse_int(o, v, 1, 1000000);
    else if (!strcmp(o, "--block-width")) fixed_width = (int)parse_int(o, v, 0, 1 << 20);
    else if (!strcmp(o, "--copy-mib")) copy_mib = parse_int(o, v, 1, 1 << 20);
    else if (!strcmp(o, "--sweep")) sweeps = int_list(o, v, 1, 1024);
    else if (!strcmp(o, "--block-sweep")) block_sweeps = int_list(o, v, 8, 1024);
    else if (!strcmp(o, "--traversal")) traversals = int_list(o, v, 2, 1024);
    else if (!strcmp(o, "--use-traversal")) {
      use_traversal = int_list(o, v, 1, 1 << 20);
      if (use_traversal.size() != 2) usage("--use-traversal needs GROUP,TILES (two integers)");
    } else if (!strcmp(o, "--R")) {
      Rs = int_list(o, v, 1, 1024);
      if (Rs.empty()) usage("--R needs a comma-separated list of block widths");
    } else {
      char msg[160];
      snprintf(msg, sizeof msg, "unknown option \"%s\"", o);
      usage(msg);
    }
  }
  if (4 * p.nx * p.ny * p.nz > INT32_MAX) usage("the lattice has more than 2^31 - 1 rows (4 nx ny nz); one GPU holds 32-bit local rows");

  if (const int code = no_device()) return code;
  if (!use_traversal.empty()) hm_cuda_csr_traversal(use_traversal[0], use_traversal[1], nullptr, nullptr);
  /* The CSR and SELL columns time each kernel family at every width (route); the library's own
   * routing (SELL up to a width, CSR above it) is taken from its defaults for the 'lib' figures. */
  hm_sell_tuning lib;
  hm_cuda_sell_tuning(nullptr, &lib);
  Bench B = {};
  B.lib = lib;
  B.steps = steps;
  B.K = hm_kernels_cuda();
  if (!B.K) die(__FILE__, __LINE__, "hm_kernels_cuda()", "hamlet was built without its CUDA kernel table");
  if (!B.K->spmmv || !B.K->kpm_step) die(__FILE__, __LINE__, "hm_kernels_cuda()", "the CUDA table lacks spmmv or kpm_step");
  cudaDeviceProp prop;
  CK_CUDA(cudaGetDeviceProperties(&prop, 0));
  CK_CUDA(cudaSetDevice(0));

  /* bandwidth first, while the device is empty */
  size_t free_b = 0, total_b = 0;
  CK_CUDA(cudaMemGetInfo(&free_b, &total_b));
  const size_t copy_bytes = std::min((size_t)copy_mib << 20, free_b / 4);
  B.bw = copy_bandwidth(copy_bytes);

  hm_context *ctx = nullptr;
  hm_matrix *H = nullptr;
  CK_HM(hm_context_create(MPI_COMM_SELF, HM_BACKEND_CPU, &ctx));
  const double t_build = MPI_Wtime();
  p.block_width = fixed_width > 0 ? fixed_width : 0;
  CK_HM(hm_ti_build(ctx, &p, &H));
  if (H->type != HM_COMPLEX || H->csr.ncols != H->csr.nrows)
    die(__FILE__, __LINE__, "hm_ti_build", "expected a complex matrix without halo columns on one rank");
  double emin, emax;
  CK_HM(hm_matrix_gershgorin(H, &emin, &emax));
  B.a = 0.99 * 2 / (emax - emin); /* a(H - b) has its spectrum inside [-0.99, 0.99] */
  B.b = 0.5 * (emax + emin);
  double t_sell = MPI_Wtime();
  B.M = upload(H);
  t_sell = MPI_Wtime() - t_sell;
  const int64_t n = B.M.n;
  const double nnz = (double)B.M.nnz;

  CK_SPARSE(cusparseCreate(&B.sp));
  CK_BLAS(cublasCreate(&B.bl));
  CK_BLAS(cublasSetPointerMode(B.bl, CUBLAS_POINTER_MODE_DEVICE));
  CK_CUDA(cudaMalloc(&B.d_small, 16 * sizeof(double)));
  const double consts[4] = {-1, 0, -2 * B.a * B.b, 0};
  CK_CUDA(cudaMemcpy(B.d_small, consts, sizeof consts, cudaMemcpyHostToDevice));

  int cusparse_ver = 0;
  CK_SPARSE(cusparseGetVersion(B.sp, &cusparse_ver));
  int rt_ver = 0, drv_ver = 0;
  CK_CUDA(cudaRuntimeGetVersion(&rt_ver));
  CK_CUDA(cudaDriverGetVersion(&drv_ver));
  printf("GPU KPM benchmark, hamlet %s\n", hm_version());
  printf("device: %s (sm_%d%d, %d SMs, %.1f GiB), CUDA runtime %d, driver %d, cuSPARSE %d\n", prop.name, prop.major,
         prop.minor, prop.multiProcessorCount, total_b / 1073741824.0, rt_ver, drv_ver, cusparse_ver);
  printf("TI %lld x %lld x %lld, N = %lld, nnz = %.0f (%.2f per row), complex double; built on the host in %.1f s\n",
         (long long)p.nx, (long long)p.ny, (long long)p.nz, (long long)n, nnz, nnz / n, MPI_Wtime() - t_build);
  {
    int64_t tx, ty;
    hm_ti_tile(&p, &tx, &ty);
    printf("rows traversed in tile columns of %lld x %lld sites (cut for block width %d%s)\n", (long long)tx, (long long)ty,
           p.block_width, fixed_width < 0 ? "; then for each R, as hamlet run cuts them" : "");
  }
  printf("KPM scale a = %.6g, shift b = %.6g (Gershgorin [%.4g, %.4g]); %d timed steps after one warm-up\n", B.a, B.b, emin,
         emax, steps);
  {
    int C = 0, sigma = 0;
    double fillr = 0;
    hm_sell_tuning t;
    CK_HM(hm_cuda_sell_info(B.M.sell.format, 0, &C, &sigma, &fillr));
    hm_cuda_sell_tuning(nullptr, &t);
    printf("SELL copy of the row list (built on the host in %.1f s): C = %d, sigma = %d, stored / true entries = %.4f;"
           " launch: lanes <= %d, %d rows per pass, %d warps per block, L1 preferred %d\n",
           t_sell, C, sigma, fillr, t.max_lanes, t.rows_per_pass, t.warps_per_block, t.prefer_l1);
    const void *blk = nullptr; /* made here, before any timing (a KPM step would make it) */
    double t_block = MPI_Wtime();
    CK_HM(hm_cuda_sell_block(B.M.sell.format, 0, 1, &blk));
    t_block = MPI_Wtime() - t_block;
    B.has_block = blk != nullptr;
    double bfill = 0, breads = 0, creads = 0, distinct = 1;
    hm_cuda_block_info(blk, &bfill, &breads, &creads, &distinct);
    if (blk)
      printf("block copy of the row list (made on the host in %.1f s): vector rows read per matrix row %.2f (CSR %.2f),"
             " slots / true entries %.4f, distinct value blocks / blocks %.2e\n",
             t_block, breads, creads, bfill, distinct);
    else
      printf("no block copy of the row list (blocks would not pay)\n");
  }
  printf("copy bandwidth (device-to-device cudaMemcpy of %.0f MiB, read + write, best of 5): %.1f GB/s\n\n",
         copy_bytes / 1048576.0, B.bw / 1e9);

  SpMV S = bench_spmv(B);
  double dots_b[2];
  const double b_us = bench_kpm_b(B, S, dots_b);

  int Rmax = *std::max_element(Rs.begin(), Rs.end());
  for (int r : sweeps) Rmax = std::max(Rmax, r);
  for (int r : block_sweeps) Rmax = std::max(Rmax, r);
  for (int r : traversals) Rmax = std::max(Rmax, r);
  double2 *V, *W;
  double *dots;
  CK_CUDA(cudaMalloc(&V, (size_t)n * Rmax * sizeof(double2)));
  CK_CUDA(cudaMalloc(&W, (size_t)n * Rmax * sizeof(double2)));
  CK_CUDA(cudaMalloc(&dots, 2 * (size_t)Rmax * sizeof(double)));
  for (int r : sweeps) sweep(B, r, V, W, dots);
  for (int r : block_sweeps) {
    if (fixed_width < 0) use_tiles(&B.M, H, &p, r);
    printf("block KPM step launch shapes at R = %d:\n", r);
    block_sweep(B, r, V, W, dots);
  }
  for (int r : traversals) traversal(B, r, (int)p.nz, V, W, dots);
  printf("KPM step per vector-step (us): (a) hamlet fused kpm_step on the N x R block, on the CSR arrays and on the\n"
         "  SELL copy (the library's path: 'SELL' below); (b) cuSPARSE SpMV %s + cublasZaxpy + 2 cublasZdotc, one vector\n"
         "  at a time; (c) cuSPARSE SpMM (row-major, n = R) + cublasZaxpy + column-dot kernel.\n"
         "  floor = (20 nnz / R + 48 N) bytes / copy bandwidth (Kreutzer et al.)\n",
         S.name);
  std::vector<Row> rows;
  for (size_t i = 0; i < Rs.size(); i++) {
    if (fixed_width < 0) use_tiles(&B.M, H, &p, Rs[i]);
    rows.push_back(bench_block(B, Rs[i], V, W, dots, dots_b, i == 0));
  }
  if (B.has_block)
    printf("  (a) lib = what the library's kpm_step runs: SELL for R <= %d, CSR below R = %d, the block copy from it\n",
           B.lib.kpm_max_k, B.lib.block_kpm_min_k);
  else
    printf("  (a) lib = what the library's kpm_step runs: SELL for R <= %d, CSR above\n", B.lib.kpm_max_k);
  printf("  %4s %10s %10s %10s %10s %10s %10s %-12s %10s %9s %9s %9s %9s\n", "R", "(a) CSR", "(a) SELL", "(a) block",
         "(a) lib", "(b)", "(c)", "(c) alg", "floor", "lib/floor", "lib GB/s", "(b)/lib", "best/lib");
  for (Row &r : rows) {
    const double bytes = 20.0 * nnz / r.R + 48.0 * n;
    const bool on_blocks = B.has_block && r.R >= B.lib.block_kpm_min_k;
    r.l_us = r.R <= B.lib.kpm_max_k ? r.s_us : on_blocks ? r.k_us : r.a_us;
    printf("  %4d %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %-12s %10.3f %9.2f %9.1f %9.2f %9.2f\n", r.R, r.a_us, r.s_us,
           r.k_us, r.l_us, b_us, r.c_us, r.c_alg, r.floor_us, r.l_us / r.floor_us, bytes / (r.l_us * 1e-6) / 1e9,
           b_us / r.l_us, std::min(b_us, r.c_us) / r.l_us);
  }
  printf("\n");
  printf("SpMV (k = 1) on SELL: %.1f us = %.0f%% of the roofline (target >= 85%%): %s\n", B.sell_spmv_us,
         100 * B.spmv_roof_us / B.sell_spmv_us, B.spmv_roof_us / B.sell_spmv_us >= 0.85 ? "met" : "NOT met");
  const Row *r32 = nullptr;
  for (const Row &r : rows)
    if (r.R == 32) r32 = &r;
  if (r32) {
    const double f = r32->l_us / r32->floor_us, sb = b_us / r32->l_us, sbest = std::min(b_us, r32->c_us) / r32->l_us;
    printf("R = 32: (a) lib / floor = %.2f (target <= 1.5): %s\n", f, f <= 1.5 ? "met" : "NOT met");
    printf("R = 32: (b) / (a) lib = %.2fx (target >= 8): %s\n", sb, sb >= 8 ? "met" : "NOT met");
    printf("R = 32: best of (b), (c) / (a) lib = %.2fx (target >= 3): %s\n", sbest, sbest >= 3 ? "met" : "NOT met");
  } else {
    printf("targets are stated at R = 32, which this run did not measure\n");
  }
  printf("checks: hamlet spmmv (CSR and SELL) = cuSPARSE SpMV (1e-12); (a) dots (CSR, SELL, block) = (c) dots after one\n"
         "  step for every R (1e-10) and summed over the timed steps (1e-9); (a) = (b) for column 0 (1e-10): %s\n",
         B.failed ? "FAILED" : "passed");

  CK_CUDA(cudaFree(V));
  CK_CUDA(cudaFree(W));
  CK_CUDA(cudaFree(dots));
  CK_SPARSE(cusparseDestroySpMat(S.A));
  CK_CUDA(cudaFree(S.buf));
  CK_CUDA(cudaFree(B.d_small));
  CK_BLAS(cublasDestroy(B.bl));
  CK_SPARSE(cusparseDestroy(B.sp));
  release(&B.M);
  CK_HM(hm_matrix_destroy(&H));
  CK_HM(hm_context_destroy(&ctx));
  MPI_Finalize();
  return B.failed ? 1 : 0;
}
