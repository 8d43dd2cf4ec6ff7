/* The distributed eigensolver's calls on the host or on the rank's device (dense_exec.h): the host
 * side is BLAS, LAPACK and loops here, the device side gpu/dense_exec_cuda.cu. */
#include <limits.h>
#include <math.h>
#include <string.h>
#include "dense_blas.h"
#include "dense_exec.h"
#include "dense_gpu.h"
#include "dense_internal.h"
#include "error_macros.h"

static int on_gpu(const hm_dense_exec *x) { return x && x->device >= 0; }

int hm_dense_x_alloc(const hm_dense_exec *x, double **p, int64_t count) {
  *p = NULL;
  if (on_gpu(x)) return hm_dense_cuda_alloc(x->device, p, count > 0 ? count : 1);
  *p = calloc((size_t)(count > 0 ? count : 1), sizeof(double));
  char t[32];
  HM_CHECK(*p, HM_ERR_MEMORY, "could not allocate %s of host memory", hm_dense_bytes_text(8.0 * (double)count, t));
  return HM_SUCCESS;
}

void hm_dense_x_free(const hm_dense_exec *x, double *p) {
  if (!p) return;
  if (on_gpu(x)) hm_dense_cuda_free(x->device, p);
  else free(p);
}

int hm_dense_x_copy_block(const hm_dense_exec *x, char dir, double *dst, int64_t ldd, const double *src,
                          int64_t lds, int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0) return HM_SUCCESS;
  if (on_gpu(x)) return hm_dense_cuda_copy_block(x->device, dir, dst, ldd, src, lds, rows, cols);
  for (int64_t j = 0; j < cols; j++) memmove(dst + j * ldd, src + j * lds, sizeof(double) * (size_t)rows);
  return HM_SUCCESS;
}

int hm_dense_x_copy(const hm_dense_exec *x, char dir, double *dst, const double *src, int64_t count) {
  return hm_dense_x_copy_block(x, dir, dst, count, src, count, count, 1);
}

