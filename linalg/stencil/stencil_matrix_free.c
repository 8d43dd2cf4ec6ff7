/* The matrix-free storage of an hm_stencil. Not built yet: the branch that writes it replaces this
 * file; until then a caller asking for it gets an error that says what works instead. */
#include "error_macros.h"
#include "stencil_internal.h"

int hm_stencil_matrix_free(hm_context *ctx, hm_stencil_model *m, hm_matrix **A) {
  (void)ctx;
  (void)m;
  (void)A;
  HM_RAISE(HM_ERR_BACKEND, "matrix-free lattice storage is not available in this build: use HM_STENCIL_ASSEMBLED "
                           "(deck: storage = assembled)");
}
