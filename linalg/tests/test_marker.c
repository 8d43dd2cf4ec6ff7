/* The local Chern marker (include/hamlet/marker.h) on open Qi-Wu-Zhang flakes made with hm_stencil.
 * cpu: deep in an L x L flake (L = 16) the marker summed over a cell's two orbitals is +-1 within 2%
 * for u = 1 and u = -1 with opposite signs, and 0 for u = 3 (the Chern numbers), with the Fermi
 * projector (T = 0.1) as with the Jackson step; bad arguments fail
 * with their messages. cuda: the same code on the GPU backend against the CPU backend on a flake with
 * fresh random disorder (seed printed; HAMLET_TEST_SEED replays it), 1e-10 relative, for the marker of 64 rows and
 * for the projector applied to a random block, with the Jackson step and the Fermi function (T = 0.2).
 * The exact-projector test of the Fermi one: test_marker_exact.c. */
#include <math.h>
#include <string.h>
#include "conductivity_testlib.h"
#include "hamlet/marker.h"

static int flake(hm_context *ctx, int L, double u, double w, uint64_t seed, hm_matrix **H) {
  double blk[QWZ_BLOCKS * 8];
  qwz_blocks(u, 0, blk);
  hm_stencil s;
  hm_stencil_init(&s);
  s.cells[0] = s.cells[1] = L;
  s.cells[2] = 1;
  s.orbitals = 2;
  s.nblocks = QWZ_BLOCKS;
  s.shift = qwz_shift;
  s.block = blk;
  for (int a = 0; a < 3; a++) s.boundary[a] = HM_BC_OPEN;
  s.disorder_w = w;
  s.disorder_seed = seed;
  return hm_matrix_create_stencil(ctx, &s, HM_STENCIL_ASSEMBLED, H);
}

/* Centred positions of the local rows of H (row = 2 (cx + L cy) + o). */
static void positions(hm_matrix *H, int L, double **x, double **y) {
  const hm_dist *dist;
  int64_t first, local;
  hm_matrix_dist(H, &dist);
  hm_dist_range(dist, &first, &local, NULL);
  *x = malloc(sizeof(double) * (local + 1));
  *y = malloc(sizeof(double) * (local + 1));
  for (int64_t i = 0; i < local; i++) {
    const int64_t cell = (first + i) / 2;
    (*x)[i] = cell % L - 0.5 * (L - 1);
    (*y)[i] = cell / L - 0.5 * (L - 1);
  }
}

/* The marker of the centre cell, projector at temperature T with M moments. */
static double centre_marker_at(hm_context *ctx, int L, double u, double T, int M) {
  hm_matrix *H;
  double *x, *y, m[2];
  HM_TEST_OK(flake(ctx, L, u, 0, 1, &H));
  positions(H, L, &x, &y);
  const int64_t c = L / 2 + L * (L / 2), rows[2] = {2 * c, 2 * c + 1};
  const double e = fabs(u) + 2.1; /* |E| <= |u| + 2 */
  HM_TEST_OK(hm_marker_local_temperature(H, x, y, -e, e, 0.0, T, M, 2, rows, m));
  free(x);
  free(y);
  hm_matrix_destroy(&H);
  return m[0] + m[1];
}

static double centre_marker(hm_context *ctx, int L, double u) {
  return centre_marker_at(ctx, L, u, 0, 512);
}

