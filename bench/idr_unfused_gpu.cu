/* Unfused IDR(s) on the GPU: the algorithm of hamlet's hm_idr (biorthogonal IDR(s) of van Gijzen and
 * Sonneveld 2011, minimal-residual smoothing, "maintaining the convergence" omega), written the plain
 * way: every vector operation one cuBLAS call (each of the s inner products <P_a|y> its own
 * cublasDdot / cublasZdotc returning to the host, axpy, scal, nrm2, copy, gemv for the
 * combinations of G and U columns), the matrix product by cusparseSpMV (CSR), the small s x s
 * triangular systems solved on the host (a device sync per step). The smoothing keeps xs and rs
 * explicitly (Zhou and Walker, as van Gijzen's idrs.m): t = rs - r, gamma = <t|rs>/<t|t>,
 * rs -= gamma t, xs -= gamma (xs - x), ||rs|| by nrm2.
 *
 * Benchmark (default): the real 3D convection-diffusion matrix (hm_convdiff_build) and the shifted
 * TI system z - H (z = 0.2 + 0.05i, hm_ti_build; applied as -H x by cuSPARSE, then + z x by one
 * axpy), s = 1, 2, 4, 8, a fixed number of outer iterations each; time per outer iteration of the
 * unfused solver next to hamlet's fused hm_idr (CUDA backend) on the same matrix, right-hand side
 * and shadow space in the same run, the memory-roofline bound of bench_idr and the ratio.
 *   bench_idr_unfused_gpu [--convdiff 172] [--ti 200 100 40] [--outer 100] [--s 1,2,4,8]
 *                         [--bw GB/s] [--copy-mib 512] [--no-fused]
 * Check (--check): both solvers to --tol (default 1e-8, at most --maxit iterations) on small
 * matrices (defaults --convdiff 20 --ti 8 8 4); prints both residual histories per outer iteration
 * and both final true residuals ||b - A x|| / ||b||; exits 1 unless the unfused solver converged
 * with a true residual <= 10 tol and, where the fused solver converged, in at most 2x its iterations
 * (+ one cycle).
 * --host runs the same unfused code with host loops instead of cuBLAS / cuSPARSE and hamlet on the
 * CPU backend (checks the algorithm on a machine without a GPU).
 * Exit 77: no CUDA device (without --host); 2: bad arguments. One process. */
#define MPICH_SKIP_MPICXX 1
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "hamlet.h"
extern "C" {
#include "objects.h"
}
#include "gpu_bench_common.h"


typedef std::complex<double> cplx;

/* ---- vector operations on n-vectors (ts = 1 real, 2 complex doubles per entry) ------------------ */
struct Ops {
  int64_t n;
  int ts;
  virtual ~Ops() {}
  virtual double *alloc(size_t vectors) = 0; /* zeroed */
  virtual void release(double *p) = 0;
  virtual void upload(double *dst, const double *host) = 0; /* one vector */
  virtual cplx dot(const double *x, const double *y) = 0;  /* x^H y */
  virtual void axpy(cplx a, const double *x, double *y) = 0;
  virtual void scal(cplx a, double *x) = 0;
  virtual double nrm2(const double *x) = 0;
  virtual void copy(const double *x, double *y) = 0;
  /* y = alpha [A_0 .. A_{m-1}] c + beta y, the m columns A_l = A + l n ts contiguous */
  virtual void gemv(int m, cplx alpha, const double *A, const cplx *c, cplx beta, double *y) = 0;
  virtual void apply(const double *x, double *y) = 0; /* y = Op x */
  virtual void sync() {}
  double *col(double *A, int l) const { return A + (size_t)l * n * ts; }
};

/* cuBLAS (pointer mode host: every dot and nrm2 waits for its result) and cuSPARSE SpMV. */
struct DeviceOps : Ops {
  cublasHandle_t bl;
  cusparseHandle_t sp;
  cusparseSpMatDescr_t A = nullptr;
  cusparseDnVecDescr_t dx = nullptr, dy = nullptr;
  void *rowptr = nullptr, *colidx = nullptr, *val = nullptr, *buf = nullptr;
  bool shifted = false;
  cplx z = 0;
  double *coef = nullptr; /* device copy of gemv's coefficients */
  cudaDataType vt;

