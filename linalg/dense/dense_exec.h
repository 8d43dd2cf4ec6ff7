/* Where the distributed eigensolver's large arrays live and what multiplies them: the host (BLAS and
 * LAPACK) or the rank's CUDA device (cuBLAS and cuSOLVER). The stages are written once against these
 * calls; an array is double * on either side (a complex entry two doubles). MPI sees host memory only:
 * hm_dense_x_bcast and hm_dense_x_sum stage a device array through a host buffer (no copy on the host
 * side), so the solver runs over any MPI, across nodes, and with CPU and GPU ranks side by side. */
#ifndef HAMLET_DENSE_EXEC_H
#define HAMLET_DENSE_EXEC_H
#include <complex.h>
#include <mpi.h>
#include <stdint.h>
#include "hamlet/context.h"

typedef struct {
  int device; /* the CUDA device of this rank's arrays, -1: the host */
} hm_dense_exec;

/* Zeroed array of count doubles on x's side. */
int hm_dense_x_alloc(const hm_dense_exec *x, double **p, int64_t count);
void hm_dense_x_free(const hm_dense_exec *x, double *p);

/* Copies of count doubles: 'S' within x's side, 'D' x's side to the host, 'U' host to x's side. */
int hm_dense_x_copy(const hm_dense_exec *x, char dir, double *dst, const double *src, int64_t count);
/* The same for a block of rows x cols doubles (column-major, leading dimensions in doubles). */
int hm_dense_x_copy_block(const hm_dense_exec *x, char dir, double *dst, int64_t ldd, const double *src,
                          int64_t lds, int64_t rows, int64_t cols);

/* C = alpha op(A) op(B) + beta C on x's side; op 'N' or 'C' (conjugate transpose). */
int hm_dense_x_gemm(const hm_dense_exec *x, hm_scalar type, char ta, char tb, int64_t m, int64_t n, int64_t k,
                    double complex alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
                    double complex beta, double *C, int64_t ldc);
/* X <- op(L)^-1 X (side 'L', X m x n) or X op(L)^-1 (side 'R'), L lower triangular, op = trans: 'N' or 'C'. */
int hm_dense_x_trsm(const hm_dense_exec *x, hm_scalar type, char side, char trans, int64_t m, int64_t n, const double *L,
                    int64_t ldl, double *X, int64_t ldx);
/* Z (m x n) <- (I - V T V^H) Z, all on x's side; work and work2: k x n each (for n > m work2 holds V T). */
int hm_dense_x_apply_block_reflector(const hm_dense_exec *x, hm_scalar type, int64_t m, int64_t n, int64_t k,
                                     const double *V, int64_t ldv, const double *T, int64_t ldt, double *Z,
                                     int64_t ldz, double *work, double *work2);

/* dst (nlt x k) <- the rows of src (k columns, leading dimension ld, row 0 = global row g0) at the
 * global indices of local columns l0 .. l0 + nlt of rank `rank` of P in column blocks of b. */
int hm_dense_x_rows_at_columns(const hm_dense_exec *x, hm_scalar type, int b, int rank, int P, int64_t l0,
                               int64_t nlt, const double *src, int64_t ld, int64_t g0, int64_t k, double *dst);
/* QR of the m x k panel A (leading dimension lda) in place; v (x's side, m x kr, kr = min(m, k)) gets
 * its unit lower trapezoidal reflectors, t (host, kr x kr, upper) the block reflector's T. info: LAPACK's. */
int hm_dense_x_panel_qr(const hm_dense_exec *x, hm_scalar type, int64_t m, int64_t k, double *A, int64_t lda,
                        double *v, double *t, int *info);
/* v (x's side, m x k) <- the unit lower trapezoidal reflectors stored below the diagonal of A. */
int hm_dense_x_unit_lower(const hm_dense_exec *x, hm_scalar type, int64_t m, int64_t k, const double *A,
                          int64_t lda, double *v);
