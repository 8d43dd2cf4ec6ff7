/* An hm_stencil after validation: the scalars plus owned copies of its arrays, and the slab layout
 * of its distribution. Shared by the assembler and the matrix-free storage. */
#ifndef HAMLET_STENCIL_INTERNAL_H
#define HAMLET_STENCIL_INTERNAL_H
#include "hamlet/stencil.h"
#include "stencil_terms.h"

typedef struct {
  hm_stencil_scalars sc;
  int32_t *shift;      /* [nblocks][3] */
  double *block;       /* [nblocks][orbitals][orbitals] complex */
  double *peierls;     /* NULL or [nblocks][orbitals][orbitals][3] */
  double *wrap_phase;  /* NULL or [3][nblocks][orbitals][4] */
  int slab_dir;        /* the direction the ranks split: the slowest with more than one cell */
  int64_t slab_rows;   /* rows of one slab (orbitals x the cells of the faster directions) */
} hm_stencil_model;

/* Validate s (sizes, boundaries, terms, Hermitian blocks, a field's hop range) and copy it into m. */
int hm_stencil_model_make(const hm_stencil *s, hm_stencil_model *m);
void hm_stencil_model_free(hm_stencil_model *m);
/* Collective: whole slabs per rank. */
int hm_stencil_dist(hm_context *ctx, const hm_stencil_model *m, hm_dist **dist);
/* Collective: the CSR matrix of m (stencil_assemble.c). */
int hm_stencil_assemble(hm_context *ctx, const hm_stencil_model *m, hm_matrix **A);
/* Collective: the matrix-free matrix of m (stencil_matrix_free.c); takes m's arrays over (m is
 * emptied) on success. */
int hm_stencil_matrix_free(hm_context *ctx, hm_stencil_model *m, hm_matrix **A);
#endif
