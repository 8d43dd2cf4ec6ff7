/* Whether a matrix is Hermitian (symmetric if real): measured once while it is assembled, checked by
 * the solvers that need it (KPM, LDOS, LOBPCG, dense), so library callers get the refusal too. */
#ifndef HM_MATRIX_HERMITIAN_H
#define HM_MATRIX_HERMITIAN_H
#include <stdint.h>
#include "hamlet/matrix.h"
#include "hamlet/operator.h"

struct hm_matrix_s;
/* Entries whose |a_ij - conj(a_ji)| is at most this times the largest |a| count as equal (rounding). */
#define HM_HERMITIAN_RTOL 1e-12
/* Collective. Fills M's hermitian_defect, defect_row/col and largest_entry from its assembled CSR;
 * remote[s] is the global column of halo slot s. A partner a_ji on another rank travels to a_ij's
 * owner over the halo's neighbours, so any rank count gives the same answer. */
int hm_matrix_measure_hermitian(struct hm_matrix_s *M, const int64_t *remote);
/* HM_ERR_INPUT unless A is Hermitian to rounding; who names the method for the message. */
int hm_matrix_require_hermitian(const hm_matrix *A, const char *who);
/* The same for an operator made from a matrix (a callback operator cannot be checked and passes). */
int hm_operator_require_hermitian(const hm_operator *op, const char *who);
/* The file A's entries came from, named in the messages. */
void hm_matrix_set_source(hm_matrix *A, const char *path);
#endif
