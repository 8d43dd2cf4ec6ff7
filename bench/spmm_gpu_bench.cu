/* GPU SpMM benchmark: hamlet's CUDA spmmv Y = A X on N x k blocks (on the CSR arrays, and on the
 * SELL-C-sigma copy the CUDA table's prepare makes, which is what the library uses) next to cuSPARSE SpMM with
 * dense blocks in row-major and in column-major order, for k = 1 .. 64, on two matrices:
 *   (1) the TI lattice (complex, hm_ti_build), (2) a real symmetric 27-point stencil on L^3.
 *   bench_spmm_gpu [--ti nx ny nz] (default 200 100 40) [--L L] (default 128) [--k 1,2,4,...,64]
 * Each cuSPARSE order gets the fastest of the algorithms that run (buffer and preprocess outside
 * the timing). Roofline: bytes = nnz (8 or 16 + 4) + 8 N + 2 N k scalar, over the bandwidth of a
 * device-to-device cudaMemcpy measured in this run. Every cuSPARSE result that is timed, and
 * hamlet's SELL result, must equal hamlet's CSR result to 1e-12 relative, or the program exits 1
 * (after printing everything).
 * Exit 77: no CUDA device; 2: bad arguments. */
#define MPICH_SKIP_MPICXX 1
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <algorithm>
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

#include "gpu_bench_common.h"
#include "../gpu/sell_cuda.h"

/* ---- device kernels ------------------------------------------------------------------------------ */
/* Entry (i, j), part c of an N x k block in [-1, 1), the same value in either layout. */
__global__ void fill_block(int64_t n, int k, int type, bool col_major, double *x) {
  const int64_t len = n * k * type;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < len; e += (int64_t)gridDim.x * blockDim.x) {
    const int c = (int)(e % type);
    const int64_t s = e / type;
    const int64_t i = col_major ? s % n : s / k, j = col_major ? s / n : s % k;
    const uint64_t h = mix64(mix64(mix64((uint64_t)i) + (uint64_t)j) + (uint64_t)c);
    x[e] = 2.0 * (double)(h >> 11) * 0x1p-53 - 1.0;
  }
}

/* sums[0] += sum |a - b|^2, sums[1] += sum |a|^2; a row-major, b row- or column-major. */
__global__ void diff_norms(int64_t n, int k, int type, const double *a, const double *b, bool b_col_major,
                           double *sums) {
  __shared__ double part[2][256];
  double d2 = 0, a2 = 0;
  const int64_t len = n * k * type;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < len; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t s = e / type, i = s / k, j = s % k;
    const int64_t eb = b_col_major ? (j * n + i) * type + e % type : e;
    const double d = a[e] - b[eb];
    d2 += d * d;
    a2 += a[e] * a[e];
  }
  part[0][threadIdx.x] = d2;
  part[1][threadIdx.x] = a2;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h >>= 1) {
    if ((int)threadIdx.x < h) {
      part[0][threadIdx.x] += part[0][threadIdx.x + h];
      part[1][threadIdx.x] += part[1][threadIdx.x + h];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&sums[0], part[0][0]);
    atomicAdd(&sums[1], part[1][0]);
  }
}

static unsigned grid_for(int64_t len) { return (unsigned)std::max<int64_t>(1, std::min<int64_t>((len + 255) / 256, 4096)); }

/* Mean seconds per call of f after one warm-up call, over enough calls for about 50 ms. */
template <class F> static double time_per_call(F f) {
  cudaEvent_t t0, t1;
  CK_CUDA(cudaEventCreate(&t0));
  CK_CUDA(cudaEventCreate(&t1));
  f();
  CK_CUDA(cudaEventRecord(t0));
  f();
  CK_CUDA(cudaEventRecord(t1));
  CK_CUDA(cudaEventSynchronize(t1));
  float ms = 0;
  CK_CUDA(cudaEventElapsedTime(&ms, t0, t1));
  const int reps = (int)std::max(5.0, std::min(200.0, 50.0 / std::max(ms, 1e-3f)));
  CK_CUDA(cudaEventRecord(t0));
  for (int r = 0; r < reps; r++) f();
  CK_CUDA(cudaEventRecord(t1));
  CK_CUDA(cudaEventSynchronize(t1));
  CK_CUDA(cudaEventElapsedTime(&ms, t0, t1));
  CK_CUDA(cudaEventDestroy(t0));
  CK_CUDA(cudaEventDestroy(t1));
  return ms * 1e-3 / reps;
}

