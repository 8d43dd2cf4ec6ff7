/* The commutator chi(t) = [X, U(t)] psi(0) that hm_evolution carries beside the state once given
 * V = i[H, X] (hm_evolution_set_commutator; complex for real H too):
 * - against X U(t) psi - U(t) X psi, the two states propagated by the plain evolution (X the row
 *   index of a random band matrix, complex and real, open: X is defined), to 1e-10 relative, over
 *   steps of two sizes;
 * - one site of a clean ring (hopping 1; V from minimum-image displacements, where X itself is not
 *   defined) has ||chi(t)||^2 = sum_n n^2 J_n(2t)^2 = 2 t^2 until its front nears the far side;
 * - a restart (state and commutator after 3 steps on a fresh evolution, 2 more steps) is bitwise the
 *   5 steps; hm_evolution_set_state zeroes chi; refusals: no commutator, a real or non-Hermitian V.
 * Argument "cuda": the GPU backend. Run on 1 and 2 ranks. */
#include <string.h>
#include "evolution_testlib.h"
#include "hamlet/evolution.h"

enum { R = 3 };

static hm_backend backend = HM_BACKEND_CPU;

/* The local rows (row-major, k columns) of a random complex block; X psi where scaled. */
/* H and V = i[H, X] of a dense H (V complex), and H's local rows. */
static void make_operators(hm_context *ctx, int64_t n, hm_scalar type, const double complex *h, int ring, hm_matrix **H,
                           hm_matrix **V, int64_t *first, int64_t *local) {
  double complex *v = evo_velocity_dense(n, h, ring);
  HM_TEST_OK(evo_matrix_from_dense(ctx, n, type, h, H));
  HM_TEST_OK(evo_matrix_from_dense(ctx, n, HM_COMPLEX, v, V));
  free(v);
  const hm_dist *dist;
  hm_matrix_dist(*H, &dist);
  hm_dist_range(dist, first, local, NULL);
}

static void random_rows(int64_t first, int64_t local, int k, uint64_t seed, int times_x, double complex *rows) {
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < k; j++) {
      uint64_t s = seed + (uint64_t)((first + i) * k + j) * 0x2545f4914f6cdd1dULL;
      double complex v = evo_uniform(&s) - 0.5 + I * (evo_uniform(&s) - 0.5);
      rows[i * k + j] = times_x ? (double)(first + i) * v : v;
    }
}

static double block_difference(hm_mvec *A, hm_mvec *B, int64_t local, int k) {
  double complex *a = malloc(sizeof *a * (size_t)(local * k + 1)), *b = malloc(sizeof *b * (size_t)(local * k + 1));
  hm_mvec_get(A, a);
  hm_mvec_get(B, b);
  double num = 0, den = 0;
  for (int64_t i = 0; i < local * k; i++) {
    num += creal((a[i] - b[i]) * conj(a[i] - b[i]));
    den += creal(b[i] * conj(b[i]));
  }
  MPI_Allreduce(MPI_IN_PLACE, &num, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &den, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(a), free(b);
  return sqrt(num / den);
}

/* chi after `steps` steps of dt against X U psi - U X psi. */
static void check_against_two_states(hm_context *ctx, hm_scalar type, double dt, int steps, uint64_t seed) {
  const int64_t n = 90;
  double complex *h = evo_random_band(n, 3, 2.0, type, seed);
  hm_matrix *H, *C;
  int64_t first, local;
  make_operators(ctx, n, type, h, 0, &H, &C, &first, &local);
  const hm_dist *dist;
  hm_matrix_dist(H, &dist);
  double complex *rows = malloc(sizeof *rows * (size_t)(local * 2 * R + 1));
  double complex *half = malloc(sizeof *half * (size_t)(local * R + 1));
  hm_mvec *psi, *both, *chi, *ref;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, R, &psi));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 2 * R, &both));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, R, &chi));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, R, &ref));
  random_rows(first, local, R, seed, 0, half);
  HM_TEST_OK(hm_mvec_set(psi, half));
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < R; j++) {
      rows[i * 2 * R + j] = half[i * R + j];
      rows[i * 2 * R + R + j] = (double)(first + i) * half[i * R + j];
    }
  HM_TEST_OK(hm_mvec_set(both, rows));
  hm_evolution_options opt;
  hm_evolution_options_default(&opt);
  opt.dt = dt;
  opt.bounds = HM_BOUNDS_GERSHGORIN;
  hm_evolution *ev, *pair;
  HM_TEST_OK(hm_evolution_create(H, R, &opt, &ev));
  HM_TEST_OK(hm_evolution_set_commutator(ev, C));
  HM_TEST_OK(hm_evolution_set_state(ev, psi));
  HM_TEST_OK(hm_evolution_step(ev, steps));
  HM_TEST_OK(hm_evolution_get_commutator_state(ev, chi));
  HM_TEST_OK(hm_evolution_create(H, 2 * R, &opt, &pair));
  HM_TEST_OK(hm_evolution_set_state(pair, both));
  HM_TEST_OK(hm_evolution_step(pair, steps));
  HM_TEST_OK(hm_evolution_get_state(pair, both));
  HM_TEST_OK(hm_mvec_get(both, rows));
  for (int64_t i = 0; i < local; i++)
    for (int j = 0; j < R; j++)
      half[i * R + j] = (double)(first + i) * rows[i * 2 * R + j] - rows[i * 2 * R + R + j];
  HM_TEST_OK(hm_mvec_set(ref, half));
  const double diff = block_difference(chi, ref, local, R);
  HM_TEST_ASSERT(diff < 1e-10, "%s H, dt = %g, %d steps: chi differs from X U psi - U X psi by %.3e (relative)",
                 type == HM_REAL ? "real" : "complex", dt, steps, diff);
  /* set_state: the clock and chi at 0 */
  HM_TEST_OK(hm_evolution_set_state(ev, psi));
  HM_TEST_OK(hm_evolution_get_commutator_state(ev, chi));
  double norms[R];
  HM_TEST_OK(hm_mvec_norms(chi, norms));
  HM_TEST_ASSERT(norms[0] == 0 && norms[R - 1] == 0, "after set_state chi has norm %g, not 0", norms[0]);
  hm_evolution_destroy(&ev), hm_evolution_destroy(&pair);
  hm_mvec_destroy(&psi), hm_mvec_destroy(&both), hm_mvec_destroy(&chi), hm_mvec_destroy(&ref);
  hm_matrix_destroy(&H), hm_matrix_destroy(&C);
  free(h), free(rows), free(half);
}

