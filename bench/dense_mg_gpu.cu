/* bench_dense_mg: is cusolverMgSyevd on G GPUs of one node faster than cusolverDnXsyevd on one GPU
 * for the full symmetric (dsyevd) / Hermitian (zheevd) eigenproblem with eigenvectors?
 *
 * Usage: bench_dense_mg [--real|--complex] [--gpus G] [--tiles T1,T2,...] n...
 *   --real / --complex  double symmetric (default) or double complex Hermitian matrices
 *   --gpus G            GPUs for cusolverMg (default: all visible; G = 1 runs cusolverMg on one GPU)
 *   --tiles             column tile sizes of the 1D block-cyclic layout to try (default 256,512);
 *                       the best is reported
 * For each n the same matrix (entries from a seeded hash, uniform in [-1, 1]) is solved by
 *   (a) cusolverDnXsyevd on GPU 0, the matrix already on that GPU;
 *   (b) cusolverMgSyevd on GPUs 0..G-1, the matrix already distributed column-block-cyclically.
 * Only the solver call is timed (wall clock around the call and a synchronisation of every GPU it
 * uses); uploads, workspace queries and allocations are outside. One run per solver and tile, after
 * a warm-up of both at n = 1024 (first-call overheads).
 * Checks: the eigenvalue sets agree to 1e-10 relative to the spectral radius, and 8 eigenvectors of
 * each solver, spread over the spectrum, have ||A v - lambda v|| / (||A||_2 ||v||) below 1e-10
 * (computed on the host against the original matrix). One line per n:
 *   n=<n> type=<d|z> gpus=<G> dn_syevd_s=<t> mg_syevd_s=<t> speedup=<dn/mg> max_eig_diff=<x>
 *   resid_dn=<r> resid_mg=<r> best_tile=<T>
 * (diff and resid_mg are the worst over the tiles tried; lines starting with '#' give the detail).
 * Exits 0 when every check passes, 1 on a failed check or CUDA/cuSOLVER call or a failing device query
 * (gpu_bench_device.h), 77 where no GPU is visible.
 *
 * Note: CUDA 13's cusolverMg.h marks the whole cusolverMg API deprecated (cuSOLVERMp is NVIDIA's
 * successor); the warnings are silenced here on purpose, but library code built on it would need a
 * plan for its removal. Build: the bench_dense_mg target (CUDA builds where libcusolverMg is found).
 */
#define DISABLE_CUSOLVERMG_DEPRECATED
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusolverMg.h>
#include <string>
#include <vector>
#include "gpu_bench_device.h"

[[noreturn]] static void fail(const char *file, int line, const char *call, const char *why, int status) {
  fprintf(stderr, "%s:%d: %s failed: %s (status %d)\n", file, line, call, why, status);
  exit(1);
}
#define CK_CUDA(x)                                                                         \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) fail(__FILE__, __LINE__, #x, cudaGetErrorString(e_), (int)e_); \
  } while (0)
#define CK_SOLVER(x)                                                                             \
  do {                                                                                           \
    cusolverStatus_t s_ = (x);                                                                   \
    if (s_ != CUSOLVER_STATUS_SUCCESS) fail(__FILE__, __LINE__, #x, "cuSOLVER error", (int)s_); \
  } while (0)

using cplx = std::complex<double>;
static const double tolerance = 1e-10;

/* The two scalar types: cuSOLVER's type tag, the letter in the output, conjugation. */
template <class T> struct Scalar;
template <> struct Scalar<double> {
  static constexpr cudaDataType type = CUDA_R_64F;
  static constexpr char letter = 'd';
  static double conj(double x) { return x; }
};
template <> struct Scalar<cplx> {
  static constexpr cudaDataType type = CUDA_C_64F;
  static constexpr char letter = 'z';
  static cplx conj(cplx x) { return std::conj(x); }
};

/* splitmix64: a counter-based hash, so entry (i, j) is the same whatever order it is made in. */
static uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double uniform(uint64_t seed, uint64_t key) {  // in [-1, 1)
  return (double)(mix64(seed ^ mix64(key)) >> 11) * 0x1p-52 - 1.0;
}
static double entry_part(uint64_t seed, int64_t i, int64_t j, int part) {
  return uniform(seed, ((((uint64_t)i << 31) | (uint64_t)j) << 1) | (uint64_t)part);
}
static double make_entry(uint64_t seed, int64_t i, int64_t j, double *) { return entry_part(seed, i, j, 0); }
static cplx make_entry(uint64_t seed, int64_t i, int64_t j, cplx *) {  // real diagonal (Hermitian)
  return cplx(entry_part(seed, i, j, 0), i == j ? 0.0 : entry_part(seed, i, j, 1));
}

/* Both triangles of a random symmetric / Hermitian n x n matrix, column-major. Written in memory
 * order (the upper entry hashed again rather than copied: strided copies were the slow part). */
template <class T> static std::vector<T> random_hermitian(int64_t n, uint64_t seed) {
  std::vector<T> a((size_t)(n * n));
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++)
      a[(size_t)(i + j * n)] = i >= j ? make_entry(seed, i, j, (T *)nullptr)
                                      : Scalar<T>::conj(make_entry(seed, j, i, (T *)nullptr));
  return a;
}

