/* 3D convection-diffusion-reaction operator  -eps Lap u + beta . grad u + r u  on the unit cube
 * with homogeneous Dirichlet boundaries, central finite differences on n x n x n interior nodes
 * (h = 1/(n+1)): the standard non-symmetric test problem of IDR(s). Node (i, j, k), 0-based, at
 * ((i+1) h, (j+1) h, (k+1) h), is row i + n*(j + n*k) (x fastest). Row stencil: diagonal
 * 6 eps/h^2 + r; the neighbour at -e_d: -eps/h^2 - beta_d/(2h), at +e_d: -eps/h^2 + beta_d/(2h)
 * (neighbours on the boundary are dropped: u = 0 there). Real matrix. */
#ifndef HAMLET_CONVDIFF_H
#define HAMLET_CONVDIFF_H
#include "export.h"
#include <stdint.h>
#include "matrix.h"

typedef struct {
  int64_t n;        /* interior nodes per direction, 1 <= n <= 100000 */
  double eps;       /* diffusion, finite and > 0 */
  double beta[3];   /* convection velocity (x, y, z), finite */
  double r;         /* reaction, finite (any sign) */
} hm_convdiff_params;

#ifdef __cplusplus
extern "C" {
#endif

/* n = 39 (h = 1/40), eps = 1, beta = (0, 250, 500)/sqrt(5), r = 0. */
HM_API int hm_convdiff_params_default(hm_convdiff_params *p);
/* Collective: rows split evenly (hm_dist_create, block 1); each rank builds only its own rows. */
HM_API int hm_convdiff_build(hm_context *ctx, const hm_convdiff_params *p, hm_matrix **A);

#ifdef __cplusplus
}
#endif
#endif