/* One site of a clean ring of 240 sites: ||chi(t)||^2 = 2 t^2 while the front (2t) is far from 120. */
static void check_ring(hm_context *ctx, hm_scalar type) {
  const int64_t n = 240, site = 17;
  double complex *h = calloc((size_t)(n * n), sizeof *h);
  for (int64_t i = 0; i < n; i++) h[((i + 1) % n) * n + i] = h[i * n + (i + 1) % n] = 1;
  hm_matrix *H, *C;
  int64_t first, local;
  make_operators(ctx, n, type, h, 1, &H, &C, &first, &local);
  const hm_dist *dist;
  hm_matrix_dist(H, &dist);
  double complex *rows = calloc((size_t)local + 1, sizeof *rows);
  if (site >= first && site < first + local) rows[site - first] = 1;
  hm_mvec *psi, *chi;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &psi));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &chi));
  HM_TEST_OK(hm_mvec_set(psi, rows));
  hm_evolution_options opt;
  hm_evolution_options_default(&opt);
  opt.dt = 4;
  opt.bounds = HM_BOUNDS_GIVEN;
  opt.emin = -2.05;
  opt.emax = 2.05;
  hm_evolution *ev;
  HM_TEST_OK(hm_evolution_create(H, 1, &opt, &ev));
  HM_TEST_OK(hm_evolution_set_commutator(ev, C));
  HM_TEST_OK(hm_evolution_set_state(ev, psi));
  for (int s = 1; s <= 5; s++) {
    HM_TEST_OK(hm_evolution_step(ev, 1));
    HM_TEST_OK(hm_evolution_get_commutator_state(ev, chi));
    double norm;
    HM_TEST_OK(hm_mvec_norms(chi, &norm));
    const double t = s * opt.dt;
    HM_TEST_ASSERT(fabs(norm * norm / (2 * t * t) - 1) < 1e-10, "%s ring, t = %g: ||chi||^2 = %.15g, 2 t^2 = %g",
                   type == HM_REAL ? "real" : "complex", t, norm * norm, 2 * t * t);
  }
  hm_evolution_destroy(&ev);
  hm_mvec_destroy(&psi), hm_mvec_destroy(&chi);
  hm_matrix_destroy(&H), hm_matrix_destroy(&C);
  free(h), free(rows);
}