static double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
static void synchronize_all(const std::vector<int> &devices) {
  for (int d : devices) {
    CK_CUDA(cudaSetDevice(d));
    CK_CUDA(cudaDeviceSynchronize());
  }
}

/* What one solver run gives back: its seconds, all eigenvalues, the eigenvectors of `columns`. */
template <class T> struct Solution {
  double seconds = 0;
  std::vector<double> w;
  std::vector<std::vector<T>> vectors;
};

/* (a) cusolverDnXsyevd on GPU 0 with the matrix on the device; only the solver call is timed. */
template <class T>
static Solution<T> solve_dn(const std::vector<T> &a, int64_t n, const std::vector<int64_t> &columns) {
  const cudaDataType type = Scalar<T>::type;
  CK_CUDA(cudaSetDevice(0));
  cusolverDnHandle_t handle;
  cusolverDnParams_t params;
  CK_SOLVER(cusolverDnCreate(&handle));
  CK_SOLVER(cusolverDnCreateParams(&params));
  T *d_a = nullptr;
  double *d_w = nullptr;
  int *d_info = nullptr;
  CK_CUDA(cudaMalloc(&d_a, sizeof(T) * a.size()));
  CK_CUDA(cudaMalloc(&d_w, sizeof(double) * (size_t)n));
  CK_CUDA(cudaMalloc(&d_info, sizeof(int)));
  CK_CUDA(cudaMemcpy(d_a, a.data(), sizeof(T) * a.size(), cudaMemcpyHostToDevice));
  size_t device_bytes = 0, host_bytes = 0;
  CK_SOLVER(cusolverDnXsyevd_bufferSize(handle, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, type,
                                        d_a, n, CUDA_R_64F, d_w, type, &device_bytes, &host_bytes));
  void *d_work = nullptr;
  CK_CUDA(cudaMalloc(&d_work, std::max<size_t>(device_bytes, 1)));
  std::vector<char> h_work(std::max<size_t>(host_bytes, 1));
  CK_CUDA(cudaDeviceSynchronize());

  Solution<T> s;
  const auto t0 = std::chrono::steady_clock::now();
  CK_SOLVER(cusolverDnXsyevd(handle, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, n, type, d_a, n,
                             CUDA_R_64F, d_w, type, d_work, device_bytes, h_work.data(), host_bytes, d_info));
  CK_CUDA(cudaDeviceSynchronize());
  s.seconds = seconds_since(t0);

  int info = 0;
  CK_CUDA(cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost));
  if (info != 0) fail(__FILE__, __LINE__, "cusolverDnXsyevd", "info != 0", info);
  s.w.resize((size_t)n);
  CK_CUDA(cudaMemcpy(s.w.data(), d_w, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost));
  for (int64_t c : columns) {
    std::vector<T> v((size_t)n);
    CK_CUDA(cudaMemcpy(v.data(), d_a + c * n, sizeof(T) * (size_t)n, cudaMemcpyDeviceToHost));
    s.vectors.push_back(std::move(v));
  }
  CK_CUDA(cudaFree(d_work));
  CK_CUDA(cudaFree(d_info));
  CK_CUDA(cudaFree(d_w));
  CK_CUDA(cudaFree(d_a));
  CK_SOLVER(cusolverDnDestroyParams(params));
  CK_SOLVER(cusolverDnDestroy(handle));
  return s;
}

