/* TI lattice: the built matrix is Hermitian (periodic, open, mixed, with dots and disorder), has
 * the expected number of stored entries, and on clean periodic lattices its exact eigenvalues are
 * the analytic Bloch bands +-sqrt((m - t sum cos k_j)^2 + t^2 sum sin^2 k_j), each twice, to 1e-10
 * (small rings N_j = 1, 2 included, where hoppings land on repeated columns). */
#include <stdlib.h>
#include "testing.h"
#include "ti_test_util.h"

static hm_ti_params lattice(int64_t nx, int64_t ny, int64_t nz, double t, double m) {
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = nx; p.ny = ny; p.nz = nz; p.t = t; p.m = m;
  return p;
}

/* Builds p, returns its dense matrix (caller frees) after checking Hermiticity. */
static double complex *build_dense(hm_context *ctx, const hm_ti_params *p, const char *what, int64_t *n) {
  hm_matrix *H = NULL;
  double complex *d = NULL;
  HM_TEST_OK(hm_ti_build(ctx, p, &H));
  if (!H) return NULL;
  HM_TEST_OK(hm_test_dense(H, &d, n));
  hm_scalar type;
  hm_matrix_info(H, NULL, NULL, &type);
  HM_TEST_ASSERT(type == HM_COMPLEX, "%s: the TI matrix must be complex", what);
  double defect = ti_hermitian_defect(*n, d);
  HM_TEST_ASSERT(defect <= 1e-14, "%s: |H - H^H| = %g, expected <= 1e-14", what, defect);
  hm_matrix_destroy(&H);
  return d;
}

static void check_bloch(hm_context *ctx, int64_t nx, int64_t ny, int64_t nz, double t, double m) {
  hm_ti_params p = lattice(nx, ny, nz, t, m);
  char what[128];
  snprintf(what, sizeof what, "periodic %lldx%lldx%lld t=%g m=%g", (long long)nx, (long long)ny, (long long)nz, t, m);
  int64_t n;
  double complex *d = build_dense(ctx, &p, what, &n);
  if (!d) return;
  HM_TEST_ASSERT(n == 4 * nx * ny * nz, "%s: %lld rows, expected %lld", what, (long long)n, (long long)(4 * nx * ny * nz));
  double *w = malloc(sizeof *w * n), *ref = malloc(sizeof *ref * n);
  HM_TEST_OK(hm_test_eigh(n, d, w, NULL));
  /* Each k gives +-E twice (two Kramers-degenerate bands of each sign). */
  int64_t q = 0;
  for (int64_t a = 0; a < nx; a++)
    for (int64_t b = 0; b < ny; b++)
      for (int64_t c = 0; c < nz; c++) {
        double e = ti_bloch_energy(t, m, 2 * M_PI * a / nx, 2 * M_PI * b / ny, 2 * M_PI * c / nz);
        ref[q++] = e; ref[q++] = e; ref[q++] = -e; ref[q++] = -e;
      }
  qsort(ref, n, sizeof *ref, ti_cmp_double);
  double worst = 0;
  for (int64_t i = 0; i < n; i++) worst = fmax(worst, fabs(w[i] - ref[i]));
  HM_TEST_ASSERT(worst <= 1e-10, "%s: max |E - E_Bloch| = %g, expected <= 1e-10", what, worst);
  free(w); free(ref); free(d);
}

/* Stored entries: 4 on-site per site, 16 per bond (2 sites x 4 rows x 2 entries). */
static void check_nnz(hm_context *ctx, int64_t nx, int64_t ny, int64_t nz, int bx, int by, int bz, int64_t expect) {
  hm_ti_params p = lattice(nx, ny, nz, 1.0, 2.0);
  p.boundary[0] = bx; p.boundary[1] = by; p.boundary[2] = bz;
  hm_matrix *H = NULL;
  HM_TEST_OK(hm_ti_build(ctx, &p, &H));
  int64_t nnz = -1;
  if (H) hm_matrix_info(H, NULL, &nnz, NULL);
  HM_TEST_ASSERT(nnz == expect, "%lldx%lldx%lld boundary %d%d%d: %lld stored entries, expected %lld",
                 (long long)nx, (long long)ny, (long long)nz, bx, by, bz, (long long)nnz, (long long)expect);
  hm_matrix_destroy(&H);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));

  /* 1. Hermiticity: periodic, open, and mixed boundaries with dots and disorder. */
  hm_ti_params p = lattice(4, 3, 5, 0.9, 1.3);
  int64_t n;
  free(build_dense(ctx, &p, "periodic 4x3x5", &n));
  p.boundary[0] = p.boundary[1] = p.boundary[2] = HM_BC_OPEN;
  free(build_dense(ctx, &p, "open 4x3x5", &n));
  p.boundary[1] = HM_BC_PERIODIC;
  p.dot_v0 = 0.8; p.dot_period_x = 3; p.dot_period_y = 2; p.dot_radius = 1.2; p.dot_depth = 2;
  p.disorder_w = 2.5; p.disorder_seed = 17;
  free(build_dense(ctx, &p, "mixed 4x3x5 with dots and disorder", &n));

  /* 2. Bloch bands of clean periodic lattices. */
  check_bloch(ctx, 4, 3, 5, 1.0, 2.0);
  check_bloch(ctx, 4, 3, 5, 1.0, 1.0);
  check_bloch(ctx, 4, 3, 5, 0.7, 2.0);
  check_bloch(ctx, 2, 1, 3, 1.0, 2.0);
  check_bloch(ctx, 2, 1, 3, 0.7, -1.5);
  check_bloch(ctx, 1, 1, 1, 1.0, 2.0);
  check_bloch(ctx, 2, 2, 2, 1.3, 0.4);

  /* About 13 entries per row: exactly 13 on periodic lattices with every N_j >= 3. */
  check_nnz(ctx, 4, 3, 5, 0, 0, 0, 13 * 4 * 60);
  /* Open 4x3x5: bonds 3*3*5 + 4*2*5 + 4*3*4 = 133. */
  check_nnz(ctx, 4, 3, 5, 1, 1, 1, 4 * 60 + 16 * 133);

  hm_context_destroy(&ctx);
  return hm_test_finish();
}
