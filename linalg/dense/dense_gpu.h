/* What linalg/dense asks of gpu/: the cuSOLVER path (gpu/dense_cuda.cu) and the device side of the
 * distributed eigensolver's calls (gpu/dense_exec_cuda.cu, dense_exec.h); gpu/dense_cuda_none.c
 * answers HM_ERR_BACKEND where CUDA is not built. Arrays are device pointers unless named host. */
#ifndef HAMLET_DENSE_GPU_H
#define HAMLET_DENSE_GPU_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* hm_dense_eigh on the current CUDA device: type 1 real / 2 complex, host arrays in and out.
 * Standard problems through cusolverDnXsyevd, generalized ones through cusolverDn{D,Z}sygvd/hegvd.
 * Refuses with HM_ERR_MEMORY when the device arrays and workspace exceed min(free device memory,
 * limit) (limit: SIZE_MAX for none). */
int hm_dense_cuda_eigh(int type, int64_t n, void *A, int64_t lda, void *B, int64_t ldb, int vectors,
                       double *w, size_t limit);

/* The distributed eigensolver's device calls, each on `device` (made current). */
int hm_dense_cuda_alloc(int device, double **p, int64_t count); /* zeroed */
void hm_dense_cuda_free(int device, double *p);
int hm_dense_cuda_free_bytes(int device, double *bytes);
void hm_dense_cuda_finish(int device); /* cudaDeviceSynchronize (a failure surfaces at the next checked call) */
/* dir 'S' device to device, 'D' device to host, 'U' host to device; rows and leading dimensions in doubles. */
int hm_dense_cuda_copy_block(int device, char dir, double *dst, int64_t ldd, const double *src, int64_t lds,
                             int64_t rows, int64_t cols);
/* cuBLAS gemm; alpha and beta: host (re, im). */
int hm_dense_cuda_gemm(int device, int type, char ta, char tb, int64_t m, int64_t n, int64_t k, const double *alpha,
                       const double *A, int64_t lda, const double *B, int64_t ldb, const double *beta, double *C,
                       int64_t ldc);
int hm_dense_cuda_rows_at_columns(int device, int type, int b, int rank, int P, int64_t l0, int64_t nlt,
                                  const double *src, int64_t ld, int64_t g0, int64_t k, double *dst);
int hm_dense_cuda_unit_lower(int device, int type, int64_t m, int64_t k, const double *A, int64_t lda, double *v);
/* QR in place (cuSOLVER geqrf); tau (host, k of type) and info come back. */
int hm_dense_cuda_geqrf(int device, int type, int64_t m, int64_t k, double *A, int64_t lda, double *tau, int *info);
/* Whether this CUDA's cuSOLVER has divide and conquer for tridiagonals (cusolverDnXstedc). */
int hm_dense_cuda_has_stedc(void);
/* The tridiagonal's eigenvalues (d) and eigenvectors (z) by cusolverDnXstedc. d, e: host (n, n - 1);
 * z: device n x n. */
int hm_dense_cuda_stedc(int device, int64_t n, double *d, double *e, double *z, int *info);
/* cuBLAS trsm with a lower, non-unit L; side 'L' / 'R', trans 'N' / 'C'. */
int hm_dense_cuda_trsm(int device, int type, char side, char trans, int64_t m, int64_t n, const double *L, int64_t ldl,
                       double *X, int64_t ldx);
/* Real columns a, b <- (c a + s b, c b - s a) (cublasDrot). */
int hm_dense_cuda_rot(int device, int64_t len, double *a, double *b, double c, double s);
/* Real: dst column j <- src column idx[j] (idx on the host, count entries). */
int hm_dense_cuda_gather_columns(int device, int64_t rows, int64_t count, const double *src, int64_t lds,
                                 const int64_t *idx, double *dst, int64_t ldd);
/* The rank-one problem's unit eigenvectors (dense_exec.h's hm_dense_x_secular_vectors; inputs on the host). */
int hm_dense_cuda_secular_vectors(int device, int64_t K, int64_t cols, const double *dl, const double *wt, const int64_t *origin,
                                  const double *offset, const int64_t *perm, double *s, int64_t lds);
/* dst (rows x cols, row-major) <- src (column-major, lds); type: doubles per entry. */
int hm_dense_cuda_transpose(int device, int type, int64_t rows, int64_t cols, const double *src, int64_t lds,
                            double *dst);
/* dst (complex, ldd) <- real src (lds), n x cols. */
int hm_dense_cuda_widen(int device, int64_t n, int64_t cols, const double *src, int64_t lds, double *dst, int64_t ldd);
#ifdef __cplusplus
}
#endif
#endif