/* (b) cusolverMgSyevd on `devices`. Layout (1D block-cyclic by columns, all n rows local): global
 * column block b (columns b*tile ...) lives on device b % G as its local block b / G; local
 * leading dimension n. Only the solver call is timed. */
template <class T>
static Solution<T> solve_mg(cusolverMgHandle_t handle, const std::vector<int> &devices, const std::vector<T> &a,
                            int64_t n, int64_t tile, const std::vector<int64_t> &columns) {
  const cudaDataType type = Scalar<T>::type;
  const int gpus = (int)devices.size();
  cudaLibMgGrid_t grid;
  cudaLibMgMatrixDesc_t desc;
  CK_SOLVER(cusolverMgCreateDeviceGrid(&grid, 1, gpus, devices.data(), CUDALIBMG_GRID_MAPPING_COL_MAJOR));
  CK_SOLVER(cusolverMgCreateMatrixDesc(&desc, n, n, n, tile, type, grid));

  const int64_t blocks = (n + tile - 1) / tile;
  const int64_t blocks_per_device = (blocks + gpus - 1) / gpus;
  std::vector<T *> parts(gpus, nullptr);
  for (int p = 0; p < gpus; p++) {
    CK_CUDA(cudaSetDevice(devices[p]));
    CK_CUDA(cudaMalloc(&parts[p], sizeof(T) * (size_t)(n * tile * blocks_per_device)));
  }
  for (int64_t b = 0; b < blocks; b++) {
    const int64_t width = std::min(tile, n - b * tile);
    CK_CUDA(cudaMemcpy(parts[b % gpus] + (b / gpus) * tile * n, a.data() + b * tile * n,
                       sizeof(T) * (size_t)(width * n), cudaMemcpyHostToDevice));
  }

  Solution<T> s;
  s.w.resize((size_t)n);
  int64_t lwork = 0;  // elements of T per device
  CK_SOLVER(cusolverMgSyevd_bufferSize(handle, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int)n,
                                       (void **)parts.data(), 1, 1, desc, s.w.data(), CUDA_R_64F, type, &lwork));
  std::vector<T *> work(gpus, nullptr);
  for (int p = 0; p < gpus; p++) {
    CK_CUDA(cudaSetDevice(devices[p]));
    CK_CUDA(cudaMalloc(&work[p], sizeof(T) * (size_t)std::max<int64_t>(lwork, 1)));
  }
  synchronize_all(devices);

  int info = 0;  // host, as are the eigenvalues
  const auto t0 = std::chrono::steady_clock::now();
  CK_SOLVER(cusolverMgSyevd(handle, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, (int)n, (void **)parts.data(),
                            1, 1, desc, s.w.data(), CUDA_R_64F, type, (void **)work.data(), lwork, &info));
  synchronize_all(devices);
  s.seconds = seconds_since(t0);
  if (info != 0) fail(__FILE__, __LINE__, "cusolverMgSyevd", "info != 0", info);

  for (int64_t c : columns) {  // eigenvector c: global column c of the distributed result
    const int64_t b = c / tile;
    std::vector<T> v((size_t)n);
    CK_CUDA(cudaMemcpy(v.data(), parts[b % gpus] + ((b / gpus) * tile + c % tile) * n, sizeof(T) * (size_t)n,
                       cudaMemcpyDeviceToHost));
    s.vectors.push_back(std::move(v));
  }
  for (int p = 0; p < gpus; p++) {
    CK_CUDA(cudaSetDevice(devices[p]));
    CK_CUDA(cudaFree(work[p]));
    CK_CUDA(cudaFree(parts[p]));
  }
  CK_SOLVER(cusolverMgDestroyMatrixDesc(desc));
  CK_SOLVER(cusolverMgDestroyGrid(grid));
  return s;
}