  DeviceOps(const hm_csr &c, int ts_, bool shifted_, cplx z_) {
    n = c.nrows;
    ts = ts_;
    shifted = shifted_;
    z = z_;
    vt = ts == 2 ? CUDA_C_64F : CUDA_R_64F;
    const int64_t nnz = c.rowptr[c.nrows];
    const size_t n1 = (size_t)n + 1;
    cusparseIndexType_t it;
    if (nnz <= INT32_MAX) { /* 32-bit row offsets and columns */
      std::vector<int32_t> rp(n1);
      for (size_t i = 0; i < n1; i++) rp[i] = (int32_t)c.rowptr[i];
      CK_CUDA(cudaMalloc(&rowptr, n1 * 4));
      CK_CUDA(cudaMemcpy(rowptr, rp.data(), n1 * 4, cudaMemcpyHostToDevice));
      CK_CUDA(cudaMalloc(&colidx, (size_t)nnz * 4));
      CK_CUDA(cudaMemcpy(colidx, c.col, (size_t)nnz * 4, cudaMemcpyHostToDevice));
      it = CUSPARSE_INDEX_32I;
    } else {
      std::vector<int64_t> cl(c.col, c.col + nnz);
      CK_CUDA(cudaMalloc(&rowptr, n1 * 8));
      CK_CUDA(cudaMemcpy(rowptr, c.rowptr, n1 * 8, cudaMemcpyHostToDevice));
      CK_CUDA(cudaMalloc(&colidx, (size_t)nnz * 8));
      CK_CUDA(cudaMemcpy(colidx, cl.data(), (size_t)nnz * 8, cudaMemcpyHostToDevice));
      it = CUSPARSE_INDEX_64I;
    }
    CK_CUDA(cudaMalloc(&val, (size_t)nnz * ts * 8));
    CK_CUDA(cudaMemcpy(val, c.val, (size_t)nnz * ts * 8, cudaMemcpyHostToDevice));
    CK_BLAS(cublasCreate(&bl));
    CK_BLAS(cublasSetPointerMode(bl, CUBLAS_POINTER_MODE_HOST));
    CK_SPARSE(cusparseCreate(&sp));
    CK_SPARSE(cusparseCreateCsr(&A, n, n, nnz, rowptr, colidx, val, it, it, CUSPARSE_INDEX_BASE_ZERO, vt));
    double *tx = alloc(2);
    CK_SPARSE(cusparseCreateDnVec(&dx, n, tx, vt));
    CK_SPARSE(cusparseCreateDnVec(&dy, n, col(tx, 1), vt));
    size_t sz = 0;
    const cplx one = shifted ? -1.0 : 1.0, zero = 0;
    const double one_r = one.real(), zero_r = 0;
    const void *pa = ts == 2 ? (const void *)&one : &one_r, *pb = ts == 2 ? (const void *)&zero : &zero_r;
    CK_SPARSE(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, pa, A, dx, pb, dy, vt,
                                      CUSPARSE_SPMV_ALG_DEFAULT, &sz));
    CK_CUDA(cudaMalloc(&buf, std::max<size_t>(sz, 16))); /* no preprocess: the plain call sequence */
    release(tx);
    CK_CUDA(cudaMalloc(&coef, 64 * 2 * sizeof(double)));
  }
  ~DeviceOps() override {
    CK_SPARSE(cusparseDestroyDnVec(dx));
    CK_SPARSE(cusparseDestroyDnVec(dy));
    CK_SPARSE(cusparseDestroySpMat(A));
    CK_SPARSE(cusparseDestroy(sp));
    CK_BLAS(cublasDestroy(bl));
    CK_CUDA(cudaFree(buf));
    CK_CUDA(cudaFree(rowptr));
    CK_CUDA(cudaFree(colidx));
    CK_CUDA(cudaFree(val));
    CK_CUDA(cudaFree(coef));
  }
  double *alloc(size_t vectors) override {
    double *p = nullptr;
    const size_t bytes = std::max<size_t>(vectors, 1) * n * ts * sizeof(double);
    CK_CUDA(cudaMalloc(&p, bytes));
    CK_CUDA(cudaMemset(p, 0, bytes));
    return p;
  }
  void release(double *p) override { CK_CUDA(cudaFree(p)); }
  void upload(double *dst, const double *host) override {
    CK_CUDA(cudaMemcpy(dst, host, (size_t)n * ts * sizeof(double), cudaMemcpyHostToDevice));
  }
  static const cuDoubleComplex *zc(const double *p) { return (const cuDoubleComplex *)p; }
  static cuDoubleComplex *zc(double *p) { return (cuDoubleComplex *)p; }
  static cuDoubleComplex zs(cplx a) { return make_cuDoubleComplex(a.real(), a.imag()); }
  cplx dot(const double *x, const double *y) override {
    if (ts == 1) {
      double r;
      CK_BLAS(cublasDdot(bl, (int)n, x, 1, y, 1, &r));
      return r;
    }
    cuDoubleComplex r;
    CK_BLAS(cublasZdotc(bl, (int)n, zc(x), 1, zc(y), 1, &r));
    return cplx(r.x, r.y);
  }
  void axpy(cplx a, const double *x, double *y) override {
    if (ts == 1) {
      const double ar = a.real();
      CK_BLAS(cublasDaxpy(bl, (int)n, &ar, x, 1, y, 1));
    } else {
      const cuDoubleComplex az = zs(a);
      CK_BLAS(cublasZaxpy(bl, (int)n, &az, zc(x), 1, zc(y), 1));
    }
  }
  void scal(cplx a, double *x) override {
    if (ts == 1) {
      const double ar = a.real();
      CK_BLAS(cublasDscal(bl, (int)n, &ar, x, 1));
    } else {
      const cuDoubleComplex az = zs(a);
      CK_BLAS(cublasZscal(bl, (int)n, &az, zc(x), 1));
    }
  }
  double nrm2(const double *x) override {
    double r;
    if (ts == 1) CK_BLAS(cublasDnrm2(bl, (int)n, x, 1, &r));
    else CK_BLAS(cublasDznrm2(bl, (int)n, zc(x), 1, &r));
    return r;
  }
  void copy(const double *x, double *y) override {
    if (ts == 1) CK_BLAS(cublasDcopy(bl, (int)n, x, 1, y, 1));
    else CK_BLAS(cublasZcopy(bl, (int)n, zc(x), 1, zc(y), 1));
  }
  void gemv(int m, cplx alpha, const double *Am, const cplx *c, cplx beta, double *y) override {
    double h[128];
    for (int l = 0; l < m; l++) {
      h[ts * l] = c[l].real();
      if (ts == 2) h[2 * l + 1] = c[l].imag();
    }
    CK_CUDA(cudaMemcpy(coef, h, (size_t)m * ts * sizeof(double), cudaMemcpyHostToDevice));
    if (ts == 1) {
      const double ar = alpha.real(), br = beta.real();
      CK_BLAS(cublasDgemv(bl, CUBLAS_OP_N, (int)n, m, &ar, Am, (int)n, coef, 1, &br, y, 1));
    } else {
      const cuDoubleComplex az = zs(alpha), bz = zs(beta);
      CK_BLAS(cublasZgemv(bl, CUBLAS_OP_N, (int)n, m, &az, zc(Am), (int)n, zc(coef), 1, &bz, zc(y), 1));
    }
  }
  void apply(const double *x, double *y) override {
    CK_SPARSE(cusparseDnVecSetValues(dx, (void *)x));
    CK_SPARSE(cusparseDnVecSetValues(dy, y));
    const cplx a = shifted ? -1.0 : 1.0, zero = 0;
    const double ar = a.real(), zr = 0;
    const void *pa = ts == 2 ? (const void *)&a : &ar, *pb = ts == 2 ? (const void *)&zero : &zr;
    CK_SPARSE(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, pa, A, dx, pb, dy, vt, CUSPARSE_SPMV_ALG_DEFAULT, buf));
    if (shifted) axpy(z, x, y); /* z x - A x */
  }
  void sync() override { CK_CUDA(cudaDeviceSynchronize()); }
};

