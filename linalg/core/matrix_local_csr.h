/* The global column indices of a stored matrix's halo slots (matrix_local_csr.c). */
#ifndef HAMLET_MATRIX_LOCAL_CSR_H
#define HAMLET_MATRIX_LOCAL_CSR_H
#include <stdint.h>
#include "hamlet/matrix.h"

/* Collective: global[j] = the global index of halo slot j (A's nhalo of them). */
int hm_matrix_halo_globals(const hm_matrix *A, int64_t *global);
#endif
