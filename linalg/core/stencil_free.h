/* The matrix-free storage of an hm_stencil (stencil_free.c): an hm_matrix without CSR whose
 * products come from the cell's blocks (stencil_exec.h). */
#ifndef HAMLET_STENCIL_FREE_H
#define HAMLET_STENCIL_FREE_H
#include "hamlet/stencil.h"
#include "objects.h"
#include "stencil_exec.h"

struct hm_stencil_part {
  hm_stencil_exec exec; /* what the kernels read; its arrays in backend memory */
  hm_stencil host;      /* the description, its arrays the host copies below */
  int32_t *shift;
  double *block, *peierls, *wrap_phase;
  int64_t *slab_row;
  hm_stencil_hop *hops;
  int32_t *hop_first;
  int64_t *hop_delta;
  double *face_sums; /* where exec.face_kinds is set: [7][16] complex, the blocks of each direction summed */
  double *box_sums;  /* where the box kernel's table is made: [27][4] complex, the blocks of each shift summed */
};

#ifdef __cplusplus
extern "C" {
#endif
/* Collective: the matrix-free matrix of a description that hm_matrix_create_stencil validated
 * (sizes and Hermiticity); this checks only what it relies on itself. */
int hm_stencil_matrix_free_create(hm_context *ctx, const hm_stencil *s, hm_matrix **A);
/* The same in real arithmetic (HM_REAL vectors): s must be real (hm_stencil_complex_term finds nothing). */
int hm_stencil_matrix_free_create_real(hm_context *ctx, const hm_stencil *s, hm_matrix **A);
/* Collective: M's Hermitian defect (hermitian_defect, defect_row, defect_col) from the hops that
 * wrap, their Peierls phases against their partners' (linalg/stencil/stencil_wrap_hermitian.c). */
int hm_stencil_wrap_defect(struct hm_matrix_s *M);
/* Releases what the stencil part holds in backend and host memory (hm_matrix_destroy). */
void hm_stencil_part_release(struct hm_matrix_s *M);
/* Gershgorin bounds from the blocks, the disorder range and (with vacancies) 0; not collective. */
int hm_stencil_gershgorin(const struct hm_matrix_s *M, double *emin, double *emax);
/* The diagonal of the operator for this rank's rows (host, complex pairs), vacant sites 0. */
int hm_stencil_diagonal(const struct hm_matrix_s *M, double *diag);
#ifdef __cplusplus
}
#endif
#endif