/* The same operations as plain host loops (the --host check of the algorithm). */
struct HostOps : Ops {
  const hm_csr *c;
  bool shifted;
  cplx z;
  HostOps(const hm_csr &c_, int ts_, bool shifted_, cplx z_) : c(&c_), shifted(shifted_), z(z_) {
    n = c_.nrows;
    ts = ts_;
  }
  cplx at(const double *x, int64_t i) const { return ts == 2 ? cplx(x[2 * i], x[2 * i + 1]) : cplx(x[i], 0); }
  void put(double *x, int64_t i, cplx v) const {
    if (ts == 2) {
      x[2 * i] = v.real();
      x[2 * i + 1] = v.imag();
    } else {
      x[i] = v.real();
    }
  }
  double *alloc(size_t vectors) override { return (double *)calloc(std::max<size_t>(vectors, 1) * n * ts, sizeof(double)); }
  void release(double *p) override { free(p); }
  void upload(double *dst, const double *host) override { memcpy(dst, host, (size_t)n * ts * sizeof(double)); }
  cplx dot(const double *x, const double *y) override {
    cplx s = 0;
    for (int64_t i = 0; i < n; i++) s += std::conj(at(x, i)) * at(y, i);
    return s;
  }
  void axpy(cplx a, const double *x, double *y) override {
    if (ts == 1) a = a.real();
    for (int64_t i = 0; i < n; i++) put(y, i, at(y, i) + a * at(x, i));
  }
  void scal(cplx a, double *x) override {
    if (ts == 1) a = a.real();
    for (int64_t i = 0; i < n; i++) put(x, i, a * at(x, i));
  }
  double nrm2(const double *x) override { return std::sqrt(dot(x, x).real()); }
  void copy(const double *x, double *y) override { memcpy(y, x, (size_t)n * ts * sizeof(double)); }
  void gemv(int m, cplx alpha, const double *Am, const cplx *cc, cplx beta, double *y) override {
    for (int64_t i = 0; i < n; i++) {
      cplx s = 0;
      for (int l = 0; l < m; l++) s += at(Am + (size_t)l * n * ts, i) * cc[l];
      put(y, i, alpha * s + beta * at(y, i));
    }
  }
  void apply(const double *x, double *y) override {
    for (int64_t i = 0; i < n; i++) {
      cplx s = 0;
      for (int64_t e = c->rowptr[i]; e < c->rowptr[i + 1]; e++) s += at(c->val, e) * at(x, c->col[e]);
      put(y, i, shifted ? z * at(x, i) - s : s);
    }
  }
};

