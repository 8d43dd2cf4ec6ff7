/* 3D topological-insulator lattice (Wilson-Dirac model of Kreutzer et al.), built distributed:
 * H = -t sum_{n,j} ( Psi+_{n+e_j} (G1 - i G_{j+1})/2 Psi_n + h.c. ) + sum_n Psi+_n (V_n G0 + m G1) Psi_n
 * with G1 = tau_z(x)sigma_0, G2,3,4 = tau_x(x)sigma_{x,y,z}. Row of (x, y, z, orbital o):
 * 4*(x + nx*(y + ny*z)) + o. */
#ifndef HAMLET_TI_H
#define HAMLET_TI_H
#include "export.h"
#include <stdint.h>
#include "matrix.h"
#include "stencil.h" /* hm_boundary */

typedef struct {
  int64_t nx, ny, nz;
  double t, m;
  int boundary[3];          /* hm_boundary per direction x, y, z */
  /* quantum-dot superlattice: dots of radius dot_radius (sites) centred in cells of
   * dot_period_x by dot_period_y sites, potential dot_v0 inside; through the top dot_depth
   * z layers (0 = all layers). Off when dot_v0 == 0. */
  int64_t dot_period_x, dot_period_y, dot_depth;
  double dot_radius, dot_v0;
  /* Anderson disorder: V uniform in [-W/2, W/2] from (disorder_seed, site). Off when W == 0. */
  double disorder_w;
  uint64_t disorder_seed;
  /* Vectors the GPU products will multiply at once (KPM: R); sizes the x-y tiles the rows are
   * traversed in, so that a tile plane's vector rows stay in the GPU's L2 (physics is unchanged).
   * 0, or below 32: 16 x 16 tiles, which suit the CPU kernels and narrow widths. */
  int block_width;
} hm_ti_params;

#ifdef __cplusplus
extern "C" {
#endif

HM_API int hm_ti_params_default(hm_ti_params *p); /* 8x8x8 periodic, t = 1, m = 2, no potential */
/* Collective: each rank builds its own rows (dist in blocks of 4 rows = one site). */
HM_API int hm_ti_build(hm_context *ctx, const hm_ti_params *p, hm_matrix **H);
/* On-site potential V_n of site (x, y, z) (what hm_ti_build puts on the diagonal). */
HM_API int hm_ti_potential(const hm_ti_params *p, int64_t x, int64_t y, int64_t z, double *v);

#ifdef __cplusplus
}
#endif
#endif
