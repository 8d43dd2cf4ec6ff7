/* Checks shared by the distributed dense eigensolver tests. */
#ifndef HAMLET_TEST_DENSE_CHECK_H
#define HAMLET_TEST_DENSE_CHECK_H
#include "hamlet/dense.h"

/* Asserts, over all ranks, max |A z - w B z| / (|A| + |w| |B|) < resid_tol and max |Z^H B Z - I| <
 * orth_tol (B = NULL: the identity), from each rank's rows of the n eigenvectors Z. Collective. */
void hm_test_dense_check_vectors(hm_context *ctx, const hm_dist *dist, hm_scalar type, hm_matrix *A, hm_matrix *B,
                                 hm_mvec *Z, const double *w, int64_t n, double resid_tol, double orth_tol,
                                 const char *what);
#endif