/* ---- the solver ---------------------------------------------------------------------------------- */
struct Outcome {
  int its = 0;            /* operator applications */
  bool converged = false; /* the smoothed residual reached tol */
  bool broke = false;     /* a division by zero or not a number */
  double res = 0;         /* ||rs|| / ||b|| at the end */
  std::vector<double> hist;
};

/* P: s orthonormal columns, modified Gram-Schmidt on raw (the Q of Cholesky QR: the same basis as
 * hm_idr's shadow space up to rounding when raw is hm_idr's random block). */
static double *shadow_space(Ops &o, int s, const std::vector<double> &raw_rowmajor) {
  double *P = o.alloc(s);
  std::vector<double> colv((size_t)o.n * o.ts);
  for (int a = 0; a < s; a++) {
    for (int64_t i = 0; i < o.n; i++)
      for (int t = 0; t < o.ts; t++) colv[(size_t)i * o.ts + t] = raw_rowmajor[((size_t)i * s + a) * o.ts + t];
    double *pa = o.col(P, a);
    o.upload(pa, colv.data());
    for (int q = 0; q < a; q++) o.axpy(-o.dot(o.col(P, q), pa), o.col(P, q), pa);
    o.scal(1.0 / o.nrm2(pa), pa);
  }
  return P;
}

static bool finite(cplx v) { return std::isfinite(v.real()) && std::isfinite(v.imag()); }

struct Idr {
  Ops &o;
  int s;
  double tol, angle;
  int maxit;
  const double *P, *b;
  double *x, *r, *xs, *rs, *v, *t, *w, *G, *U;
  std::vector<cplx> M, f;
  cplx omega = 1;
  double bnorm = 1;
  Outcome out;

  Idr(Ops &o_, int s_, const double *P_, const double *b_, double tol_, int maxit_, double angle_)
      : o(o_), s(s_), tol(tol_), angle(angle_), maxit(maxit_), P(P_), b(b_) {
    x = o.alloc(1); r = o.alloc(1); xs = o.alloc(1); rs = o.alloc(1);
    v = o.alloc(1); t = o.alloc(1); w = o.alloc(1);
    G = o.alloc(s); U = o.alloc(s);
    M.assign((size_t)s * s, 0);
    for (int a = 0; a < s; a++) M[a * s + a] = 1;
    f.assign(s, 0);
  }
  ~Idr() {
    for (double *p : {x, r, xs, rs, v, t, w, G, U}) o.release(p);
  }

  /* x += beta u, r -= beta g, then the smoothing; false when the solve stops */
  bool update(cplx beta, const double *g, const double *u) {
    o.axpy(beta, u, x);
    o.axpy(-beta, g, r);
    o.copy(rs, w);
    o.axpy(-1.0, r, w); /* w = rs - r */
    const double ww = o.dot(w, w).real();
    if (ww > 0) {
      const cplx gamma = o.dot(w, rs) / ww;
      o.axpy(-gamma, w, rs);
      o.copy(xs, w);
      o.axpy(-1.0, x, w); /* w = xs - x */
      o.axpy(-gamma, w, xs);
    }
    out.res = o.nrm2(rs) / bnorm;
    out.its++;
    out.hist.push_back(out.res);
    if (!std::isfinite(out.res)) out.broke = true;
    else if (out.res <= tol) out.converged = true;
    return !out.broke && !out.converged && out.its < maxit;
  }

