/* For builders that know their geometry (physics/): matrices whose rows are visited in a
 * cache-friendly order. Through public types only, so builders need not see linalg's objects. */
#ifndef HAMLET_MATRIX_KEYED_H
#define HAMLET_MATRIX_KEYED_H
#include <stdint.h>
#include "hamlet/matrix.h"
/* Visit the rows in ascending key[local row] (rows that share vector entries close together).
 * Results change only by rounding. */
int hm_matrix_order_rows(hm_matrix *A, const int64_t *key);
/* hm_matrix_create_csr with the rows visited in ascending key[local row] from the start (NULL: row
 * order), so that the backend's copies are made once, in that order. */
int hm_matrix_create_csr_keyed(hm_context *ctx, const hm_dist *dist, hm_scalar type, const int64_t *rowptr,
                               const int64_t *cols, const void *values, const int64_t *key, hm_matrix **A);
#endif
