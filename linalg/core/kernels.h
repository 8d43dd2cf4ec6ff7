/* The kernel table a backend fills and the solvers call; a solver never branches on the backend.
 * All vector and matrix pointers passed to a table's functions live in that backend's memory
 * (host for cpu, device for cuda); scalars marked "host" live on the host. Row lists select which
 * local rows a product touches (interior rows while the halo is in flight, boundary rows after
 * it arrived). Vectors are row-major with k columns: entry (i, j) at i*k + j. */
#ifndef HAMLET_KERNELS_H
#define HAMLET_KERNELS_H
#include <stddef.h>
#include <stdint.h>
#include "hamlet/context.h"

struct hm_csr_view {
  int32_t nrows;
  const int64_t *rowptr;
  const int32_t *col;
  const double *val; /* 1 or 2 doubles per entry */
  const void *format; /* the backend's own copy made by prepare (NULL: none; the CSR arrays are read) */
  /* Matrix-free lattice operator (stencil_exec.h, a host struct whose arrays are in backend memory), or
   * NULL. When set, spmmv and kpm_step compute from it and the row list must be one of its two keys
   * (&key[0] interior, &key[1] boundary slabs); rowptr, col, val are NULL. */
  const struct hm_stencil_exec *stencil;
};

/* Bytes of a peer memory handle (CUDA IPC: 64). */
#define HM_PEER_HANDLE_BYTES 64