static void cpu_checks(hm_context *ctx) {
  const int L = 16;
  const double c1 = centre_marker(ctx, L, 1), cm1 = centre_marker(ctx, L, -1), c3 = centre_marker(ctx, L, 3);
  printf("centre of a %d x %d flake: C = %.5f (u = 1), %.5f (u = -1), %.5f (u = 3)\n", L, L, c1, cm1, c3);
  HM_TEST_ASSERT(fabs(fabs(c1) - 1) < 0.02 && fabs(fabs(cm1) - 1) < 0.02, "bulk marker %g, %g: want +-1 within 2%%",
                 c1, cm1);
  HM_TEST_ASSERT(c1 * cm1 < 0, "u = 1 and u = -1 give %g and %g: the signs must differ", c1, cm1);
  HM_TEST_ASSERT(fabs(c3) < 0.02, "trivial u = 3 gives %g, want 0", c3);
  /* the Fermi projector (T = 0.1, undamped, M = 400 >= 25 / (pi T scale)) gives the same bulk marker */
  const double f1 = centre_marker_at(ctx, L, 1, 0.1, 400), fj = centre_marker_at(ctx, L, 1, 0, 400);
  printf("centre, u = 1, M = 400: C = %.6f (Fermi, T = 0.1), %.6f (Jackson step)\n", f1, fj);
  HM_TEST_ASSERT(fabs(f1 - c1) < 0.02 && fabs(fabs(f1) - 1) < 0.02, "Fermi bulk marker %g, Jackson %g", f1, c1);

  hm_matrix *H;
  double *x, *y, m[1];
  HM_TEST_OK(flake(ctx, 4, 1, 0, 1, &H));
  positions(H, 4, &x, &y);
  int64_t bad = 32;
  HM_TEST_FAILS(hm_marker_local(H, x, y, -3, 3, 0, 16, 1, &bad, m), HM_ERR_ARGUMENT, "allowed are 0 to 31");
  bad = 0;
  HM_TEST_FAILS(hm_marker_local(H, x, y, 3, -3, 0, 16, 1, &bad, m), HM_ERR_ARGUMENT, "emin < emax");
  HM_TEST_FAILS(hm_marker_local(H, x, y, -3, 3, NAN, 16, 1, &bad, m), HM_ERR_ARGUMENT, "must be finite");
  HM_TEST_FAILS(hm_marker_local(H, x, y, -3, 3, 0, 1, 1, &bad, m), HM_ERR_ARGUMENT, "at least 2 Chebyshev");
  hm_mvec *V;
  const hm_dist *dist;
  hm_matrix_dist(H, &dist);
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 2, &V));
  HM_TEST_FAILS(hm_fermi_projector_apply(H, -3, 3, 0, 16, V, V), HM_ERR_ARGUMENT, "two distinct blocks");
  hm_mvec_destroy(&V);
  free(x);
  free(y);
  hm_matrix_destroy(&H);
}

