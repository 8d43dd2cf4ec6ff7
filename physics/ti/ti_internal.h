/* Internal pieces of the TI builder shared by ti.c, ti_order.c, ti_params.c and ti_potential.c. */
#ifndef HAMLET_TI_INTERNAL_H
#define HAMLET_TI_INTERNAL_H
#include <stdint.h>
#include "hamlet/ti.h"

/* Fixed stream of the disorder generator ("ti"), so disorder never collides with other streams. */
#define HM_TI_DISORDER_STREAM 0x7469u

#ifdef __cplusplus
extern "C" {
#endif

/* Checks every field of p; an HM_ERR_ARGUMENT with a message naming the field otherwise. */
int hm_ti_params_check(const hm_ti_params *p);
/* V_n of a site inside the lattice of checked params (no checks: the build calls it per site). */
double hm_ti_potential_unchecked(const hm_ti_params *p, int64_t x, int64_t y, int64_t z);
/* The x-y tile of the row traversal for p's block width (16 x 16, or less, below a width of 32). */
void hm_ti_tile(const hm_ti_params *p, int64_t *tx, int64_t *ty);
/* The traversal key of this rank's rows (first .. first + local - 1): tile column, z, y, x, orbital. */
void hm_ti_row_keys(const hm_ti_params *p, int64_t first, int64_t local, int64_t *key);
/* Orders an existing H's row traversal (hm_matrix_order_rows) by the keys above; the builder
 * creates H in that order instead (one device copy, not two). */
int hm_ti_order_rows(const hm_ti_params *p, int64_t first, hm_matrix *H);
#ifdef __cplusplus
}
#endif
#endif