int hm_dense_x_gemm(const hm_dense_exec *x, hm_scalar type, char ta, char tb, int64_t m, int64_t n, int64_t k,
                    double complex alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                    double complex beta, double *C, int64_t ldc) {
  if (!on_gpu(x)) {
    hm_dense_gemm(type, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    return HM_SUCCESS;
  }
  if (m <= 0 || n <= 0) return HM_SUCCESS;
  const double a[2] = {creal(alpha), cimag(alpha)}, bt[2] = {creal(beta), cimag(beta)};
  return hm_dense_cuda_gemm(x->device, (int)type, ta, tb, m, n, k, a, A, lda, B, ldb, bt, C, ldc);
}

int hm_dense_x_trsm(const hm_dense_exec *x, hm_scalar type, char side, char trans, int64_t m, int64_t n, const double *L,
                    int64_t ldl, double *X, int64_t ldx) {
  if (m <= 0 || n <= 0) return HM_SUCCESS;
  if (on_gpu(x)) return hm_dense_cuda_trsm(x->device, (int)type, side, trans, m, n, L, ldl, X, ldx);
  const CBLAS_SIDE sd = side == 'L' ? CblasLeft : CblasRight;
  const CBLAS_TRANSPOSE t = trans == 'N' ? CblasNoTrans : type == HM_REAL ? CblasTrans : CblasConjTrans;
  if (type == HM_REAL) {
    cblas_dtrsm(CblasColMajor, sd, CblasLower, t, CblasNonUnit, (int)m, (int)n, 1, L, (int)ldl, X, (int)ldx);
  } else {
    const double complex one = 1;
    cblas_ztrsm(CblasColMajor, sd, CblasLower, t, CblasNonUnit, (int)m, (int)n, &one, L, (int)ldl, X, (int)ldx);
  }
  return HM_SUCCESS;
}

int hm_dense_x_apply_block_reflector(const hm_dense_exec *x, hm_scalar type, int64_t m, int64_t n, int64_t k,
                                     const double *V, int64_t ldv, const double *T, int64_t ldt, double *Z,
                                     int64_t ldz, double *work, double *work2) {
  HM_CALL(hm_dense_x_gemm(x, type, 'C', 'N', k, n, m, 1, V, ldv, Z, ldz, 0, work, k)); /* V^H Z */
  if (n > m) { /* wide Z: (V T) (V^H Z), 2 m k^2 flops instead of T's 2 k^2 n */
    HM_CALL(hm_dense_x_gemm(x, type, 'N', 'N', m, k, k, 1, V, ldv, T, ldt, 0, work2, m)); /* V T */
    return hm_dense_x_gemm(x, type, 'N', 'N', m, n, k, -1, work2, m, work, k, 1, Z, ldz);
  }
  HM_CALL(hm_dense_x_gemm(x, type, 'N', 'N', k, n, k, 1, T, ldt, work, k, 0, work2, k)); /* T V^H Z */
  return hm_dense_x_gemm(x, type, 'N', 'N', m, n, k, -1, V, ldv, work2, k, 1, Z, ldz);    /* Z -= V (.) */
}

int hm_dense_x_rows_at_columns(const hm_dense_exec *x, hm_scalar type, int b, int rank, int P, int64_t l0,
                               int64_t nlt, const double *src, int64_t ld, int64_t g0, int64_t k, double *dst) {
  if (nlt <= 0 || k <= 0) return HM_SUCCESS;
  if (on_gpu(x)) return hm_dense_cuda_rows_at_columns(x->device, (int)type, b, rank, P, l0, nlt, src, ld, g0, k, dst);
  const int s = (int)type;
  for (int64_t j = 0; j < nlt; j++) {
    const int64_t g = hm_dense_global_of(l0 + j, b, rank, P) - g0;
    for (int64_t q = 0; q < k; q++)
      for (int z = 0; z < s; z++) dst[s * (q * nlt + j) + z] = src[s * (q * ld + g) + z];
  }
  return HM_SUCCESS;
}

int hm_dense_x_unit_lower(const hm_dense_exec *x, hm_scalar type, int64_t m, int64_t k, const double *A,
                          int64_t lda, double *v) {
  if (on_gpu(x)) return hm_dense_cuda_unit_lower(x->device, (int)type, m, k, A, lda, v);
  const int s = (int)type;
  memset(v, 0, sizeof(double) * (size_t)(s * m * k));
  for (int64_t j = 0; j < k; j++) {
    v[s * (j * m + j)] = 1;
    for (int64_t i = j + 1; i < m; i++)
      for (int q = 0; q < s; q++) v[s * (j * m + i) + q] = A[s * (j * lda + i) + q];
  }
  return HM_SUCCESS;
}

void hm_dense_t_from_gram(hm_scalar type, int64_t k, const double *G, const double *tau, double *T) {
  const int s = (int)type;
  memset(T, 0, sizeof(double) * (size_t)(s * k * k));
  for (int64_t j = 0; j < k; j++) {
    const double complex tj = s == 1 ? tau[j] : tau[2 * j] + I * tau[2 * j + 1];
    /* T(0:j, j) = T(0:j, 0:j) (-tau_j G(0:j, j)), T upper: row i uses columns i .. j - 1 */
    for (int64_t i = 0; i < j; i++) {
      double complex sum = 0;
      for (int64_t q = i; q < j; q++) {
        const double complex tiq = s == 1 ? T[q * k + i] : T[2 * (q * k + i)] + I * T[2 * (q * k + i) + 1];
        const double complex gqj = s == 1 ? G[j * k + q] : G[2 * (j * k + q)] + I * G[2 * (j * k + q) + 1];
        sum += tiq * gqj;
      }
      sum *= -tj;
      T[s * (j * k + i)] = creal(sum);
      if (s == 2) T[2 * (j * k + i) + 1] = cimag(sum);
    }
    T[s * (j * k + j)] = creal(tj);
    if (s == 2) T[2 * (j * k + j) + 1] = cimag(tj);
  }
}

int hm_dense_x_panel_qr(const hm_dense_exec *x, hm_scalar type, int64_t m, int64_t k, double *A, int64_t lda,
                        double *v, double *t, int *info) {
  const int s = (int)type;
  const int64_t kr = m < k ? m : k; /* reflectors */
  double *tau = malloc(sizeof(double) * (size_t)(s * k)), *gram = malloc(sizeof(double) * (size_t)(s * kr * kr));
  double *g = NULL;
  int st = tau && gram ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate a panel's T");
  *info = 0;
  if (!st && !on_gpu(x)) {
    *info = type == HM_REAL ? LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (int)m, (int)k, A, (int)lda, tau)
                            : LAPACKE_zgeqrf(LAPACK_COL_MAJOR, (int)m, (int)k, (lapack_complex_double *)A, (int)lda,
                                             (lapack_complex_double *)tau);
    if (!*info) *info = hm_dense_larft(type, m, kr, A, lda, tau, t, kr);
    if (!*info) st = hm_dense_x_unit_lower(x, type, m, kr, A, lda, v);
  } else if (!st) { /* on the device: QR there, T from the reflectors' Gram matrix (kr x kr, the only download) */
    st = hm_dense_cuda_geqrf(x->device, (int)type, m, k, A, lda, tau, info);
    if (!st && !*info) st = hm_dense_cuda_unit_lower(x->device, (int)type, m, kr, A, lda, v);
    if (!st && !*info) st = hm_dense_x_alloc(x, &g, s * kr * kr);
    if (!st && !*info) st = hm_dense_x_gemm(x, type, 'C', 'N', kr, kr, m, 1, v, m, v, m, 0, g, kr);
    if (!st && !*info) st = hm_dense_x_copy(x, 'D', gram, g, s * kr * kr);
    if (!st && !*info) hm_dense_t_from_gram(type, kr, gram, tau, t);
    hm_dense_x_free(x, g);
  }
  free(tau); free(gram);
  return st;
}