/* ---- one matrix on the device: hamlet's CSR view and row list, cuSPARSE's descriptor --------- */
struct Run {
  const hm_kernels *K;
  cusparseHandle_t sp;
  double bw;
  std::vector<int> ks;
  int failed;
  int lib_max_k; /* the library's spmmv runs the SELL kernel up to this k, the CSR kernel above */
};

struct Result {
  int k;
  double hm_us, sell_us, row_us, col_us, roof_us; /* hamlet CSR, hamlet SELL, cuSPARSE row / col, roofline */
  const char *row_alg, *col_alg;
};

/* ||a - b|| / ||a|| of two N x k blocks (a row-major). */
static double rel_diff(int64_t n, int k, int type, const double *a, const double *b, bool b_col_major, double *d_sums) {
  CK_CUDA(cudaMemset(d_sums, 0, 2 * sizeof(double)));
  diff_norms<<<grid_for(n * k * type), 256>>>(n, k, type, a, b, b_col_major, d_sums);
  CK_CUDA(cudaGetLastError());
  double s[2];
  CK_CUDA(cudaMemcpy(s, d_sums, sizeof s, cudaMemcpyDeviceToHost));
  return sqrt(s[0]) / std::max(sqrt(s[1]), 1e-300);
}

/* The fastest cuSPARSE SpMM algorithm that runs for this order; each timed result checked
 * against hamlet's Yh. Returns seconds per call (alg name through *name; 0 and "none" if none ran). */
static double best_cusparse(Run &R, cusparseSpMatDescr_t A, int64_t n, int k, int type, cusparseOrder_t order,
                            double *X, double *Y, const double *Yh, double *d_sums, const char **name) {
  const struct { const char *name; cusparseSpMMAlg_t alg; } algs[] = {{"DEFAULT", CUSPARSE_SPMM_ALG_DEFAULT},
                                                                    {"CSR_ALG1", CUSPARSE_SPMM_CSR_ALG1},
                                                                    {"CSR_ALG2", CUSPARSE_SPMM_CSR_ALG2},
                                                                    {"CSR_ALG3", CUSPARSE_SPMM_CSR_ALG3}};
  const bool col = order == CUSPARSE_ORDER_COL;
  const cudaDataType dt = type == 2 ? CUDA_C_64F : CUDA_R_64F;
  const double one[2] = {1, 0}, zero[2] = {0, 0}; /* a real run reads the first double */
  const auto opn = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseDnMatDescr_t dX, dY;
  const int64_t ld = col ? n : k;
  CK_SPARSE(cusparseCreateDnMat(&dX, n, k, ld, X, dt, order));
  CK_SPARSE(cusparseCreateDnMat(&dY, n, k, ld, Y, dt, order));
  fill_block<<<grid_for(n * k * type), 256>>>(n, k, type, col, X);
  CK_CUDA(cudaGetLastError());
  double best = 0;
  *name = "none";
  for (const auto &al : algs) {
    size_t sz = 0;
    void *buf = nullptr;
    cusparseStatus_t s = cusparseSpMM_bufferSize(R.sp, opn, opn, one, A, dX, zero, dY, dt, al.alg, &sz);
    if (s == CUSPARSE_STATUS_SUCCESS) {
      CK_CUDA(cudaMalloc(&buf, std::max<size_t>(sz, 16)));
      s = cusparseSpMM_preprocess(R.sp, opn, opn, one, A, dX, zero, dY, dt, al.alg, buf);
    }
    if (s == CUSPARSE_STATUS_SUCCESS) s = cusparseSpMM(R.sp, opn, opn, one, A, dX, zero, dY, dt, al.alg, buf);
    if (s == CUSPARSE_STATUS_SUCCESS) {
      const double t = time_per_call([&] { CK_SPARSE(cusparseSpMM(R.sp, opn, opn, one, A, dX, zero, dY, dt, al.alg, buf)); });
      const double e = rel_diff(n, k, type, Yh, Y, col, d_sums);
      if (!(e <= 1e-12)) {
        printf("  MISMATCH k = %d: cuSPARSE %s-major %s differs from hamlet by %.2e relative (allowed 1e-12)\n", k,
               col ? "col" : "row", al.name, e);
        R.failed = 1;
      }
      if (best == 0 || t < best) {
        best = t;
        *name = al.name;
      }
    }
    if (buf) CK_CUDA(cudaFree(buf));
  }
  CK_SPARSE(cusparseDestroyDnMat(dX));
  CK_SPARSE(cusparseDestroyDnMat(dY));
  return best;
}