typedef struct {
  const char *name;
  int device_memory; /* 1: backend memory is not host memory (halo through host buffers or peer_*) */
  /* Memory of the backend. alloc returns zero-filled memory. */
  int (*alloc)(size_t bytes, void **p);
  void (*release)(void *p);
  int (*upload)(void *dst, const void *host_src, size_t bytes);
  int (*download)(void *host_dst, const void *src, size_t bytes);
  int (*copy)(void *dst, const void *src, size_t bytes);
  /* Host memory for transfers with the backend (page-locked on CUDA: faster copies). */
  int (*host_alloc)(size_t bytes, void **p);
  void (*host_release)(void *p);
  /* y[rows] = A x[.] for the listed rows. */
  int (*spmmv)(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
               const double *x, double *y);
  /* KPM step for the listed rows: W = 2 scale (A - shift) V - W, accumulating per column into
   * dots (backend memory, 2k doubles): dots[j] += <V_j|V_j>, dots[k + j] += Re<W_j|V_j> (new W). */
  int (*kpm_step)(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
                  double scale, double shift, const double *V, double *W, double *dots);
  /* Optional (NULL: kpm_step, then axpby; CSR rows only): kpm_step, and acc += c W (the new W) in the same
   * pass over the listed rows, c = c[0] + i c[1] (host) on W's complex view (a real block's columns in
   * (re, im) pairs, k even, unless c is real): the sum of a Chebyshev series without a second pass over W. */
  int (*kpm_step_sum)(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
                      double scale, double shift, const double *V, double *W, double *dots, const double c[2],
                      double *acc);
  /* Local column-wise dots into host memory: dots[j] = sum_i conj(x_ij) y_ij over n rows
   * (k scalars of type). */
  int (*dot)(hm_scalar type, int64_t n, int k, const double *x, const double *y, double *dots);
  /* y = alpha x + beta y column-wise: alpha[j], beta[j] host scalars of type; a column with
   * beta[j] = 0 does not read y (BLAS's convention: y = alpha x even where y held NaN). */
  int (*axpby)(hm_scalar type, int64_t n, int k, const double *alpha, const double *x,
               const double *beta, double *y);
  /* Gather rows of x into a packed buffer (halo send). */
  int (*pack_rows)(hm_scalar type, int k, const int32_t *rows, int32_t n, const double *x, double *buf);
  /* ---- block operations of the eigen- and linear solvers (tall-skinny, small factors on the host) ---- */
  /* Local Gram block into host memory: G[a*ky + b] = sum_i conj(X[i,a]) Y[i,b] over n rows. */
  int (*gram)(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *Y, double *G);
  /* Y = beta Y + X C over n rows: C is kx x ky row-major, beta one scalar; both on the host. */
  int (*block_update)(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *C,
                      const double *beta, double *Y);
  /* dst[i, d0 + j] = src[i, s0 + j] for j < count (blocks of widths ks and kd). */
  int (*copy_columns)(hm_scalar type, int64_t n, int ks, const double *src, int s0, int kd, double *dst, int d0,
                      int count);
  /* y[i, j] = d[i] x[i, j]: d holds n scalars (backend memory); y may be x. */
  int (*scale_rows)(hm_scalar type, int64_t n, int k, const double *d, const double *x, double *y);
  /* Optional (NULL: the backend reads the CSR): make the backend's own format of the host CSR A for
   * the given host row lists, each named by its twin in backend memory (keys): spmmv and kpm_step
   * called with A->format set and rows == keys[l], nrows == counts[l] use it (e.g. SELL-C-sigma on
   * CUDA); other row lists still read the CSR. unprepare releases it. choice (an hm_format) and sigma
   * as hm_matrix_set_format takes them; *format stays NULL for HM_FORMAT_CSR. */
  int (*prepare)(hm_scalar type, const struct hm_csr_view *A, int nlists, const int32_t *const *rows,
                 const int32_t *counts, const int32_t *const *keys, int choice, int sigma, void **format);
  void (*unprepare)(void *format);
  /* What prepare chose for list `list`: chunk height, sorting window, stored / true entries. */
  int (*format_info)(const void *format, int list, int *chunk, int *sigma, double *fill);
  /* Optional: whether list `list` has a block copy made (CUDA: block_cuda.h), the vector rows its
   * product reads per matrix row, stored / all value blocks (none: 0, 0, 1). */
  int (*block_info)(const void *format, int list, int *made, double *reads, double *distinct);
  /* ---- IDR(s) (CPU: kernels_cpu_idr.c, CUDA: gpu/kernels_cuda_idr.cu); k columns = k systems ---- */
  /* Y[:, j] = a[j] W[:, j] + sum_{i<m} c[i*k + j] X_i[:, j] over n rows: X is a host array of m <= 64
   * blocks (backend memory), a (k) and c (m*k) host scalars of type. Y may be W or one of the X_i. */
  int (*idr_combine)(hm_scalar type, int64_t n, int k, int m, const double *const *X, const double *c,
                     const double *a, const double *W, double *Y);
  /* Per column j: r -= beta_j g, x += beta_j u and, where dr != NULL (smoothing), dr = sigma_j dr + beta_j g,
   * dx = sigma_j dx - beta_j u; then local dots of the new values into host memory, 3 scalars of type per
   * column: dots[3j] = <r|r>, dots[3j+1] = <dr|r>, dots[3j+2] = <dr|dr> (the last two 0 without dr).
   * beta, sigma: k host scalars of type (sigma unused without dr). A column with beta_j = 0 does not read g, u
   * (a stopped system: they may hold NaN). u may be r (read before r is written). */
  int (*idr_update)(hm_scalar type, int64_t n, int k, const double *beta, const double *sigma, const double *g,
                    const double *u, double *r, double *x, double *dr, double *dx, double *dots);
  /* The shadow-space products of a step in one pass: local G[a*k + j] = sum_i conj(P[i, a]) Y[i, j] over n rows
   * into host memory (s x k scalars of type); each entry summed in an order that depends only on n (not on
   * s, k or the other columns), so a system's products are the same alone or in a batch. */
  int (*idr_multidot)(hm_scalar type, int64_t n, int s, const double *P, int k, const double *Y, double *G);
  /* ---- Optional (NULL: not supported): device memory read by other processes of the node ---- */
  /* A handle (HM_PEER_HANDLE_BYTES) by which other processes map the allocation p (from alloc). */
  int (*peer_export)(const void *p, void *handle);
  /* Map another process's exported allocation into this one; peer_close unmaps it. */
  int (*peer_open)(const void *handle, void **p);
  void (*peer_close)(void *p);
  /* dst (own memory) = src (mapped from a peer), returning when done; kernels already queued go on
   * running meanwhile. */
  int (*peer_read)(void *dst, const void *src, size_t bytes);
  /* Wait until every queued kernel has finished. */
  int (*synchronize)(void);
  /* ---- LOBPCG's residuals in one pass (CPU: kernels_cpu_block.c, CUDA: gpu/kernels_cuda_block.cu) ---- */
  /* R[i, j] = AX[i, j] - lambda[j] BX[i, j] for j < m over n rows (AX, BX of widths ka, kb >= m, R of
   * width m; lambda: m real host doubles), and the local sums into host memory (2m doubles):
   * sums[j] = sum_i |R[i, j]|^2, sums[m + j] = sum_i |BX[i, j]|^2. */
  int (*ritz_residual)(hm_scalar type, int64_t n, int ka, const double *AX, int kb, const double *BX, int m,
                       const double *lambda, double *R, double *sums);
  /* Local Gram block of X with ny columns of Y (ky wide) from column y0 on, into host memory:
   * G[a*ny + b] = sum_i conj(X[i,a]) Y[i, y0 + b] over n rows (only those columns of Y are read). */
  int (*gram_columns)(hm_scalar type, int64_t n, int kx, const double *X, int ky, const double *Y, int y0, int ny,
                      double *G);
  /* Series accumulators over n rows: acc[i, c * ne + e] += sum_{j < m} C[j * ne + e] X_j[i, c] for
   * columns c < w of the m blocks X_j (a host array of backend pointers, each n x w) and e < ne
   * (acc is n x w ne; C: m x ne host scalars of type, m <= 16). Several terms of Chebyshev series at
   * several energies added in one pass over the accumulators. */
  int (*series_accumulate)(hm_scalar type, int64_t n, int w, int m, const double *const *X, int ne, const double *C,
                           double *acc);
  /* Optional (NULL: made on the host and uploaded): the block of hm_mvec_random_phase in backend
   * memory, for local rows i < n (global row first + i) and columns j < k (global column col0 + j),
   * u = hm_random_uniform(seed, col0 + j, first + i): complex data[i*k + j] = (cos 2 pi u, sin 2 pi u),
   * real data[i*k + j] = u < 1/2 ? -1 : 1. */
  int (*random_phase)(hm_scalar type, int64_t first, int64_t n, int k, int col0, uint64_t seed, double *data);
  /* Optional (NULL: made on the host and uploaded): the Gaussian block of hm_mvec_random_gauss in
   * backend memory, entry (i, j) = hm_random_gauss_entry(seed, col0 + j, first + i) (random.h). */
  int (*random_gauss)(hm_scalar type, int64_t first, int64_t n, int k, int col0, uint64_t seed, double *data);
  /* ---- multi-shift IDR(s): every shift's update in one pass (CPU: kernels_cpu_shift.c, CUDA:
   * gpu/kernels_cuda_idr.cu); complex only ---- */
  /* Over n rows of blocks ncol wide (column p holds system cols[p]: shift cols[p] / nv, right-hand
   * side cols[p] % nv; cols ascending within the K = nv * ns):
   *   w = a[p] v[:, cols[p] % nv] + sum_{l<m} c[l*ncol + p] D_l[:, p],   Dnew[:, p] = w,   x[:, p] += w.
   * The solver keeps x and every direction block packed to the systems that still run (in the
   * same order), so the pass is one contiguous stream and a converged system costs nothing once it
   * is packed out. v is n x nv; D_l (m <= 64, a host array of backend pointers), Dnew and x are
   * n x ncol; a, c, cols host arrays. Dnew may be one of the D_l (each entry is read before it is
   * written). */
  int (*idr_shift_update)(hm_scalar type, int64_t n, int nv, int ns, int ncol, const int *cols, int m,
                          const double *v, const double *a, const double *const *D, const double *c, double *Dnew,
                          double *x);
} hm_kernels;

#ifdef __cplusplus
extern "C" {
#endif
extern const hm_kernels hm_kernels_cpu;
/* The CUDA table of the device current on this thread, or NULL where hamlet was built without CUDA. */
const hm_kernels *hm_kernels_cuda(void);
/* The CUDA table of one device: each call makes that device current first (gpu/gpu_device.cuh);
 * NULL without CUDA or for a device beyond those hamlet handles. */
const hm_kernels *hm_kernels_cuda_on(int device);
#ifdef __cplusplus
}
#endif
#endif