  bool idr_step(int kk) {
    const int m = s - kk;
    cplx c[64], h[64], alpha[64];
    for (int l = 0; l < m; l++) { /* c = M(kk:s, kk:s)^-1 f(kk:s), lower triangular */
      cplx e = f[kk + l];
      for (int q = 0; q < l; q++) e -= M[(kk + l) * s + kk + q] * c[q];
      c[l] = e / M[(kk + l) * s + kk + l];
    }
    double *Gk = o.col(G, kk), *Uk = o.col(U, kk);
    o.copy(r, v);
    o.gemv(m, -1.0, Gk, c, 1.0, v); /* v = r - G(:, kk:s) c */
    o.scal(c[0], Uk);               /* U_kk = omega v + U(:, kk:s) c */
    if (m > 1) o.gemv(m - 1, 1.0, o.col(U, kk + 1), c + 1, 1.0, Uk);
    o.axpy(omega, v, Uk);
    o.apply(Uk, Gk);
    for (int a = 0; a < s; a++) h[a] = o.dot(o.col((double *)P, a), Gk); /* s separate inner products */
    for (int q = 0; q < kk; q++) { /* alpha = M(0:kk, 0:kk)^-1 h(0:kk) */
      cplx e = h[q];
      for (int p = 0; p < q; p++) e -= M[q * s + p] * alpha[p];
      alpha[q] = e / M[q * s + q];
    }
    for (int a = kk; a < s; a++) { /* M(kk:s, kk) = <P|G_kk - G alpha> */
      cplx e = h[a];
      for (int q = 0; q < kk; q++) e -= M[a * s + q] * alpha[q];
      M[a * s + kk] = e;
    }
    const cplx mkk = M[kk * s + kk];
    if (mkk == 0.0 || !finite(mkk)) {
      out.broke = true;
      return false;
    }
    const cplx beta = f[kk] / mkk;
    if (kk > 0) {
      o.gemv(kk, -1.0, G, alpha, 1.0, Gk);
      o.gemv(kk, -1.0, U, alpha, 1.0, Uk);
    }
    if (!update(beta, Gk, Uk)) return false;
    for (int a = kk + 1; a < s; a++) f[a] -= beta * M[a * s + kk];
    return true;
  }

  bool reduction_step() {
    o.apply(r, t);
    const double tt = o.dot(t, t).real();
    const cplx tr = o.dot(t, r);
    const double nr = o.nrm2(r), nt = std::sqrt(tt);
    if (!(nt > 0) || !finite(tr)) {
      out.broke = true;
      return false;
    }
    cplx om = tr / tt;
    const double rho = std::abs(tr) / (nt * nr);
    if (rho < angle && rho > 0) om *= angle / rho;
    if (om == 0.0 || !finite(om)) {
      out.broke = true;
      return false;
    }
    omega = om;
    return update(om, t, r);
  }

  /* from x = 0; true while it goes on */
  Outcome run() {
    o.copy(b, r);
    o.copy(b, rs);
    bnorm = o.nrm2(b);
    if (!(bnorm > 0)) bnorm = 1;
    out.hist.push_back(o.nrm2(r) / bnorm);
    bool going = out.hist[0] > tol;
    while (going) {
      for (int a = 0; a < s; a++) f[a] = o.dot(o.col((double *)P, a), r);
      for (int kk = 0; kk < s && going; kk++) going = idr_step(kk);
      if (going) going = reduction_step();
    }
    o.sync();
    return out;
  }

  /* ||b - A xs|| / ||b|| */
  double true_residual() {
    o.apply(xs, w);
    o.scal(-1.0, w);
    o.axpy(1.0, b, w);
    return o.nrm2(w) / bnorm;
  }
};

/* ---- one matrix: timings or the check ------------------------------------------------------------ */
struct Config {
  bool check = false, host = false, fused = true;
  int outer = 100, maxit = 5000;
  double tol = 1e-8, bw = 0;
  std::vector<int> svals = {1, 2, 4, 8};
  int failed = 0;
};

static double fused_solve(hm_operator *op, int s, double tol, int maxit, bool history, hm_mvec *bv, hm_mvec *xv,
                          hm_idr **keep) {
  hm_idr_options opt;
  CK_HM(hm_idr_options_default(&opt));
  opt.s = s;
  opt.smoothing = 1;
  opt.tol = tol;
  opt.maxit = maxit;
  opt.history = history;
  hm_idr *idr;
  CK_HM(hm_idr_create(op, &opt, &idr));
  const double zero[2] = {0, 0};
  CK_HM(hm_mvec_axpby(xv, zero, xv, zero));
  MPI_Barrier(MPI_COMM_SELF);
  double t = MPI_Wtime();
  const int st = hm_idr_solve(idr, bv, xv);
  t = MPI_Wtime() - t;
  if (st && st != HM_ERR_NOT_CONVERGED) printf("  (fused: %s)\n", hm_error_message());
  hm_error_clear();
  if (keep) *keep = idr;
  else hm_idr_destroy(&idr);
  return t;
}

