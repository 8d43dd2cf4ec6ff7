/* hm_matrix: a distributed square sparse matrix (rows and columns share one hm_dist), local CSR
 * with a halo plan: remote vector entries are exchanged with nonblocking MPI while the rows that
 * need none are multiplied. */
#ifndef HAMLET_MATRIX_H
#define HAMLET_MATRIX_H
#include "export.h"
#include <stdint.h>
#include "dist.h"
#include "mvec.h"

typedef struct hm_matrix_s hm_matrix;

/* The format a backend with device memory (CUDA) multiplies from. The CPU backend always reads
 * the CSR arrays: it stores the choice and reports HM_FORMAT_CSR. */
typedef enum {
  HM_FORMAT_AUTO = 0, /* measured routing: SELL-C-sigma for narrow blocks (SpMV), CSR above; complex
                         matrices in 4 x 4 blocks (a site's orbitals) also get a block copy (made by
                         the first KPM step at a width of 4 or more), whose KPM step runs on the
                         FP64 tensor cores */
  HM_FORMAT_CSR = 1,  /* the CSR arrays only: no SELL or block copy (their device memory is saved) */
  HM_FORMAT_SELL = 2  /* the SELL-C-sigma copy at every block width */
} hm_format;

#ifdef __cplusplus
extern "C" {
#endif

/* Collective. This rank's rows in CSR: rowptr[local+1] (rowptr[0] = 0), cols = global column
 * indices, values = double or double _Complex. Entries are copied; duplicates are summed. */
HM_API int hm_matrix_create_csr(hm_context *ctx, const hm_dist *dist, hm_scalar type,
                         const int64_t *rowptr, const int64_t *cols, const void *values,
                         hm_matrix **A);
HM_API int hm_matrix_destroy(hm_matrix **A);
/* Collective (every rank passes the three arrays, or every rank passes none): this rank's rows of a
 * stored (not matrix-free) matrix. *local rows and *nnz entries always; with the arrays (sized from a
 * first call without them) also rowptr[local + 1] (rowptr[0] = 0), the global column index of each
 * entry and its value (double, or real and imaginary where complex), as stored (columns in storage
 * order within a row). */
HM_API int hm_matrix_local_csr(hm_matrix *A, int64_t *local, int64_t *nnz, int64_t *rowptr, int64_t *cols,
                               double *values);
/* Global size and number of stored nonzeros, scalar type. */
HM_API int hm_matrix_info(const hm_matrix *A, int64_t *n_global, int64_t *nnz_global, hm_scalar *type);
/* The row distribution (owned by A; valid while A lives). */
HM_API int hm_matrix_dist(const hm_matrix *A, const hm_dist **dist);
/* The context the matrix was made in. */
HM_API int hm_matrix_context(const hm_matrix *A, hm_context **ctx);
/* Collective: y = A x for all k columns. */
HM_API int hm_matrix_apply(hm_matrix *A, hm_mvec *x, hm_mvec *y);
/* Collective: Gershgorin bounds of the spectrum of a Hermitian / symmetric A. */
HM_API int hm_matrix_gershgorin(const hm_matrix *A, double *emin, double *emax);
/* The diagonal of A into a one-column block d of A's type (e.g. for a Jacobi preconditioner). */
HM_API int hm_matrix_diagonal(const hm_matrix *A, hm_mvec *d);
/* Collective: the format of A's products (default HM_FORMAT_AUTO, sigma 0) and, for SELL, the
 * sorting window sigma in rows (0 = chosen per matrix: the smallest of 1, 4C, 16C, ... whose padding
 * stays within 3% of the entries; 1 = no sorting; larger windows are cut at the row count). sigma
 * must be 0 unless format is HM_FORMAT_SELL. The backend's copy is made again. */
HM_API int hm_matrix_set_format(hm_matrix *A, hm_format format, int sigma);
/* What A's interior rows are multiplied from: the format set (AUTO or SELL) where a SELL copy
 * exists, HM_FORMAT_CSR where none does (format CSR, or the CPU backend); the SELL chunk height C,
 * sigma and stored / true entries (without a copy: 0, 0 and 1). Any pointer may be NULL. */
HM_API int hm_matrix_format_info(const hm_matrix *A, hm_format *format, int *chunk, int *sigma, double *fill);
/* Whether A's interior rows have a 4 x 4 block copy for the KPM step on the FP64 tensor cores
 * (made = 1: CUDA backend, format AUTO, a complex matrix whose rows come in groups of 4 sharing
 * their neighbours, a device of compute capability 8.0 or later; the first KPM step at a width of
 * 4 or more makes it where it pays), the vector rows its product reads per matrix row (the
 * CSR product reads one per entry) and the fraction of value blocks it stores (equal ones are
 * stored once). Without a copy: 0, 0 and 1. Any pointer may be NULL. */
HM_API int hm_matrix_block_info(const hm_matrix *A, int *made, double *reads, double *distinct);

#ifdef __cplusplus
}
#endif
#endif