int hm_dense_x_tridiagonal_eigh(const hm_dense_exec *x, int64_t n, double *d, double *e, double *z, int *info) {
  *info = 0;
  if (on_gpu(x)) /* cuSOLVER's where this CUDA has one, else hamlet's with its merges on the GPU */
    return hm_dense_cuda_has_stedc() ? hm_dense_cuda_stedc(x->device, n, d, e, z, info)
                                     : hm_dense_tridiagonal_dc(x, n, d, e, z, info);
  *info = LAPACKE_dstedc(LAPACK_COL_MAJOR, 'I', (int)n, d, e, z, (int)n);
  return HM_SUCCESS;
}

int hm_dense_x_widen(const hm_dense_exec *x, hm_scalar type, int64_t n, int64_t cols, const double *src,
                     int64_t lds, double *dst, int64_t ldd) {
  if (type == HM_REAL) return hm_dense_x_copy_block(x, 'S', dst, ldd, src, lds, n, cols);
  if (on_gpu(x)) return hm_dense_cuda_widen(x->device, n, cols, src, lds, dst, ldd);
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < n; i++) dst[2 * (j * ldd + i)] = src[j * lds + i], dst[2 * (j * ldd + i) + 1] = 0;
  return HM_SUCCESS;
}

void hm_dense_x_finish(const hm_dense_exec *x) {
  if (on_gpu(x)) hm_dense_cuda_finish(x->device);
}

int hm_dense_x_rot(const hm_dense_exec *x, int64_t len, double *a, double *b, double c, double s) {
  if (len <= 0) return HM_SUCCESS;
  if (on_gpu(x)) return hm_dense_cuda_rot(x->device, len, a, b, c, s);
  cblas_drot((int)len, a, 1, b, 1, c, s);
  return HM_SUCCESS;
}

int hm_dense_x_transpose(const hm_dense_exec *x, hm_scalar type, int64_t rows, int64_t cols, const double *src,
                         int64_t lds, double *dst) {
  if (rows <= 0 || cols <= 0) return HM_SUCCESS;
  if (on_gpu(x)) return hm_dense_cuda_transpose(x->device, (int)type, rows, cols, src, lds, dst);
  const int s = (int)type;
  const int64_t tile = 64; /* neither side strides through memory an entry at a time */
#pragma omp parallel for schedule(static)
  for (int64_t j0 = 0; j0 < cols; j0 += tile)
    for (int64_t i0 = 0; i0 < rows; i0 += tile)
      for (int64_t i = i0; i < rows && i < i0 + tile; i++)
        for (int64_t j = j0; j < cols && j < j0 + tile; j++)
          for (int z = 0; z < s; z++) dst[s * (i * cols + j) + z] = src[s * (j * lds + i) + z];
  return HM_SUCCESS;
}

