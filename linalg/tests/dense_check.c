/* The eigenvector checks of the distributed dense tests (dense_check.h). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dense_check.h"
#include "testing.h"

void hm_test_dense_check_vectors(hm_context *ctx, const hm_dist *dist, hm_scalar type, hm_matrix *A, hm_matrix *B,
                                 hm_mvec *Z, const double *w, int64_t n, double resid_tol, double orth_tol,
                                 const char *what) {
  int64_t local;
  hm_dist_range(dist, NULL, &local, NULL);
  hm_mvec *AZ, *BZ = NULL;
  HM_TEST_OK(hm_mvec_create(ctx, dist, type, (int)n, &AZ));
  HM_TEST_OK(hm_matrix_apply(A, Z, AZ));
  if (B) { HM_TEST_OK(hm_mvec_create(ctx, dist, type, (int)n, &BZ)); HM_TEST_OK(hm_matrix_apply(B, Z, BZ)); }
  const size_t cnt = (size_t)(local * n);
  double *z = calloc(cnt * type + 1, sizeof(double)), *az = calloc(cnt * type + 1, sizeof(double)),
         *bz = calloc(cnt * type + 1, sizeof(double));
  hm_mvec_get(Z, z);
  hm_mvec_get(AZ, az);
  if (B) hm_mvec_get(BZ, bz); else memcpy(bz, z, sizeof(double) * cnt * type);
  double emin, emax, bmin = 1, bmax = 1;
  hm_matrix_gershgorin(A, &emin, &emax);
  if (B) hm_matrix_gershgorin(B, &bmin, &bmax);
  const double na = fmax(fabs(emin), fabs(emax)), nb = fmax(fabs(bmin), fabs(bmax));
#define AT(x, i, m) (type == HM_REAL ? (x)[(i) * n + (m)] : (x)[2 * ((i) * n + (m))] + I * (x)[2 * ((i) * n + (m)) + 1])
  double resid = 0;
  double complex *gram = calloc((size_t)(n * n), sizeof *gram), *sum = calloc((size_t)(n * n), sizeof *sum);
  for (int64_t i = 0; i < local; i++)
    for (int64_t m = 0; m < n; m++) {
      resid = fmax(resid, cabs(AT(az, i, m) - w[m] * AT(bz, i, m)) / (na + fabs(w[m]) * nb));
      for (int64_t a = 0; a < n; a++) gram[a * n + m] += conj(AT(z, i, a)) * AT(bz, i, m);
    }
#undef AT
  MPI_Allreduce(gram, sum, (int)(2 * n * n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double orth = 0, all_resid;
  for (int64_t a = 0; a < n; a++)
    for (int64_t m = 0; m < n; m++) orth = fmax(orth, cabs(sum[a * n + m] - (a == m)));
  MPI_Allreduce(&resid, &all_resid, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  HM_TEST_ASSERT(all_resid < resid_tol && orth < orth_tol, "%s: residual %.3g, orthonormality %.3g", what, all_resid, orth);
  free(z); free(az); free(bz); free(gram); free(sum);
  hm_mvec_destroy(&AZ);
  hm_mvec_destroy(&BZ);
}