/* The real symmetric tridiagonal (d, e; n) -> its eigenvalues in d and eigenvectors in z (x's side,
 * n x n real), by divide and conquer (LAPACK's on the host, cuSOLVER's on a GPU). info: the solver's. */
int hm_dense_x_tridiagonal_eigh(const hm_dense_exec *x, int64_t n, double *d, double *e, double *z, int *info);
/* Real columns a, b (len each, on x's side) <- (c a + s b, c b - s a): a plane rotation. */
int hm_dense_x_rot(const hm_dense_exec *x, int64_t len, double *a, double *b, double c, double s);
/* dst (rows x cols of type, row-major: entry (i, j) at i * cols + j) <- src (column-major, leading
 * dimension lds), both on x's side. */
int hm_dense_x_transpose(const hm_dense_exec *x, hm_scalar type, int64_t rows, int64_t cols, const double *src,
                         int64_t lds, double *dst);
/* Real: dst column j (rows doubles, leading dimension ldd) <- src column idx[j] (lds) for j < count;
 * idx on the host. */
int hm_dense_x_gather_columns(const hm_dense_exec *x, int64_t rows, int64_t count, const double *src, int64_t lds,
                              const int64_t *idx, double *dst, int64_t ldd);
/* Columns of the unit eigenvectors of a rank-one update's secular equation (LAPACK's dlaed3): s (x's
 * side, K x cols, leading dimension lds), column j for root j, row r for pole p = perm[r]: wt[p] / delta(p, j)
 * scaled to unit norm, delta(p, j) = (dl[p] - dl[origin[j]]) + offset[j] the distance from pole p to root j
 * measured from the root's nearest pole (offset[j] = dl[origin[j]] - root j as dlaed4 returns it). Inputs on
 * the host: dl, wt and perm K entries, origin and offset cols (offset by the caller to the first column). */
int hm_dense_x_secular_vectors(const hm_dense_exec *x, int64_t K, int64_t cols, const double *dl, const double *wt,
                               const int64_t *origin, const double *offset, const int64_t *perm, double *s,
                               int64_t lds);
/* hamlet's divide and conquer (dense_tridiagonal.c): d (host) <- the tridiagonal (d, e)'s eigenvalues,
 * ascending; z (x's side, n x n, zeroed by the caller) <- its eigenvectors. info: dsteqr's or dlaed4's. */
int hm_dense_tridiagonal_dc(const hm_dense_exec *x, int64_t n, double *d, const double *e, double *z, int *info);
/* The eigenvalues alone of the tridiagonal (d, e; n), ascending into d, by divide and conquer on the
 * host's threads (dense_tridiagonal_values.c). info: dsteqr's or dlaed4's. */
int hm_dense_tridiagonal_values(int64_t n, double *d, const double *e, int *info);
/* dst (n x cols of type, leading dimension ldd) <- the real src (leading dimension lds), both on x's side. */
int hm_dense_x_widen(const hm_dense_exec *x, hm_scalar type, int64_t n, int64_t cols, const double *src,
                     int64_t lds, double *dst, int64_t ldd);

/* MPI_Bcast / MPI_Allreduce (sum) of count doubles at data on x's side; host: count doubles of host
 * staging, used only where data is on a device (NULL on the host side). Collective. */
int hm_dense_x_bcast(const hm_dense_exec *x, MPI_Comm comm, int root, double *data, double *host, int64_t count);
int hm_dense_x_sum(const hm_dense_exec *x, MPI_Comm comm, double *data, double *host, int64_t count);
/* Wait for the work queued on x's side (nothing on the host side). */
void hm_dense_x_finish(const hm_dense_exec *x);
/* Bytes of memory on x's side this rank may count on (the device's free memory, or the host's share). */
double hm_dense_x_available(const hm_dense_exec *x, MPI_Comm comm);
/* The T (k x k, upper) of k forward column-wise reflectors from their Gram matrix G = V^H V and taus:
 * LAPACK's larft recurrence, for callers whose V is not on the host. */
void hm_dense_t_from_gram(hm_scalar type, int64_t k, const double *G, const double *tau, double *T);
#endif
