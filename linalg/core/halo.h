/* Halo exchange of a matrix's remote column entries for a block x (nonblocking, one at a time
 * per matrix): begin posts receives into x's halo rows and sends packed own rows; end waits. */
#ifndef HAMLET_HALO_H
#define HAMLET_HALO_H
#include "objects.h"
#include "hamlet/matrix.h"
#include "kernels.h"

/* Collective over comm: refuses (HM_ERR_ARGUMENT, on every rank) when the rows the other ranks ask
 * of this one, give[0..nranks), pass INT_MAX in all; apart from hm_halo_plan so it is testable
 * without 2^31 rows. */
int hm_halo_check_asked(MPI_Comm comm, const int *give, int nranks);
int hm_halo_plan(struct hm_matrix_s *A, const int64_t *remote_cols, int32_t nremote);
void hm_halo_free(hm_halo *h, const hm_kernels *K);
int hm_halo_begin(struct hm_matrix_s *A, struct hm_mvec_s *x);
int hm_halo_end(struct hm_matrix_s *A);

/* Shared with solvers that run their own fused products over A's rows. */
#include "kernels.h"
struct hm_csr_view hm_matrix_view(const struct hm_matrix_s *A);
int hm_matrix_check_block(const struct hm_matrix_s *A, const struct hm_mvec_s *x, const char *name);
/* The fused Chebyshev step over all rows, W = 2 scale (A - shift) V - W for V's k columns, V's halo
 * exchange overlapped with the interior rows; dots (backend memory, 2k) as kernels.h's kpm_step. */
int hm_matrix_chebyshev_step(struct hm_matrix_s *A, double scale, double shift, struct hm_mvec_s *V,
                             struct hm_mvec_s *W, double *dots);
/* The same step and acc += c W (the new W; c = c[0] + i c[1] on the complex view, acc shaped as W) in one
 * pass where the backend fuses them (kernels.h's kpm_step_sum), else in two. */
int hm_matrix_chebyshev_step_sum(struct hm_matrix_s *A, double scale, double shift, struct hm_mvec_s *V,
                                 struct hm_mvec_s *W, double *dots, const double c[2], struct hm_mvec_s *acc);
#include "matrix_keyed.h"
#endif