static void run_matrix(const char *name, hm_context *ctx, hm_matrix *H, bool shifted, cplx z, Config &C) {
  int64_t N, nnz;
  hm_scalar type;
  CK_HM(hm_matrix_info(H, &N, &nnz, &type));
  const hm_csr &csr = H->csr;
  if (csr.ncols != csr.nrows || csr.nrows != N) die(__FILE__, __LINE__, name, "expected the whole matrix on one rank");
  const int ts = type == HM_COMPLEX ? 2 : 1;
  const hm_dist *dist;
  CK_HM(hm_matrix_dist(H, &dist));
  hm_operator *op;
  if (shifted) {
    const double zz[2] = {z.real(), z.imag()};
    CK_HM(hm_operator_create_shifted(H, 1, zz, &op));
  } else {
    CK_HM(hm_operator_create_matrix(H, &op));
  }
  hm_mvec *bv, *xv;
  CK_HM(hm_mvec_create(ctx, dist, type, 1, &bv));
  CK_HM(hm_mvec_create(ctx, dist, type, 1, &xv));
  CK_HM(hm_mvec_random_phase(bv, 7)); /* bench_idr's right-hand side */
  std::vector<double> hb((size_t)N * ts);
  CK_HM(hm_mvec_get(bv, hb.data()));

  Ops *o = C.host ? (Ops *)new HostOps(csr, ts, shifted, z) : (Ops *)new DeviceOps(csr, ts, shifted, z);
  double *b = o->alloc(1);
  o->upload(b, hb.data());
  const double vec = 8.0 * ts * (double)N, mat = (ts == 2 ? 20.0 : 12.0) * (double)nnz;
  if (C.check)
    printf("%s: n = %lld, nnz = %lld; tol = %.1e, maxit = %d\n", name, (long long)N, (long long)nnz, C.tol, C.maxit);
  else
    printf("%s: n = %lld, nnz = %lld\n  s   us/outer  bound_us  %%bound  vectors/outer  fused_us  %%bound  unfused/fused\n",
           name, (long long)N, (long long)nnz);
  for (int s : C.svals) {
    /* the shadow space of hm_idr: its random block (seed 1, the default), made orthonormal here */
    hm_mvec *raw;
    CK_HM(hm_mvec_create(ctx, dist, type, s, &raw));
    CK_HM(hm_mvec_random_phase(raw, 1));
    std::vector<double> hraw((size_t)N * s * ts);
    CK_HM(hm_mvec_get(raw, hraw.data()));
    hm_mvec_destroy(&raw);
    double *P = shadow_space(*o, s, hraw);
    hraw.clear();
    hraw.shrink_to_fit();

    if (C.check) {
      hm_idr *idr;
      fused_solve(op, s, C.tol, C.maxit, true, bv, xv, &idr);
      int fits = 0, fconv = 0;
      double frec = 0, ftrue = 0;
      CK_HM(hm_idr_systems(idr, &fits, &fconv, nullptr));
      CK_HM(hm_idr_residuals(idr, &frec, &ftrue));
      std::vector<double> fh(fits + 1);
      int len = 0;
      CK_HM(hm_idr_history(idr, 0, fh.data(), fits + 1, &len));
      hm_idr_destroy(&idr);
      Idr u(*o, s, P, b, C.tol, C.maxit, 0.7);
      Outcome r = u.run();
      const double utrue = u.true_residual();
      printf(" IDR(%d): relative residual after each outer iteration (s + 1 = %d iterations; last: at the stop)\n"
             "   outer   fused      unfused\n", s, s + 1);
      const int last = std::max(fits, r.its), step = s + 1, outers = (last + step - 1) / step;
      const int every = std::max(1, outers / 25);
      std::vector<int> rows;
      for (int q = 0; q < outers; q += every) rows.push_back(q);
      rows.push_back(outers);
      for (int q : rows) {
        const int it = std::min(q * step, last);
        char fa[32] = "         -", ua[32] = "         -";
        if (q == outers) { /* each at its own stop */
          snprintf(fa, sizeof fa, "%10.3e", fh[fits]);
          snprintf(ua, sizeof ua, "%10.3e", r.hist[r.its]);
        } else {
          if (it <= fits) snprintf(fa, sizeof fa, "%10.3e", fh[it]);
          if (it <= r.its) snprintf(ua, sizeof ua, "%10.3e", r.hist[it]);
        }
        printf("   %5d  %s  %s\n", q, fa, ua);
      }
      /* the unfused solver must solve the system; where the fused one converged, in comparable time */
      const bool ok = r.converged && !r.broke && utrue <= 10 * C.tol && (!fconv || r.its <= 2 * fits + s + 1);
      printf("   fused:   %s after %d iterations, recursive %.3e, true ||b - A x||/||b|| = %.3e\n",
             fconv ? "converged" : "NOT converged", fits, frec, ftrue);
      printf("   unfused: %s after %d iterations, recursive %.3e, true ||b - A x||/||b|| = %.3e  -> %s\n",
             r.converged ? "converged" : r.broke ? "BROKE DOWN" : "NOT converged", r.its, r.res, utrue,
             ok ? "ok" : "FAILED");
      if (!ok) C.failed = 1;
    } else {
      const double vectors = 22 + 4.5 * s * s + 27.5 * s;
      const double bound = (vectors * vec + (s + 1) * mat) / C.bw;
      double fper = 0;
      if (C.fused) {
        fused_solve(op, s, 0, s + 1, false, bv, xv, nullptr); /* warm up */
        hm_idr *idr;
        const double tf = fused_solve(op, s, 0, C.outer * (s + 1), false, bv, xv, &idr);
        int its = 0;
        CK_HM(hm_idr_systems(idr, &its, nullptr, nullptr));
        hm_idr_destroy(&idr);
        fper = its > 0 ? tf / ((double)its / (s + 1)) : 0;
      }
      { /* warm up */
        Idr u(*o, s, P, b, 0, s + 1, 0.7);
        u.run();
      }
      Idr u(*o, s, P, b, 0, C.outer * (s + 1), 0.7);
      o->sync();
      double t = MPI_Wtime();
      Outcome r = u.run();
      t = MPI_Wtime() - t;
      const double outer_done = (double)r.its / (s + 1), per = outer_done > 0 ? t / outer_done : 0;
      char fcol[64] = "        -       -          -";
      if (C.fused && fper > 0)
        snprintf(fcol, sizeof fcol, "%9.1f  %5.0f%%  %9.2fx", 1e6 * fper, 100 * bound / fper, per / fper);
      printf("  %d  %9.1f %9.1f  %5.0f%%  %6.1f        %s%s\n", s, 1e6 * per, 1e6 * bound,
             per > 0 ? 100 * bound / per : 0, vectors, fcol, outer_done < C.outer ? "  (unfused stopped early)" : "");
    }
    o->release(P);
  }
  o->release(b);
  delete o;
  hm_mvec_destroy(&bv);
  hm_mvec_destroy(&xv);
  hm_operator_destroy(&op);
}

