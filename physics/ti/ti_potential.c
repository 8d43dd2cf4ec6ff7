/* On-site potential of the TI lattice: quantum-dot superlattice plus Anderson disorder. */
#include "error_macros.h"
#include "random.h"
#include "ti_internal.h"

/* Inside a dot: distance of the site centre from its cell's centre below dot_radius, and in the
 * top dot_depth layers (all layers when dot_depth == 0). */
static int in_dot(const hm_ti_params *p, int64_t x, int64_t y, int64_t z) {
  if (p->dot_depth != 0 && z < p->nz - p->dot_depth) return 0;
  double cx = (double)(x % p->dot_period_x) + 0.5 - p->dot_period_x / 2.0;
  double cy = (double)(y % p->dot_period_y) + 0.5 - p->dot_period_y / 2.0;
  return cx * cx + cy * cy < p->dot_radius * p->dot_radius;
}

double hm_ti_potential_unchecked(const hm_ti_params *p, int64_t x, int64_t y, int64_t z) {
  double v = 0.0;
  if (p->dot_v0 != 0.0 && in_dot(p, x, y, z)) v += p->dot_v0;
  if (p->disorder_w != 0.0) {
    /* Depends on (seed, site) only: the same disorder on any number of ranks. */
    uint64_t site = (uint64_t)(x + p->nx * (y + p->ny * z));
    v += p->disorder_w * (hm_random_uniform(p->disorder_seed, HM_TI_DISORDER_STREAM, site) - 0.5);
  }
  return v;
}

int hm_ti_potential(const hm_ti_params *p, int64_t x, int64_t y, int64_t z, double *v) {
  HM_CHECK(v, HM_ERR_ARGUMENT, "v is NULL");
  HM_CALL(hm_ti_params_check(p));
  HM_CHECK(x >= 0 && x < p->nx && y >= 0 && y < p->ny && z >= 0 && z < p->nz, HM_ERR_ARGUMENT,
           "site (%lld, %lld, %lld) is outside the %lld x %lld x %lld lattice", (long long)x, (long long)y,
           (long long)z, (long long)p->nx, (long long)p->ny, (long long)p->nz);
  *v = hm_ti_potential_unchecked(p, x, y, z);
  return HM_SUCCESS;
}