/* Largest ||A v - lambda v|| / (||A||_2 ||v||) over the checked eigenvectors (host, original A). */
template <class T>
static double max_residual(const std::vector<T> &a, int64_t n, const Solution<T> &s,
                           const std::vector<int64_t> &columns, double norm_a) {
  double worst = 0;
  std::vector<T> r((size_t)n);
  for (size_t k = 0; k < columns.size(); k++) {
    const std::vector<T> &v = s.vectors[k];
    const double lambda = s.w[(size_t)columns[k]];
    for (int64_t i = 0; i < n; i++) r[(size_t)i] = -lambda * v[(size_t)i];
    for (int64_t j = 0; j < n; j++) {  // r += A(:, j) v_j, column by column
      const T vj = v[(size_t)j];
      const T *col = a.data() + j * n;
      for (int64_t i = 0; i < n; i++) r[(size_t)i] += col[i] * vj;
    }
    double rr = 0, vv = 0;
    for (int64_t i = 0; i < n; i++) {
      rr += std::norm(r[(size_t)i]);
      vv += std::norm(v[(size_t)i]);
    }
    worst = std::max(worst, std::sqrt(rr / vv) / norm_a);
  }
  return worst;
}

static double max_difference(const std::vector<double> &x, const std::vector<double> &y) {
  double d = 0;
  for (size_t i = 0; i < x.size(); i++) d = std::max(d, std::fabs(x[i] - y[i]));
  return d;
}

/* One matrix size: both solvers, every tile; prints the detail and the summary line.
 * Returns the number of failed checks. */
template <class T>
static int run_size(cusolverMgHandle_t mg, const std::vector<int> &devices, const std::vector<int64_t> &tiles,
                    int64_t n, bool quiet) {
  const std::vector<T> a = random_hermitian<T>(n, 0x5eed0000ull + (uint64_t)n);
  std::vector<int64_t> columns;  // up to 8 eigenvectors spread from the lowest to the highest
  const int64_t checked = std::min<int64_t>(8, n);
  for (int64_t k = 0; k < checked; k++) columns.push_back(checked > 1 ? k * (n - 1) / (checked - 1) : 0);

  const Solution<T> dn = solve_dn(a, n, columns);
  const double norm_a = std::max(std::fabs(dn.w.front()), std::fabs(dn.w.back()));  // spectral radius
  const double resid_dn = max_residual(a, n, dn, columns, norm_a);

  double best_mg = 1e300, eig_diff = 0, resid_mg = 0;
  int64_t best_tile = 0;
  for (int64_t tile : tiles) {
    const Solution<T> s = solve_mg(mg, devices, a, n, tile, columns);
    const double diff = max_difference(dn.w, s.w) / norm_a;
    const double resid = max_residual(a, n, s, columns, norm_a);
    if (!quiet)
      printf("# n=%lld type=%c gpus=%d tile=%lld mg_syevd_s=%.3f max_eig_diff=%.1e resid_mg=%.1e\n", (long long)n,
             Scalar<T>::letter, (int)devices.size(), (long long)tile, s.seconds, diff, resid);
    eig_diff = std::max(eig_diff, diff);
    resid_mg = std::max(resid_mg, resid);
    if (s.seconds < best_mg) {
      best_mg = s.seconds;
      best_tile = tile;
    }
  }
  if (!quiet)
    printf("n=%lld type=%c gpus=%d dn_syevd_s=%.3f mg_syevd_s=%.3f speedup=%.2f max_eig_diff=%.1e resid_dn=%.1e "
           "resid_mg=%.1e best_tile=%lld\n",
           (long long)n, Scalar<T>::letter, (int)devices.size(), dn.seconds, best_mg, dn.seconds / best_mg, eig_diff,
           resid_dn, resid_mg, (long long)best_tile);
  fflush(stdout);
  int failed = 0;
  if (!(eig_diff <= tolerance)) {
    fprintf(stderr, "n=%lld: eigenvalues differ by %.1e (relative to the spectral radius) > %.0e\n", (long long)n,
            eig_diff, tolerance);
    failed++;
  }
  if (!(resid_dn <= tolerance && resid_mg <= tolerance)) {
    fprintf(stderr, "n=%lld: eigenvector residual dn %.1e, mg %.1e > %.0e\n", (long long)n, resid_dn, resid_mg,
            tolerance);
    failed++;
  }
  return failed;
}