/* Upload H, time every k, print the table; returns how many k >= 4 hamlet is at least as fast. */
static int bench_matrix(Run &R, const char *title, const hm_matrix *H) {
  const hm_csr *c = &H->csr;
  const int type = (int)H->type;
  const int64_t n = c->nrows, nnz = c->rowptr[n];
  if (c->ncols != c->nrows || H->n_interior != c->nrows || nnz > INT32_MAX)
    die(__FILE__, __LINE__, title, "expected one rank's matrix without halo columns and nnz < 2^31");
  int64_t *rowptr;
  int32_t *col, *rows, *rowptr32;
  double *val;
  CK_CUDA(cudaMalloc(&rowptr, (n + 1) * sizeof(int64_t)));
  CK_CUDA(cudaMalloc(&rowptr32, (n + 1) * sizeof(int32_t)));
  CK_CUDA(cudaMalloc(&col, nnz * sizeof(int32_t)));
  CK_CUDA(cudaMalloc(&val, nnz * type * sizeof(double)));
  CK_CUDA(cudaMalloc(&rows, n * sizeof(int32_t)));
  CK_CUDA(cudaMemcpy(rowptr, c->rowptr, (n + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
  CK_CUDA(cudaMemcpy(col, c->col, nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
  CK_CUDA(cudaMemcpy(val, c->val, nnz * type * sizeof(double), cudaMemcpyHostToDevice));
  CK_CUDA(cudaMemcpy(rows, H->interior_rows, n * sizeof(int32_t), cudaMemcpyHostToDevice));
  std::vector<int32_t> rp32(c->rowptr, c->rowptr + n + 1); /* cuSPARSE: one index type for both arrays */
  CK_CUDA(cudaMemcpy(rowptr32, rp32.data(), (n + 1) * sizeof(int32_t), cudaMemcpyHostToDevice));
  /* with the library's own SELL copy of the row list; each column routes the products to one
   * kernel family (route_products) */
  struct hm_csr_view sell = {(int32_t)n, rowptr, col, val, nullptr, nullptr};
  {
    const struct hm_csr_view host = {(int32_t)n, c->rowptr, c->col, c->val, nullptr, nullptr};
    const int32_t *list = H->interior_rows, count = (int32_t)n, *key = rows;
    void *format = nullptr;
    CK_HM(R.K->prepare(H->type, &host, 1, &list, &count, &key, HM_FORMAT_AUTO, 0, &format));
    sell.format = format;
    int C = 0, sigma = 0;
    double fillr = 0;
    CK_HM(hm_cuda_sell_info(format, 0, &C, &sigma, &fillr));
    printf("%s: SELL copy C = %d, sigma = %d, stored / true entries = %.4f\n", title, C, sigma, fillr);
  }
  cusparseSpMatDescr_t A;
  CK_SPARSE(cusparseCreateCsr(&A, n, n, nnz, rowptr32, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, type == 2 ? CUDA_C_64F : CUDA_R_64F));

  const int kmax = *std::max_element(R.ks.begin(), R.ks.end());
  const size_t block = (size_t)n * kmax * type * sizeof(double);
  double *X, *Y, *Yh, *d_sums;
  CK_CUDA(cudaMalloc(&X, block));
  CK_CUDA(cudaMalloc(&Y, block));
  CK_CUDA(cudaMalloc(&Yh, block));
  CK_CUDA(cudaMalloc(&d_sums, 2 * sizeof(double)));

  printf("%s: N = %lld, nnz = %lld (%.2f per row), %s\n", title, (long long)n, (long long)nnz, (double)nnz / n,
         type == 2 ? "complex double" : "real double");
  std::vector<Result> res;
  for (int k : R.ks) {
    Result r = {k, 0, 0, 0, 0, 0, nullptr, nullptr};
    fill_block<<<grid_for(n * k * type), 256>>>(n, k, type, false, X);
    CK_CUDA(cudaGetLastError());
    route_products(ROUTE_CSR);
    r.hm_us = 1e6 * time_per_call([&] { CK_HM(R.K->spmmv(H->type, &sell, k, rows, (int32_t)n, X, Yh)); });
    route_products(ROUTE_SELL);
    r.sell_us = 1e6 * time_per_call([&] { CK_HM(R.K->spmmv(H->type, &sell, k, rows, (int32_t)n, X, Y)); });
    const double e = rel_diff(n, k, type, Yh, Y, false, d_sums);
    if (!(e <= 1e-12)) {
      printf("  MISMATCH k = %d: hamlet SELL differs from hamlet CSR by %.2e relative (allowed 1e-12)\n", k, e);
      R.failed = 1;
    }
    r.row_us = 1e6 * best_cusparse(R, A, n, k, type, CUSPARSE_ORDER_ROW, X, Y, Yh, d_sums, &r.row_alg);
    r.col_us = 1e6 * best_cusparse(R, A, n, k, type, CUSPARSE_ORDER_COL, X, Y, Yh, d_sums, &r.col_alg);
    if (r.row_us == 0) {
      printf("  k = %d: no cuSPARSE row-major algorithm ran, so hamlet's result is unchecked\n", k);
      R.failed = 1;
    }
    const double bytes = nnz * (8.0 * type + 4) + 8.0 * n + 2.0 * n * k * 8.0 * type;
    r.roof_us = 1e6 * bytes / R.bw;
    res.push_back(r);
  }
  /* the SELL kernel's launch shapes (hm_sell_tuning) at every k, to choose the defaults */
  {
    hm_sell_tuning def;
    hm_cuda_sell_tuning(nullptr, &def);
    const int shapes[][4] = {{32, 8, 8, 0}, {32, 16, 8, 0}, {32, 32, 8, 0}, {16, 8, 8, 0},
                             {16, 16, 8, 0}, {16, 16, 4, 0}, {8, 8, 8, 0},   {4, 8, 8, 0}};
    printf("  SELL launch shapes, us per call (lanes/pass/warps/L1):\n  %3s", "k");
    for (const int *t : shapes) printf("  %2d/%2d/%d/%d", t[0], t[1], t[2], t[3]);
    printf("\n");
    for (int k : R.ks) {
      fill_block<<<grid_for(n * k * type), 256>>>(n, k, type, false, X);
      CK_CUDA(cudaGetLastError());
      printf("  %3d", k);
      for (const int *sh : shapes) {
        hm_sell_tuning t = def;
        t.max_lanes = sh[0];
        t.rows_per_pass = sh[1];
        t.warps_per_block = sh[2];
        t.prefer_l1 = sh[3];
        hm_cuda_sell_tuning(&t, nullptr);
        printf("  %10.1f", 1e6 * time_per_call([&] { CK_HM(R.K->spmmv(H->type, &sell, k, rows, (int32_t)n, X, Y)); }));
      }
      printf("\n");
    }
    hm_cuda_sell_tuning(&def, nullptr);
  }
  printf("  'hm lib' = what the library's spmmv runs: SELL for k <= %d, CSR above\n", R.lib_max_k);
  printf("  %3s %11s %11s %11s %11s %-9s %11s %-9s %11s %9s %12s\n", "k", "hm CSR us", "hm SELL us", "hm lib us",
         "cuSP row us", "(alg)", "cuSP col us", "(alg)", "roofline us", "lib/roof", "lib/best cuSP");
  int wins = 0, counted = 0;
  for (const Result &r : res) {
    double best = 1e30;
    if (r.row_us > 0) best = std::min(best, r.row_us);
    if (r.col_us > 0) best = std::min(best, r.col_us);
    const double lib_us = r.k <= R.lib_max_k ? r.sell_us : r.hm_us;
    printf("  %3d %11.1f %11.1f %11.1f %11.1f %-9s %11.1f %-9s %11.1f %9.2f %12.2f\n", r.k, r.hm_us, r.sell_us, lib_us,
           r.row_us, r.row_alg, r.col_us, r.col_alg, r.roof_us, lib_us / r.roof_us, lib_us / best);
    if (r.k >= 4) {
      counted++;
      wins += lib_us <= best;
    }
  }
  printf("  k >= 4 where hamlet (lib) is at least as fast as the best cuSPARSE: %d of %d\n\n", wins, counted);

  R.K->unprepare((void *)sell.format);
  CK_SPARSE(cusparseDestroySpMat(A));
  for (void *p : {(void *)X, (void *)Y, (void *)Yh, (void *)d_sums, (void *)rowptr, (void *)rowptr32, (void *)col,
                  (void *)val, (void *)rows})
    CK_CUDA(cudaFree(p));
  return wins;
}

/* Real symmetric 27-point stencil on an L^3 grid (open boundaries): weight -1, -1/2, -1/4 for
 * neighbours at city-block distance 1, 2, 3, and 14 on the diagonal; built through hamlet's CSR. */
static hm_matrix *stencil27(hm_context *ctx, int64_t L) {
  const int64_t n = L * L * L;
  std::vector<int64_t> rowptr(n + 1), cols;
  std::vector<double> vals;
  cols.reserve(27 * n);
  vals.reserve(27 * n);
  for (int64_t z = 0; z < L; z++)
    for (int64_t y = 0; y < L; y++)
      for (int64_t x = 0; x < L; x++) {
        for (int dz = -1; dz <= 1; dz++)
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
              const int64_t X = x + dx, Y = y + dy, Z = z + dz;
              if (X < 0 || X >= L || Y < 0 || Y >= L || Z < 0 || Z >= L) continue;
              const int d = abs(dx) + abs(dy) + abs(dz);
              cols.push_back(X + L * (Y + L * Z));
              vals.push_back(d == 0 ? 14.0 : -1.0 / (1 << (d - 1)));
            }
        rowptr[x + L * (y + L * z) + 1] = (int64_t)cols.size();
      }
  hm_dist *dist = nullptr;
  hm_matrix *A = nullptr;
  CK_HM(hm_dist_create(ctx, n, 1, 1.0, &dist));
  CK_HM(hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr.data(), cols.data(), vals.data(), &A));
  CK_HM(hm_dist_destroy(&dist));
  return A;
}

/* ---- arguments ----------------------------------------------------------------------------------- */
[[noreturn]] static void usage(const char *why) {
  fprintf(stderr,
          "bench_spmm_gpu: %s\nusage: bench_spmm_gpu [--ti nx ny nz] (each >= 2; default 200 100 40)\n"
          "                      [--L L] (>= 2, L^3 < 2^31; default 128) [--k k1,k2,...] (each 1..256; default 1,2,4,...,64)\n",
          why);
  MPI_Finalize();
  exit(2);
}

static long long parse_int(const char *opt, const char *s, long long lo, long long hi) {
  return bench_parse_int(usage, opt, s, lo, hi);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_ti_params p;
  CK_HM(hm_ti_params_default(&p));
  p.nx = 200;
  p.ny = 100;
  p.nz = 40;
  long long L = 128;
  Run R = {};
  R.ks = {1, 2, 4, 8, 16, 32, 64};
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    auto val = [&]() { return i + 1 < argc ? argv[++i] : nullptr; };
    if (!strcmp(o, "--ti")) {
      p.nx = parse_int("--ti nx", val(), 2, 1 << 20);
      p.ny = parse_int("--ti ny", val(), 2, 1 << 20);
      p.nz = parse_int("--ti nz", val(), 2, 1 << 20);
    } else if (!strcmp(o, "--L")) {
      L = parse_int(o, val(), 2, 1290);
    } else if (!strcmp(o, "--k")) {
      const char *v = val();
      if (!v) usage("--k needs a comma-separated list of block widths");
      R.ks.clear();
      std::vector<char> s(v, v + strlen(v) + 1);
      for (char *tok = strtok(s.data(), ","); tok; tok = strtok(nullptr, ",")) R.ks.push_back((int)parse_int("--k", tok, 1, 256));
      if (R.ks.empty()) usage("--k needs a comma-separated list of block widths");
    } else {
      char msg[160];
      snprintf(msg, sizeof msg, "unknown option \"%s\"", o);
      usage(msg);
    }
  }
  if (4.0 * p.nx * p.ny * p.nz > INT32_MAX) usage("the TI lattice has more than 2^31 - 1 rows (4 nx ny nz)");

  if (const int code = no_device()) return code;
  {
    hm_sell_tuning t; /* the library's routing, before the columns change it (route_products) */
    hm_cuda_sell_tuning(nullptr, &t);
    R.lib_max_k = t.spmmv_max_k;
  }
  R.K = hm_kernels_cuda();
  if (!R.K || !R.K->spmmv) die(__FILE__, __LINE__, "hm_kernels_cuda()", "hamlet was built without its CUDA spmmv");
  CK_CUDA(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK_CUDA(cudaGetDeviceProperties(&prop, 0));
  size_t free_b = 0, total_b = 0;
  CK_CUDA(cudaMemGetInfo(&free_b, &total_b));
  const size_t copy_bytes = std::min((size_t)2048 << 20, free_b / 4);
  R.bw = copy_bandwidth(copy_bytes);
  CK_SPARSE(cusparseCreate(&R.sp));
  int sp_ver = 0, rt_ver = 0;
  CK_SPARSE(cusparseGetVersion(R.sp, &sp_ver));
  CK_CUDA(cudaRuntimeGetVersion(&rt_ver));
  printf("GPU SpMM benchmark, hamlet %s\n", hm_version());
  printf("device: %s (sm_%d%d, %.1f GiB), CUDA runtime %d, cuSPARSE %d\n", prop.name, prop.major, prop.minor,
         total_b / 1073741824.0, rt_ver, sp_ver);
  printf("copy bandwidth (D2D cudaMemcpy of %.0f MiB, read + write, best of 5): %.1f GB/s\n", copy_bytes / 1048576.0,
         R.bw / 1e9);
  printf("us per call (mean over ~50 ms after a warm-up); cuSPARSE: fastest of DEFAULT, CSR_ALG1..3 that run;\n"
         "roofline = (nnz (8 or 16 + 4) + 8 N + 2 N k scalar bytes) / copy bandwidth; hm/best < 1: hamlet faster\n\n");

  hm_context *ctx = nullptr;
  CK_HM(hm_context_create(MPI_COMM_SELF, HM_BACKEND_CPU, &ctx));
  int wins = 0, counted = 0;
  for (int k : R.ks) counted += 2 * (k >= 4);
  char title[128];
  {
    hm_matrix *H = nullptr;
    CK_HM(hm_ti_build(ctx, &p, &H));
    snprintf(title, sizeof title, "TI lattice %lld x %lld x %lld", (long long)p.nx, (long long)p.ny, (long long)p.nz);
    wins += bench_matrix(R, title, H);
    CK_HM(hm_matrix_destroy(&H));
  }
  {
    hm_matrix *S = stencil27(ctx, L);
    snprintf(title, sizeof title, "27-point stencil %lld^3", L);
    wins += bench_matrix(R, title, S);
    CK_HM(hm_matrix_destroy(&S));
  }
  printf("target (issue): hamlet at least as fast as cuSPARSE for every k >= 4: %d of %d (both matrices): %s\n", wins,
         counted, wins == counted ? "met" : "NOT met");
  printf("check: hamlet SELL and every timed cuSPARSE result (row- and col-major) = hamlet CSR to 1e-12 relative: %s\n",
         R.failed ? "FAILED" : "passed");
  CK_SPARSE(cusparseDestroy(R.sp));
  CK_HM(hm_context_destroy(&ctx));
  MPI_Finalize();
  return R.failed ? 1 : 0;
}
