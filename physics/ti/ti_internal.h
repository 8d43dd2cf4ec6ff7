/* Internal pieces of the TI builder shared by ti.c, ti_params.c and ti_potential.c. */
#ifndef HAMLET_TI_INTERNAL_H
#define HAMLET_TI_INTERNAL_H
#include <stdint.h>
#include "hamlet/ti.h"

/* Fixed stream of the disorder generator ("ti"), so disorder never collides with other streams. */
#define HM_TI_DISORDER_STREAM 0x7469u

/* Checks every field of p; an HM_ERR_ARGUMENT with a message naming the field otherwise. */
int hm_ti_params_check(const hm_ti_params *p);
/* V_n of a site inside the lattice of checked params (no checks: the build calls it per site). */
double hm_ti_potential_unchecked(const hm_ti_params *p, int64_t x, int64_t y, int64_t z);
#endif
