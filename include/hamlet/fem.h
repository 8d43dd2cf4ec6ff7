/* Finite-element Schroedinger operator -1/2 lap + V(r) on the box [0,lx] x [0,ly] x [0,lz]:
 * trilinear hexahedra (Q1) on a uniform structured mesh of ex x ey x ez elements, homogeneous
 * Dirichlet boundaries. The generalized eigenproblem K x = E M x gives the spectrum:
 *   K_ab = 1/2 int grad phi_a . grad phi_b + int V phi_a phi_b,   M_ab = int phi_a phi_b.
 * Unknowns are the interior nodes (i, j, k), 1 <= i <= ex-1 etc.; node (i, j, k) sits at
 * (i lx/ex, j ly/ey, k lz/ez) and is row (i-1) + (ex-1) * ((j-1) + (ey-1) * (k-1)) (x fastest).
 * Stiffness and mass are integrated exactly; the potential term by 3 x 3 x 3 Gauss points per
 * element (exact for V of degree <= 2 per direction, such as the harmonic one). */
#ifndef HAMLET_FEM_H
#define HAMLET_FEM_H
#include "export.h"
#include <stdint.h>
#include "matrix.h"

typedef enum {
  HM_FEM_POTENTIAL_NONE = 0,        /* V = 0 */
  HM_FEM_POTENTIAL_HARMONIC = 1,    /* V = 1/2 sum_d omega_d^2 (x_d - centre_d)^2 */
  HM_FEM_POTENTIAL_SPHERE_WELL = 2, /* V = -well_depth where |r - centre| < well_radius, else 0 */
  HM_FEM_POTENTIAL_BOX_WELL = 3,    /* V = -well_depth where |x_d - centre_d| < well_size_d / 2 for all d */
  HM_FEM_POTENTIAL_GRID = 4         /* V trilinearly interpolated from gx x gy x gz samples */
} hm_fem_potential_kind;

typedef struct {
  int64_t ex, ey, ez;     /* elements per direction, each >= 2 */
  double lx, ly, lz;      /* box edge lengths, > 0 */
  int potential;          /* hm_fem_potential_kind */
  /* Centre of the harmonic potential and of the wells. A NaN component means the centre of the
   * box in that direction (the default). */
  double centre[3];
  double omega[3];        /* harmonic frequencies per direction, >= 0 */
  double well_depth;      /* wells: V = -well_depth inside (negative: a barrier) */
  double well_radius;     /* sphere well, > 0 */
  double well_size[3];    /* box well edge lengths, > 0 */
  /* Grid potential: grid[i + gx * (j + gy * k)] = V(i lx/(gx-1), j ly/(gy-1), k lz/(gz-1)),
   * samples over the whole box (gx, gy, gz >= 2). Not owned, not copied: it must stay valid
   * during hm_fem_build / hm_fem_potential. io reads it from HDF5 (dataset [gz][gy][gx]). */
  int64_t gx, gy, gz;
  const double *grid;
} hm_fem_params;

#ifdef __cplusplus
extern "C" {
#endif

/* 8 x 8 x 8 elements on the unit cube, no potential; centre = box centre (NaN), omega = 1,
 * well_depth = 1, well_radius = 0.25, well_size = 0.5, no grid. */
HM_API int hm_fem_params_default(hm_fem_params *p);
/* Collective: the real symmetric matrices K (stiffness/2 + potential) and M (mass), rows split
 * over the ranks by hm_dist_create (block 1, equal weights). Each rank assembles only its own
 * rows from the elements around its nodes. On failure *K and *M are NULL. */
HM_API int hm_fem_build(hm_context *ctx, const hm_fem_params *p, hm_matrix **K, hm_matrix **M);
/* V at the point (x, y, z) of the box (what the build integrates). */
HM_API int hm_fem_potential(const hm_fem_params *p, double x, double y, double z, double *v);

#ifdef __cplusplus
}
#endif
#endif
