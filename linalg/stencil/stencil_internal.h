/* An hm_stencil after validation: owned copies of its arrays and the kernels' view of it
 * (stencil_exec.h) over the whole box, whose rows are the global ones: the assembler applies the
 * same arithmetic as the matrix-free kernels. */
#ifndef HAMLET_STENCIL_INTERNAL_H
#define HAMLET_STENCIL_INTERNAL_H
#include "hamlet/stencil.h"
#include "stencil_exec.h"

typedef struct {
  hm_stencil_exec ex;  /* host pointers to the arrays below; slab_row = global row of each slab */
  int32_t *shift;      /* [nblocks][3] */
  double *block;       /* [nblocks][orbitals][orbitals] complex */
  double *peierls;     /* NULL or [nblocks][orbitals][orbitals][3] */
  double *wrap_phase;  /* NULL or [3][nblocks][orbitals][4] */
  int64_t *slab_row;   /* [cells[slow]] */
} hm_stencil_model;

/* Validate s (sizes, boundaries, terms, Hermitian blocks, a field's hop range) and copy it into m. */
int hm_stencil_model_make(const hm_stencil *s, hm_stencil_model *m);
void hm_stencil_model_free(hm_stencil_model *m);
/* Collective: the CSR matrix of m (stencil_assemble.c), distributed in whole slabs as the
 * matrix-free storage is. */
int hm_stencil_assemble(hm_context *ctx, const hm_stencil_model *m, hm_matrix **A);
#endif
