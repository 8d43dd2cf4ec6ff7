/* Matrix Market files (https://math.nist.gov/MatrixMarket/formats.html) read straight into
 * distributed hamlet objects.
 * Matrices: coordinate format; field real, integer (read as real), complex or pattern (every
 * stored entry 1); symmetry general, symmetric, skew-symmetric or Hermitian (complex only). A
 * symmetric, skew-symmetric or Hermitian file stores the lower triangle (row >= column; no
 * diagonal for skew-symmetric); the reader adds each mirrored entry (negated for skew-symmetric,
 * conjugated for Hermitian). Duplicate entries are summed. Square matrices only.
 * Right-hand sides: array format, general, one column, field real, integer or complex.
 * How it reads: every rank streams the whole file and keeps only the entries of its own rows
 * (and the mirrored entries that land in them), so no rank ever holds the whole matrix and no
 * entries travel over MPI; the price is that each rank reads every byte of the file.
 * Lines starting with '%' after the banner and blank lines are skipped anywhere.
 * A malformed file fails with HM_ERR_IO and a message "path:line: what was expected, what was
 * found"; every rank gets the failure (a rank that parsed fine names the rank that did not). */
#ifndef HAMLET_MTX_H
#define HAMLET_MTX_H
#include "export.h"
#include <stdint.h>
#include "matrix.h"

typedef enum {
  HM_MTX_GENERAL = 0,
  HM_MTX_SYMMETRIC = 1,
  HM_MTX_SKEW_SYMMETRIC = 2,
  HM_MTX_HERMITIAN = 3
} hm_mtx_symmetry;

#ifdef __cplusplus
extern "C" {
#endif

/* Collective. Rows split evenly (hm_dist_create, block 1). HM_REAL for real, integer and pattern
 * files, HM_COMPLEX for complex ones. On failure *A is NULL. */
HM_API int hm_mtx_read(hm_context *ctx, const char *path, hm_matrix **A);
/* Not collective: the calling rank reads the banner and size line only (ctx is not used and may
 * be NULL). entries = stored entries (coordinate: the size line's count, before mirroring;
 * array: rows * cols); type as hm_mtx_read would make it; symmetry an hm_mtx_symmetry value.
 * Any output may be NULL. */
HM_API int hm_mtx_info(hm_context *ctx, const char *path, int64_t *rows, int64_t *cols, int64_t *entries,
                hm_scalar *type, int *symmetry);
/* Collective. One column over dist (its global size must equal the file's row count); a block of
 * k = 1 vector, HM_REAL (real or integer file) or HM_COMPLEX. On failure *b is NULL. */
HM_API int hm_mtx_read_vector(hm_context *ctx, const char *path, const hm_dist *dist, hm_mvec **b);
/* Collective. A stored matrix (not a matrix-free operator) as a coordinate file of every entry
 * (general symmetry, 1-based global indices, 17 digits: read back exactly), written atomically
 * (path.tmp renamed when complete). */
HM_API int hm_mtx_write(hm_matrix *A, const char *path);

#ifdef __cplusplus
}
#endif
#endif
