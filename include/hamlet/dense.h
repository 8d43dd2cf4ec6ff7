/* Dense Hermitian eigensolvers: all eigenvalues (ascending), optionally eigenvectors, of a
 * standard problem A z = lambda z or a generalized one A z = lambda B z (B Hermitian positive
 * definite; eigenvectors B-orthonormal), real symmetric or complex Hermitian, behind one call that
 * picks LAPACK (?syevd / ?sygvd), cuSOLVER (one GPU) or ScaLAPACK (p?syevd over MPI ranks).
 * Only the lower triangle of A and B is read.
 *
 * Memory: before allocating, the chosen path estimates the bytes it needs (host workspace, per-rank
 * ScaLAPACK arrays, or device memory from cudaMemGetInfo) and refuses with HM_ERR_MEMORY and a
 * message stating the size needed and the size available. The environment variable
 * HAMLET_DENSE_MEMORY_LIMIT (bytes, an integer) caps the memory every path counts as available
 * (host and device alike); tests use it to exercise the refusal. */
#ifndef HAMLET_DENSE_H
#define HAMLET_DENSE_H
#include "export.h"
#include <stdint.h>
#include "matrix.h"
#include "mvec.h"

typedef enum {
  HM_DENSE_AUTO = 0,     /* see each function */
  HM_DENSE_LAPACK = 1,   /* host LAPACK (OpenMP/pthread BLAS threads) */
  HM_DENSE_CUSOLVER = 2, /* one GPU through cuSOLVER (HM_ERR_BACKEND where CUDA is not built) */
  HM_DENSE_SCALAPACK = 3, /* ScaLAPACK over the matrix's ranks (hm_dense_eigh_matrix only) */
  HM_DENSE_DISTRIBUTED = 4 /* hamlet's two-stage solver over the matrix's ranks (hm_dense_eigh_matrix only) */
} hm_dense_method;

/* Below this order AUTO never uses a GPU in hm_dense_eigh (setup and transfers do not pay). */
#define HM_DENSE_GPU_MIN_N 2048

#ifdef __cplusplus
extern "C" {
#endif

/* Local, not collective. A: n x n column-major (leading dimension lda >= n), double or
 * double _Complex as type says; with vectors = 1 it is overwritten by the eigenvectors (column j
 * belongs to w[j]), else its contents are destroyed. B: NULL (standard problem) or n x n with
 * leading dimension ldb, overwritten by its Cholesky factor. w: n eigenvalues, ascending.
 * method: LAPACK, CUSOLVER (on the calling thread's current CUDA device), or AUTO = CUSOLVER where
 * CUDA is built, a device is visible and n >= HM_DENSE_GPU_MIN_N, else LAPACK (so small problems,
 * e.g. LOBPCG's projected ones, never touch the GPU). n = 0 is a no-op. The cuSOLVER path keeps
 * one cuSOLVER handle per device for the life of the process; call it from one host thread per
 * device at a time. */
HM_API int hm_dense_eigh(hm_scalar type, int64_t n, void *A, int64_t lda, void *B, int64_t ldb, int vectors,
                  hm_dense_method method, double *w);

/* Collective over A's context. All n_global eigenvalues of the distributed Hermitian A (or of the
 * pencil (A, B); B: NULL or on A's distribution and type), into w[n_global] on every rank.
 * vectors = 1: Z (n_global columns, A's distribution and type) gets this rank's rows of the
 * eigenvectors (column j belongs to w[j]); vectors = 0: Z must be NULL.
 * method: SCALAPACK (the nonzeros go straight to their owners in a 2D block-cyclic layout; the
 * matrix is never gathered on one rank), DISTRIBUTED (standard problems: column blocks on every rank,
 * reduced to a band by GEMM-rich panel updates, the band to a tridiagonal by bulge chasing, divide
 * and conquer, back-transformed on each rank's columns; never gathered either), LAPACK or CUSOLVER (gathered on rank 0, solved there,
 * w broadcast and Z scattered), AUTO = SCALAPACK on more than one rank, else CUSOLVER on a CUDA
 * context, else LAPACK. */
HM_API int hm_dense_eigh_matrix(hm_matrix *A, hm_matrix *B, int vectors, hm_dense_method method, double *w,
                         hm_mvec *Z);

/* Collective over ctx. hamlet's distributed solver (HM_DENSE_DISTRIBUTED) on a matrix distributed as
 * ScaLAPACK distributes it, so that a ScaLAPACK caller's arrays fit as they are: a is this rank's local
 * array of the n x n Hermitian A described by desca (ScaLAPACK's 9-integer descriptor: a block-cyclic
 * dtype 1, any process grid and block sizes, its BLACS context over exactly ctx's processes); b and
 * descb the same for B of a pencil, or both NULL. Only the lower triangles are read; a and b are not
 * changed. w: all n eigenvalues, ascending, on every rank. vectors = 1: z (local array of descz, n x n,
 * any layout, e.g. desca's) gets the eigenvectors (B-orthonormal for a pencil); vectors = 0: z and
 * descz NULL. On a CUDA context the solve runs on each rank's GPU (the arrays stay host arrays). */
HM_API int hm_dense_eigh_distributed(hm_context *ctx, hm_scalar type, const double *a, const int desca[9],
                                     const double *b, const int descb[9], int vectors, double *w, double *z,
                                     const int descz[9]);

#ifdef __cplusplus
}
#endif
#endif