/* cusolverMg moves tiles between GPUs directly where peer access is possible. */
static bool enable_peer_access(const std::vector<int> &devices) {
  bool all = true;
  for (int a : devices) {
    CK_CUDA(cudaSetDevice(a));
    for (int b : devices) {
      if (a == b) continue;
      int can = 0;
      CK_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can) {
        all = false;
        continue;
      }
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled)
        (void)cudaGetLastError();  // already on is fine: clear the recorded error
      else
        CK_CUDA(e);
    }
  }
  return all;
}

static int usage(const char *why) {
  fprintf(stderr, "bench_dense_mg: %s\nusage: bench_dense_mg [--real|--complex] [--gpus G] [--tiles T1,T2,...] n...\n",
          why);
  return 1;
}

template <class T>
static int run_all(cusolverMgHandle_t mg, const std::vector<int> &devices, const std::vector<int64_t> &tiles,
                   const std::vector<int64_t> &sizes) {
  run_size<T>(mg, devices, tiles, 1024, true);  // warm-up: first-call overheads of both libraries
  int failed = 0;
  for (int64_t n : sizes) failed += run_size<T>(mg, devices, tiles, n, false);
  return failed;
}

int main(int argc, char **argv) {
  bool complex_type = false;
  int gpus = 0;  // 0: all visible
  std::vector<int64_t> tiles = {256, 512}, sizes;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "--real") {
      complex_type = false;
    } else if (arg == "--complex") {
      complex_type = true;
    } else if (arg == "--gpus" && i + 1 < argc) {
      gpus = atoi(argv[++i]);
      if (gpus < 1) return usage("--gpus needs a count >= 1");
    } else if (arg == "--tiles" && i + 1 < argc) {
      tiles.clear();
      for (char *t = strtok(argv[++i], ","); t; t = strtok(nullptr, ",")) {
        const long long v = atoll(t);
        if (v < 1) return usage("--tiles needs sizes >= 1, comma separated");
        tiles.push_back(v);
      }
      if (tiles.empty()) return usage("--tiles needs at least one size");
    } else {
      char *end = nullptr;
      const long long n = strtoll(arg.c_str(), &end, 10);
      if (*end != '\0' || n < 1 || n > 46340) return usage(("not an option nor a size in 1..46340: " + arg).c_str());
      sizes.push_back(n);
    }
  }
  if (sizes.empty()) return usage("no matrix size given");

  if (const int code = bench_gpu_missing()) return code;
  int visible = 0;
  CK_CUDA(cudaGetDeviceCount(&visible));
  if (gpus == 0) gpus = visible;
  if (gpus > visible) {
    fprintf(stderr, "bench_dense_mg: --gpus %d but only %d GPU(s) visible\n", gpus, visible);
    return 1;
  }
  std::vector<int> devices(gpus);
  for (int p = 0; p < gpus; p++) devices[p] = p;
  cudaDeviceProp prop;
  CK_CUDA(cudaGetDeviceProperties(&prop, 0));
  cusolverMgHandle_t mg;
  CK_SOLVER(cusolverMgCreate(&mg));
  CK_SOLVER(cusolverMgDeviceSelect(mg, gpus, devices.data()));
  const bool peer = enable_peer_access(devices);
  printf("# %d visible GPU(s), cusolverMg on %d (%s), peer access %s\n", visible, gpus, prop.name,
         gpus == 1 ? "not needed" : peer ? "on between all" : "NOT available between all");
  const int failed = complex_type ? run_all<cplx>(mg, devices, tiles, sizes) : run_all<double>(mg, devices, tiles, sizes);
  CK_SOLVER(cusolverMgDestroy(mg));
  if (failed) fprintf(stderr, "bench_dense_mg: %d check(s) FAILED\n", failed);
  return failed ? 1 : 0;
}
