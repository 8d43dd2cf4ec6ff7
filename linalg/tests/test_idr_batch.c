/* Batched IDR(s): k = 4 systems (z_j - H) x_j = b_j with the topological-insulator lattice H at
 * z_j = E_j + i eta, different right-hand sides and shifts, advancing together (one SpMM serves all
 * four), follow the same recurrences as four one-by-one solves: the same residual histories (until
 * rounding, which IDR(s) amplifies by about 10 per 4 iterations, shows), the same solutions (to
 * 1e-10) and iteration counts (to the few that different rounding of SpMM vs SpMV can shift the
 * last digits of convergence); and these agree with LAPACK's dense solve. Also a batch with one
 * shared shift and a zero right-hand side. */
#include <lapacke.h>
#include <string.h>
#include "idr_testlib.h"

enum { K = 4 };

static double complex rhs_entry(int64_t row, int col, const void *par) {
  (void)par;
  return col == 3 && par ? 0 : idr_test_random_entry(row, col, NULL);
}

enum { EARLY = 20 }; /* iterations over which rounding differences stay far below 1e-8 */

static void solve(hm_matrix *H, int nz, const double complex *z, hm_mvec *b, hm_mvec *x, int s, int *its,
                  double *tru, double hist[][EARLY + 1]) {
  hm_operator *op;
  HM_TEST_OK(hm_operator_create_shifted(H, nz, z, &op));
  hm_idr_options opt;
  hm_idr_options_default(&opt);
  opt.s = s;
  opt.tol = 1e-11;
  opt.maxit = 4000;
  hm_idr *idr;
  HM_TEST_OK(hm_idr_create(op, &opt, &idr));
  HM_TEST_OK(hm_idr_solve(idr, b, x));
  HM_TEST_OK(hm_idr_systems(idr, its, NULL, NULL));
  HM_TEST_OK(hm_idr_residuals(idr, NULL, tru));
  int k;
  hm_idr_info(idr, &k, NULL);
  static double h[4001];
  for (int j = 0; j < k; j++) {
    int len = 0;
    HM_TEST_OK(hm_idr_history(idr, j, h, 4001, &len));
    for (int q = 0; q <= EARLY; q++) hist[j][q] = q < len ? h[q] : 0;
  }
  hm_idr_destroy(&idr);
  hm_operator_destroy(&op);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_matrix *H;
  HM_TEST_OK(hm_test_ti_slab(ctx, 4, 4, 3, 1.0, NULL, &H));
  const hm_dist *dist;
  hm_matrix_dist(H, &dist);
  int64_t n;
  hm_dist_range(dist, NULL, NULL, &n);
  const double complex z[K] = {-1.5 + 0.5 * I, -0.3 + 0.5 * I, 0.4 + 0.5 * I, 1.2 + 0.5 * I};
  hm_mvec *b, *x, *b1, *x1;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, K, &b));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, K, &x));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &b1));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &x1));
  double complex *xb = malloc(sizeof(double complex) * n * K), *x1g = malloc(sizeof(double complex) * n);
  double complex *bg = malloc(sizeof(double complex) * n * K);
  double complex *dense;
  HM_TEST_OK(hm_test_dense(H, &dense, &n));
  double complex *Az = malloc(sizeof(double complex) * n * n), *ref = malloc(sizeof(double complex) * n);
  lapack_int *ipiv = malloc(sizeof(lapack_int) * n);

  for (int shared = 0; shared <= 1; shared++) { /* shared: one shift z_0 for all, b_3 = 0 */
    HM_TEST_OK(idr_test_fill(b, rhs_entry, shared ? &shared : NULL));
    HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, b, bg));
    const double zero[2 * K] = {0};
    HM_TEST_OK(hm_mvec_axpby(x, zero, x, zero));
    const int s = shared ? 2 : 4;
    int its[K];
    double tru[K], hist[K][EARLY + 1];
    solve(H, shared ? 1 : K, z, b, x, s, its, tru, hist);
    HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, x, xb));
    for (int j = 0; j < K; j++) {
      const double complex zj = shared ? z[0] : z[j];
      HM_TEST_OK(hm_mvec_copy_columns(b, j, b1, 0, 1));
      int its1;
      double tru1, hist1[1][EARLY + 1];
      HM_TEST_OK(hm_mvec_axpby(x1, zero, x1, zero));
      solve(H, 1, &zj, b1, x1, s, &its1, &tru1, hist1);
      HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, x1, x1g));
      double d = 0, m = 0;
      for (int64_t i = 0; i < n; i++) {
        d = fmax(d, cabs(xb[i * K + j] - x1g[i]));
        m = fmax(m, cabs(x1g[i]));
      }
      HM_TEST_ASSERT(abs(its[j] - its1) <= 2 + its1 / 20, "shared %d system %d: %d iterations batched, %d alone",
                     shared, j, its[j], its1);
      for (int q = 0; q <= EARLY; q++)
        HM_TEST_ASSERT(fabs(hist[j][q] - hist1[0][q]) < 1e-8, "shared %d system %d: residual %d is %.6e batched, %.6e alone",
                       shared, j, q, hist[j][q], hist1[0][q]);
      if (its[j] != its1) printf("note: system %d took %d iterations batched, %d alone\n", j, its[j], its1);
      HM_TEST_ASSERT(d <= 1e-10 * fmax(m, 1e-300) || (m == 0 && d == 0),
                     "shared %d system %d: batched and alone differ by %.3e (|x| %.3e)", shared, j, d, m);
      /* LAPACK: (z - H) x = b */
      for (int64_t q = 0; q < n * n; q++) Az[q] = -dense[q];
      for (int64_t i = 0; i < n; i++) {
        Az[i * n + i] += zj;
        ref[i] = bg[i * K + j];
      }
      HM_TEST_ASSERT(LAPACKE_zgesv(LAPACK_COL_MAJOR, (lapack_int)n, 1, Az, (lapack_int)n, ipiv, ref, (lapack_int)n) == 0,
                     "zgesv");
      double e = 0, r = 0;
      for (int64_t i = 0; i < n; i++) {
        e = fmax(e, cabs(xb[i * K + j] - ref[i]));
        r = fmax(r, cabs(ref[i]));
      }
      HM_TEST_ASSERT(e <= 1e-8 * fmax(r, 1e-300) || (r == 0 && e == 0), "shared %d system %d: |x - x_lapack| = %.3e (|x| %.3e)",
                     shared, j, e, r);
      HM_TEST_ASSERT(tru[j] < 1e-9, "shared %d system %d: true residual %.3e", shared, j, tru[j]);
    }
    if (shared) HM_TEST_ASSERT(its[3] == 0, "the zero right-hand side took %d iterations", its[3]);
  }
  free(xb); free(x1g); free(bg); free(dense); free(Az); free(ref); free(ipiv);
  hm_mvec_destroy(&b); hm_mvec_destroy(&x); hm_mvec_destroy(&b1); hm_mvec_destroy(&x1);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
