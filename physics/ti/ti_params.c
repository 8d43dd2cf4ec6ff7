/* Defaults and validation of hm_ti_params. */
#include <math.h>
#include <string.h>
#include "error_macros.h"
#include "ti_internal.h"

/* Largest allowed row count 4*nx*ny*nz: far below INT64_MAX so index arithmetic never overflows. */
#define HM_TI_MAX_ROWS ((int64_t)1 << 50)

int hm_ti_params_default(hm_ti_params *p) {
  HM_CHECK(p, HM_ERR_ARGUMENT, "p is NULL");
  memset(p, 0, sizeof *p);
  p->nx = p->ny = p->nz = 8;
  p->t = 1.0;
  p->m = 2.0;
  p->boundary[0] = p->boundary[1] = p->boundary[2] = HM_BC_PERIODIC;
  p->dot_period_x = p->dot_period_y = 1;
  p->dot_depth = 0;
  p->dot_radius = 1.0;
  p->dot_v0 = 0.0;        /* dots off */
  p->disorder_w = 0.0;    /* disorder off */
  p->disorder_seed = 1;
  p->block_width = 0;     /* 16 x 16 traversal tiles */
  return HM_SUCCESS;
}

int hm_ti_params_check(const hm_ti_params *p) {
  HM_CHECK(p, HM_ERR_ARGUMENT, "TI params are NULL");
  HM_CHECK(p->nx >= 1 && p->ny >= 1 && p->nz >= 1, HM_ERR_ARGUMENT,
           "TI lattice size nx = %lld, ny = %lld, nz = %lld: each must be >= 1", (long long)p->nx,
           (long long)p->ny, (long long)p->nz);
  /* 4*nx*ny*nz < 2^50, tested by division so the check itself cannot overflow. */
  int64_t limit = HM_TI_MAX_ROWS / 4;
  HM_CHECK(p->nx < limit && p->ny < limit / p->nx && p->nz < limit / (p->nx * p->ny), HM_ERR_ARGUMENT,
           "TI lattice %lld x %lld x %lld is too large: 4*nx*ny*nz must be below 2^50 rows",
           (long long)p->nx, (long long)p->ny, (long long)p->nz);
  static const char axis[3] = {'x', 'y', 'z'};
  for (int j = 0; j < 3; j++)
    HM_CHECK(p->boundary[j] == HM_BC_PERIODIC || p->boundary[j] == HM_BC_OPEN, HM_ERR_ARGUMENT,
             "TI boundary in %c is %d: allowed are periodic (0) and open (1)", axis[j], p->boundary[j]);
  HM_CHECK(isfinite(p->t), HM_ERR_ARGUMENT, "TI hopping t = %g must be finite", p->t);
  HM_CHECK(isfinite(p->m), HM_ERR_ARGUMENT, "TI mass m = %g must be finite", p->m);
  HM_CHECK(isfinite(p->dot_v0), HM_ERR_ARGUMENT, "TI dot_v0 = %g must be finite (0 = no dots)", p->dot_v0);
  if (p->dot_v0 != 0.0) {
    HM_CHECK(p->dot_period_x >= 1 && p->dot_period_y >= 1, HM_ERR_ARGUMENT,
             "TI dot_period_x = %lld, dot_period_y = %lld: each must be >= 1 when dots are on (dot_v0 != 0)",
             (long long)p->dot_period_x, (long long)p->dot_period_y);
    HM_CHECK(isfinite(p->dot_radius) && p->dot_radius > 0, HM_ERR_ARGUMENT,
             "TI dot_radius = %g must be finite and > 0 when dots are on (dot_v0 != 0)", p->dot_radius);
    HM_CHECK(p->dot_depth >= 0, HM_ERR_ARGUMENT,
             "TI dot_depth = %lld must be >= 0 (0 = all layers, d = the top d layers)", (long long)p->dot_depth);
  }
  HM_CHECK(isfinite(p->disorder_w) && p->disorder_w >= 0, HM_ERR_ARGUMENT,
           "TI disorder_w = %g must be finite and >= 0 (0 = no disorder)", p->disorder_w);
  HM_CHECK(p->block_width >= 0, HM_ERR_ARGUMENT,
           "TI block_width = %d must be >= 0 (the vectors multiplied at once; 0 = not known)", p->block_width);
  return HM_SUCCESS;
}