/* ---- arguments ------------------------------------------------------------------------------------ */
[[noreturn]] static void usage(const char *why) {
  fprintf(stderr,
          "bench_idr_unfused_gpu: %s\n"
          "usage: bench_idr_unfused_gpu [--convdiff n] [--ti nx ny nz] [--outer N] [--s 1,2,4,8] [--bw GB/s]\n"
          "                             [--copy-mib M] [--no-fused] [--check [--tol T] [--maxit N]] [--host]\n",
          why);
  MPI_Finalize();
  exit(2);
}

static long long parse_int(const char *opt, const char *s, long long lo, long long hi) {
  return bench_parse_int(usage, opt, s, lo, hi);
}

static double parse_pos(const char *opt, const char *s) {
  char *end = nullptr;
  const double v = strtod(s, &end);
  if (end == s || *end || !(v > 0) || !std::isfinite(v)) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s needs a positive number, got \"%s\"", opt, s);
    usage(msg);
  }
  return v;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Config C;
  long long cd_n = -1, ti[3] = {-1, -1, -1}, copy_mib = 512;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    auto val = [&]() -> const char * {
      if (i + 1 >= argc) usage("an option is missing its value");
      return argv[++i];
    };
    if (!strcmp(o, "--check")) C.check = true;
    else if (!strcmp(o, "--host")) C.host = true;
    else if (!strcmp(o, "--no-fused")) C.fused = false;
    else if (!strcmp(o, "--convdiff")) cd_n = parse_int(o, val(), 0, 1000);
    else if (!strcmp(o, "--ti")) {
      for (int d = 0; d < 3; d++) ti[d] = parse_int(o, val(), 0, 1 << 16);
    } else if (!strcmp(o, "--outer")) C.outer = (int)parse_int(o, val(), 1, 1000000);
    else if (!strcmp(o, "--maxit")) C.maxit = (int)parse_int(o, val(), 1, 100000000);
    else if (!strcmp(o, "--tol")) C.tol = parse_pos(o, val());
    else if (!strcmp(o, "--bw")) C.bw = parse_pos(o, val()) * 1e9;
    else if (!strcmp(o, "--copy-mib")) copy_mib = parse_int(o, val(), 1, 1 << 20);
    else if (!strcmp(o, "--s")) {
      const char *v = val();
      C.svals.clear();
      std::vector<char> sv(v, v + strlen(v) + 1);
      for (char *tok = strtok(sv.data(), ","); tok; tok = strtok(nullptr, ",")) C.svals.push_back((int)parse_int("--s", tok, 1, 64));
      if (C.svals.empty()) usage("--s needs a comma-separated list of s values");
    } else {
      char msg[160];
      snprintf(msg, sizeof msg, "unknown option \"%s\"", o);
      usage(msg);
    }
  }
  /* sizes: 0 skips a matrix; the defaults are the benchmark case's GPU sizes, small ones for --check */
  if (cd_n < 0) cd_n = C.check ? 20 : 172;
  if (ti[0] < 0) {
    const long long d[3] = {200, 100, 40}, dc[3] = {8, 8, 4};
    for (int k = 0; k < 3; k++) ti[k] = C.check ? dc[k] : d[k];
  }
  if (!C.host) {
    if (const int code = no_device()) return code;
  }

  hm_context *ctx;
  CK_HM(hm_context_create(MPI_COMM_SELF, C.host ? HM_BACKEND_CPU : HM_BACKEND_CUDA, &ctx));
  if (!C.host) {
    cudaDeviceProp prop;
    CK_CUDA(cudaGetDeviceProperties(&prop, 0));
    if (!C.check && C.bw <= 0) {
      size_t free_b = 0, total_b = 0;
      CK_CUDA(cudaMemGetInfo(&free_b, &total_b));
      C.bw = copy_bandwidth(std::min((size_t)copy_mib << 20, free_b / 4));
      printf("unfused IDR(s) (cuBLAS + cuSPARSE SpMV CSR, s x s on the host) next to hamlet's fused hm_idr (CUDA backend),\n"
             "one run on %s; bandwidth %.1f GB/s (device copy measured in this run, read + write); %d outer iterations\n"
             "after one warm-up outer iteration each; same b (random phase, seed 7), x0 = 0, same shadow space\n\n",
             prop.name, C.bw / 1e9, C.outer);
    } else {
      printf("unfused IDR(s) on %s%s\n\n", prop.name, C.check ? ": check against hamlet's fused hm_idr" : "");
      if (C.bw <= 0) C.bw = 1;
    }
  } else {
    if (C.bw <= 0) C.bw = 1e11; /* nominal: --host prints no meaningful bound */
    printf("unfused IDR(s) with host loops (--host) next to hamlet on the CPU backend\n\n");
  }

  if (cd_n > 0) {
    hm_convdiff_params cp;
    CK_HM(hm_convdiff_params_default(&cp));
    cp.n = cd_n;
    hm_matrix *A;
    CK_HM(hm_convdiff_build(ctx, &cp, &A));
    char name[96];
    snprintf(name, sizeof name, "convection-diffusion %lld^3 (real)", cd_n);
    run_matrix(name, ctx, A, false, 0.0, C);
    hm_matrix_destroy(&A);
    printf("\n");
  }
  if (ti[0] > 0 && ti[1] > 0 && ti[2] > 0) {
    hm_ti_params tp;
    CK_HM(hm_ti_params_default(&tp));
    tp.nx = ti[0];
    tp.ny = ti[1];
    tp.nz = ti[2];
    hm_matrix *H;
    CK_HM(hm_ti_build(ctx, &tp, &H));
    char name[96];
    snprintf(name, sizeof name, "shifted TI z - H, %lld x %lld x %lld, z = 0.2 + 0.05i (complex)", ti[0], ti[1], ti[2]);
    run_matrix(name, ctx, H, true, cplx(0.2, 0.05), C);
    hm_matrix_destroy(&H);
  }
  if (C.check) printf("\ncheck: %s\n", C.failed ? "FAILED" : "passed");
  hm_context_destroy(&ctx);
  MPI_Finalize();
  return C.failed ? 1 : 0;
}