/* 3 steps, then the state and chi on a fresh evolution, 2 more: bitwise the uninterrupted 5. */
static void check_restart(hm_context *ctx, uint64_t seed) {
  const int64_t n = 60;
  double complex *h = evo_random_band(n, 2, 1.0, HM_COMPLEX, seed), *c = evo_velocity_dense(n, h, 0);
  hm_matrix *H, *C, *Creal, *Canti;
  HM_TEST_OK(evo_matrix_from_dense(ctx, n, HM_COMPLEX, h, &H));
  HM_TEST_OK(evo_matrix_from_dense(ctx, n, HM_COMPLEX, c, &C));
  HM_TEST_OK(evo_matrix_from_dense(ctx, n, HM_REAL, c, &Creal));
  for (int64_t i = 0; i < n * n; i++) c[i] *= I; /* [X, H] itself: anti-Hermitian */
  HM_TEST_OK(evo_matrix_from_dense(ctx, n, HM_COMPLEX, c, &Canti));
  const hm_dist *dist;
  hm_matrix_dist(H, &dist);
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  double complex *rows = malloc(sizeof *rows * (size_t)(local * R + 1));
  double complex *again = malloc(sizeof *again * (size_t)(local * R + 1));
  hm_mvec *psi, *chi;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, R, &psi));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, R, &chi));
  random_rows(first, local, R, seed + 1, 0, rows);
  HM_TEST_OK(hm_mvec_set(psi, rows));
  hm_evolution_options opt;
  hm_evolution_options_default(&opt);
  opt.bounds = HM_BOUNDS_GERSHGORIN;
  opt.dt = 0.9;
  hm_evolution *whole, *first_part, *second;
  HM_TEST_OK(hm_evolution_create(H, R, &opt, &whole));
  HM_TEST_FAILS(hm_evolution_get_commutator_state(whole, chi), HM_ERR_ARGUMENT, "no commutator");
  HM_TEST_FAILS(hm_evolution_set_commutator(whole, Creal), HM_ERR_ARGUMENT, "V is real");
  HM_TEST_FAILS(hm_evolution_set_commutator(whole, Canti), HM_ERR_INPUT, "needs a Hermitian matrix");
  HM_TEST_OK(hm_evolution_set_commutator(whole, C));
  HM_TEST_OK(hm_evolution_set_state(whole, psi));
  HM_TEST_OK(hm_evolution_step(whole, 5));
  HM_TEST_OK(hm_evolution_create(H, R, &opt, &first_part));
  HM_TEST_OK(hm_evolution_set_commutator(first_part, C));
  HM_TEST_OK(hm_evolution_set_state(first_part, psi));
  HM_TEST_OK(hm_evolution_step(first_part, 3));
  HM_TEST_OK(hm_evolution_create(H, R, &opt, &second));
  HM_TEST_OK(hm_evolution_set_commutator(second, C));
  HM_TEST_OK(hm_evolution_get_state(first_part, psi));
  HM_TEST_OK(hm_evolution_set_state(second, psi));
  HM_TEST_OK(hm_evolution_get_commutator_state(first_part, chi));
  HM_TEST_OK(hm_evolution_set_commutator_state(second, chi));
  HM_TEST_OK(hm_evolution_step(second, 2));
  HM_TEST_OK(hm_evolution_get_commutator_state(whole, chi));
  HM_TEST_OK(hm_mvec_get(chi, rows));
  HM_TEST_OK(hm_evolution_get_commutator_state(second, chi));
  HM_TEST_OK(hm_mvec_get(chi, again));
  HM_TEST_ASSERT(!memcmp(rows, again, sizeof *rows * (size_t)(local * R)), "the restarted commutator differs from the "
                 "uninterrupted one");
  hm_evolution_destroy(&whole), hm_evolution_destroy(&first_part), hm_evolution_destroy(&second);
  hm_mvec_destroy(&psi), hm_mvec_destroy(&chi);
  hm_matrix_destroy(&H), hm_matrix_destroy(&C), hm_matrix_destroy(&Creal), hm_matrix_destroy(&Canti);
  free(h), free(c), free(rows), free(again);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
    HM_TEST_NEED_GPU();
    backend = HM_BACKEND_CUDA;
  }
  const uint64_t seed = hm_test_seed();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  for (int t = 0; t < 2; t++) {
    const hm_scalar type = t ? HM_REAL : HM_COMPLEX;
    check_against_two_states(ctx, type, 0.3, 7, seed);
    check_against_two_states(ctx, type, 2.5, 3, seed + 7);
    check_ring(ctx, type);
  }
  check_restart(ctx, seed);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