int hm_dense_x_gather_columns(const hm_dense_exec *x, int64_t rows, int64_t count, const double *src, int64_t lds,
                              const int64_t *idx, double *dst, int64_t ldd) {
  if (rows <= 0 || count <= 0) return HM_SUCCESS;
  if (on_gpu(x)) return hm_dense_cuda_gather_columns(x->device, rows, count, src, lds, idx, dst, ldd);
  for (int64_t j = 0; j < count; j++) memcpy(dst + j * ldd, src + idx[j] * lds, sizeof(double) * (size_t)rows);
  return HM_SUCCESS;
}

int hm_dense_x_secular_vectors(const hm_dense_exec *x, int64_t K, int64_t cols, const double *dl, const double *wt,
                               const int64_t *origin, const double *offset, const int64_t *perm, double *s,
                               int64_t lds) {
  if (K <= 0 || cols <= 0) return HM_SUCCESS;
  if (on_gpu(x)) return hm_dense_cuda_secular_vectors(x->device, K, cols, dl, wt, origin, offset, perm, s, lds);
#pragma omp parallel for schedule(static)
  for (int64_t j = 0; j < cols; j++) {
    double *col = s + j * lds, sum = 0;
    for (int64_t r = 0; r < K; r++) {
      const int64_t p = perm[r];
      col[r] = wt[p] / ((dl[p] - dl[origin[j]]) + offset[j]);
      sum += col[r] * col[r];
    }
    const double scale = 1 / sqrt(sum);
    for (int64_t r = 0; r < K; r++) col[r] *= scale;
  }
  return HM_SUCCESS;
}

static int comm_size(MPI_Comm comm) {
  int P = 1;
  MPI_Comm_size(comm, &P);
  return P;
}

int hm_dense_x_bcast(const hm_dense_exec *x, MPI_Comm comm, int root, double *data, double *host, int64_t count) {
  if (count <= 0 || comm_size(comm) == 1) return HM_SUCCESS;
  HM_CHECK(count < INT_MAX, HM_ERR_ARGUMENT, "a broadcast of %lld doubles, more than one MPI call takes",
           (long long)count);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  double *buf = on_gpu(x) ? host : data;
  if (on_gpu(x) && rank == root) HM_CALL(hm_dense_x_copy(x, 'D', buf, data, count));
  HM_CALL_MPI(MPI_Bcast(buf, (int)count, MPI_DOUBLE, root, comm));
  if (on_gpu(x) && rank != root) HM_CALL(hm_dense_x_copy(x, 'U', data, buf, count));
  return HM_SUCCESS;
}

int hm_dense_x_sum(const hm_dense_exec *x, MPI_Comm comm, double *data, double *host, int64_t count) {
  if (count <= 0 || comm_size(comm) == 1) return HM_SUCCESS;
  HM_CHECK(count < INT_MAX, HM_ERR_ARGUMENT, "a sum of %lld doubles, more than one MPI call takes", (long long)count);
  double *buf = on_gpu(x) ? host : data;
  if (on_gpu(x)) HM_CALL(hm_dense_x_copy(x, 'D', buf, data, count));
  HM_CALL_MPI(MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_DOUBLE, MPI_SUM, comm));
  if (on_gpu(x)) HM_CALL(hm_dense_x_copy(x, 'U', data, buf, count));
  return HM_SUCCESS;
}

double hm_dense_x_available(const hm_dense_exec *x, MPI_Comm comm) {
  /* The same collectives on every rank, CPU or GPU: this node's ranks, and those of them on x's device. */
  MPI_Comm node = MPI_COMM_NULL, same = MPI_COMM_NULL;
  int on_node = 1, sharing = 1;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_size(node, &on_node);
    if (MPI_Comm_split(node, on_gpu(x) ? x->device : INT_MAX / 2, 0, &same) == MPI_SUCCESS)
      MPI_Comm_size(same, &sharing), MPI_Comm_free(&same);
    MPI_Comm_free(&node);
  }
  if (!on_gpu(x)) return (double)hm_dense_host_available(on_node);
  double free_bytes = 0; /* a failed query answers 0: the memory check then refuses, naming it */
  if (hm_dense_cuda_free_bytes(x->device, &free_bytes)) return 0;
  const double cap = (double)hm_dense_memory_limit(), mine = free_bytes / sharing;
  return mine < cap ? mine : cap;
}