/* The marker of 64 rows and P of a random block on the CPU and on the GPU. */
static void gpu_checks(hm_context *cpu) {
  hm_context *gpu;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CUDA, &gpu));
  const uint64_t seed = hm_test_seed();
  const int L = 24, M = 300, n = 64;
  hm_matrix *Hc, *Hg;
  HM_TEST_OK(flake(cpu, L, -1.2, 1.5, seed, &Hc));
  HM_TEST_OK(flake(gpu, L, -1.2, 1.5, seed, &Hg));
  double *x, *y, mc[64], mg[64];
  positions(Hc, L, &x, &y);
  int64_t rows[64];
  for (int j = 0; j < n; j++) rows[j] = (int64_t)((seed + 977u * (uint64_t)j) % (uint64_t)(2 * L * L));
  HM_TEST_OK(hm_marker_local(Hc, x, y, -5, 5, 0.1, M, n, rows, mc));
  HM_TEST_OK(hm_marker_local(Hg, x, y, -5, 5, 0.1, M, n, rows, mg));
  double worst = 0, big = 0;
  for (int j = 0; j < n; j++) worst = fmax(worst, fabs(mc[j] - mg[j])), big = fmax(big, fabs(mc[j]));
  printf("marker: GPU - CPU %.2e of %.2e\n", worst, big);
  HM_TEST_ASSERT(worst <= 1e-10 * big && big > 1e-3, "GPU marker differs from CPU by %g (largest %g)", worst, big);

  const hm_dist *dc, *dg;
  hm_matrix_dist(Hc, &dc);
  hm_matrix_dist(Hg, &dg);
  int64_t local;
  hm_dist_range(dc, NULL, &local, NULL);
  hm_mvec *Vc, *Vg, *Pc, *Pg;
  HM_TEST_OK(hm_mvec_create(cpu, dc, HM_COMPLEX, 5, &Vc));
  HM_TEST_OK(hm_mvec_create(cpu, dc, HM_COMPLEX, 5, &Pc));
  HM_TEST_OK(hm_mvec_create(gpu, dg, HM_COMPLEX, 5, &Vg));
  HM_TEST_OK(hm_mvec_create(gpu, dg, HM_COMPLEX, 5, &Pg));
  HM_TEST_OK(hm_mvec_random_phase(Vc, seed));
  double *buf = malloc(sizeof(double) * 2 * 5 * local), *bg = malloc(sizeof(double) * 2 * 5 * local);
  HM_TEST_OK(hm_mvec_get(Vc, buf));
  HM_TEST_OK(hm_mvec_set(Vg, buf));
  HM_TEST_OK(hm_fermi_projector_apply(Hc, -5, 5, 0.1, M, Vc, Pc));
  HM_TEST_OK(hm_fermi_projector_apply(Hg, -5, 5, 0.1, M, Vg, Pg));
  HM_TEST_OK(hm_mvec_get(Pc, buf));
  HM_TEST_OK(hm_mvec_get(Pg, bg));
  worst = 0, big = 0;
  for (int64_t i = 0; i < 2 * 5 * local; i++) worst = fmax(worst, fabs(buf[i] - bg[i])), big = fmax(big, fabs(buf[i]));
  printf("projector: GPU - CPU %.2e of %.2e\n", worst, big);
  HM_TEST_ASSERT(worst <= 1e-10 * big && big > 1e-3, "GPU projector differs from CPU by %g", worst);
  /* the Fermi projector (T = 0.2, undamped) of the same block, and the marker with it */
  HM_TEST_OK(hm_fermi_projector_apply_temperature(Hc, -5, 5, 0.1, 0.2, M, Vc, Pc));
  HM_TEST_OK(hm_fermi_projector_apply_temperature(Hg, -5, 5, 0.1, 0.2, M, Vg, Pg));
  HM_TEST_OK(hm_mvec_get(Pc, buf));
  HM_TEST_OK(hm_mvec_get(Pg, bg));
  worst = 0, big = 0;
  for (int64_t i = 0; i < 2 * 5 * local; i++) worst = fmax(worst, fabs(buf[i] - bg[i])), big = fmax(big, fabs(buf[i]));
  printf("Fermi projector: GPU - CPU %.2e of %.2e\n", worst, big);
  HM_TEST_ASSERT(worst <= 1e-10 * big && big > 1e-3, "GPU Fermi projector differs from CPU by %g", worst);
  HM_TEST_OK(hm_marker_local_temperature(Hc, x, y, -5, 5, 0.1, 0.2, M, n, rows, mc));
  HM_TEST_OK(hm_marker_local_temperature(Hg, x, y, -5, 5, 0.1, 0.2, M, n, rows, mg));
  worst = 0, big = 0;
  for (int j = 0; j < n; j++) worst = fmax(worst, fabs(mc[j] - mg[j])), big = fmax(big, fabs(mc[j]));
  printf("Fermi marker: GPU - CPU %.2e of %.2e\n", worst, big);
  HM_TEST_ASSERT(worst <= 1e-10 * big && big > 1e-3, "GPU Fermi marker differs from CPU by %g", worst);
  free(buf);
  free(bg);
  free(x);
  free(y);
  hm_mvec_destroy(&Vc);
  hm_mvec_destroy(&Vg);
  hm_mvec_destroy(&Pc);
  hm_mvec_destroy(&Pg);
  hm_matrix_destroy(&Hc);
  hm_matrix_destroy(&Hg);
  hm_context_destroy(&gpu);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int cuda = argc > 1 && !strcmp(argv[1], "cuda");
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  if (cuda) gpu_checks(ctx);
  else cpu_checks(ctx);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
