/* The time-dependent Kubo-Greenwood mean-square displacement from the public API (evolution + KPM):
 *   Delta X^2(E, t) = Tr[delta(E - H) |[X, U(t)]|^2] / Tr[delta(E - H)],
 * with [X, U(t)]|phi> = X U(t)|phi> - U(t) X|phi> for random-phase vectors phi (on a window of the
 * chain, far from its ends: the operator is translation invariant, so its window trace is the
 * whole one's per site) and delta(E - H) by the Jackson-damped Chebyshev series of both.
 * Clean chain (hopping 1): [X, U(t)] = t v(k) U(t) with v = 2 sin k, so Delta X^2 = v(E)^2 t^2 =
 * (4 - E^2) t^2 (ballistic). Strong on-site disorder localizes: Delta X^2 saturates. */
#include "evolution_testlib.h"

static int hm_test_rank(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

enum { L = 3000, W0 = 1250, W1 = 1750, R = 4, M = 384 };

static hm_matrix *chain(hm_context *ctx, double disorder, uint64_t seed) {
  hm_dist *dist;
  hm_dist_create(ctx, L, 1, 1.0, &dist);
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr), *cols = malloc(sizeof *cols * 3 * (size_t)local);
  double complex *vals = malloc(sizeof *vals * 3 * (size_t)local);
  for (int64_t i = 0; i < local; i++) {
    int64_t g = first + i, m = rowptr[i];
    uint64_t s = seed ^ (uint64_t)g * 0x9e3779b97f4a7c15ULL; /* the site's energy: rank-count independent */
    if (g > 0) { cols[m] = g - 1; vals[m++] = -1; }
    cols[m] = g; vals[m++] = disorder * (evo_uniform(&s) - 0.5);
    if (g < L - 1) { cols[m] = g + 1; vals[m++] = -1; }
    rowptr[i + 1] = m;
  }
  hm_matrix *H;
  HM_TEST_OK(hm_matrix_create_csr(ctx, dist, HM_COMPLEX, rowptr, cols, vals, &H));
  free(rowptr); free(cols); free(vals);
  hm_dist_destroy(&dist);
  return H;
}

/* sum_r <v_r|v_r> (g_0 mu_0 + 2 sum_n g_n mu_n T_n(x)) with the Jackson kernel: the unnormalised
 * pi sqrt(1 - x^2) <v|delta(E - H)|v> summed over the block's columns. */
static double delta_sum(hm_matrix *H, hm_mvec *V, double emin, double emax, double E) {
  hm_kpm_options opt;
  hm_kpm_options_default(&opt);
  opt.moments = M;
  opt.vectors = R;
  opt.bounds = HM_BOUNDS_GIVEN;
  opt.emin = emin;
  opt.emax = emax;
  hm_kpm *kpm;
  HM_TEST_OK(hm_kpm_create(H, &opt, &kpm));
  HM_TEST_OK(hm_kpm_set_start(kpm, V));
  HM_TEST_OK(hm_kpm_run(kpm));
  double *mu = malloc(sizeof *mu * M), *mu_vec = malloc(sizeof *mu_vec * M * R), norms[R], s, b;
  HM_TEST_OK(hm_kpm_moments(kpm, mu, mu_vec));
  hm_kpm_info(kpm, NULL, NULL, NULL, &s, &b, NULL);
  HM_TEST_OK(hm_mvec_norms(V, norms));
  const double x = s * (E - b), th = M_PI / (M + 1);
  double sum = 0;
  for (int r = 0; r < R; r++) {
    double acc = 0;
    for (int n = 0; n < M; n++) {
      double g = ((M - n + 1) * cos(th * n) + sin(th * n) / tan(th)) / (M + 1);
      acc += (n ? 2 : 1) * g * mu_vec[r * M + n] * cos(n * acos(x));
    }
    sum += norms[r] * norms[r] * acc;
  }
  free(mu); free(mu_vec);
  hm_kpm_destroy(&kpm);
  return sum;
}

/* Delta X^2(E, t) for each energy, from one propagation of [phi, X phi] to time t. */
static void msd(hm_context *ctx, hm_matrix *H, double bound, double t, uint64_t seed, int ne, const double *E, double *out) {
  const hm_dist *dist;
  hm_matrix_dist(H, &dist);
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  double complex *rows = calloc((size_t)(local * 2 * R) + 1, sizeof *rows);
  for (int64_t i = 0; i < local; i++) {
    int64_t g = first + i;
    if (g < W0 || g >= W1) continue;
    for (int r = 0; r < R; r++) {
      uint64_t s = seed + (uint64_t)(g * R + r) * 0x2545f4914f6cdd1dULL;
      double complex phase = cexp(2 * M_PI * I * evo_uniform(&s));
      rows[i * 2 * R + r] = phase;
      rows[i * 2 * R + R + r] = (double)g * phase; /* X phi */
    }
  }
  hm_mvec *both, *phi, *psi;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 2 * R, &both));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, R, &phi));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, R, &psi));
  HM_TEST_OK(hm_mvec_set(both, rows));
  HM_TEST_OK(hm_mvec_copy_columns(both, 0, phi, 0, R));
  hm_evolution_options opt;
  hm_evolution_options_default(&opt);
  opt.dt = t;
  opt.bounds = HM_BOUNDS_GIVEN;
  opt.emin = -bound;
  opt.emax = bound;
  hm_evolution *ev;
  HM_TEST_OK(hm_evolution_create(H, 2 * R, &opt, &ev));
  HM_TEST_OK(hm_evolution_set_state(ev, both));
  HM_TEST_OK(hm_evolution_step(ev, 1));
  HM_TEST_OK(hm_evolution_get_state(ev, both));
  HM_TEST_OK(hm_mvec_get(both, rows));
  double complex *c = malloc(sizeof *c * (size_t)(local * R + 1));
  for (int64_t i = 0; i < local; i++)
    for (int r = 0; r < R; r++) c[i * R + r] = (double)(first + i) * rows[i * 2 * R + r] - rows[i * 2 * R + R + r];
  HM_TEST_OK(hm_mvec_set(psi, c));
  for (int e = 0; e < ne; e++)
    out[e] = delta_sum(H, psi, -bound, bound, E[e]) / delta_sum(H, phi, -bound, bound, E[e]);
  free(rows); free(c);
  hm_evolution_destroy(&ev);
  hm_mvec_destroy(&both); hm_mvec_destroy(&phi); hm_mvec_destroy(&psi);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  uint64_t seed = hm_test_seed();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  const double E[4] = {-1.5, -0.5, 0.3, 1.2};
  double d[4];
  hm_matrix *clean = chain(ctx, 0, seed);
  for (int k = 0; k < 2; k++) {
    const double t = k ? 30 : 12;
    msd(ctx, clean, 2.1, t, seed, 4, E, d);
    for (int e = 0; e < 4; e++) {
      double ballistic = (4 - E[e] * E[e]) * t * t;
      if (hm_test_rank() == 0) printf("clean E = %5.2f t = %4.1f: Delta X^2 / (v^2 t^2) = %.5f\n", E[e], t, d[e] / ballistic);
      HM_TEST_ASSERT(fabs(d[e] / ballistic - 1) < 0.02, "clean chain, E = %g, t = %g: Delta X^2 = %g, v^2 t^2 = %g", E[e],
                     t, d[e], ballistic);
    }
  }
  hm_matrix_destroy(&clean);
  /* W = 6: localization length of a few sites. From t = 20 to 80, averaged over four energies, Delta X^2
   * grows 16x if ballistic, 4x if diffusive; localized it saturates far below v^2 t^2. */
  hm_matrix *dirty = chain(ctx, 6, seed);
  const double Ed[4] = {-0.6, -0.2, 0.2, 0.6};
  double early[4], late[4], sum_early = 0, sum_late = 0, sum_ballistic = 0;
  msd(ctx, dirty, 5.2, 20, seed, 4, Ed, early);
  msd(ctx, dirty, 5.2, 80, seed, 4, Ed, late);
  for (int e = 0; e < 4; e++) {
    sum_early += early[e];
    sum_late += late[e];
    sum_ballistic += (4 - Ed[e] * Ed[e]) * 80 * 80;
  }
  if (hm_test_rank() == 0) printf("W = 6: sum of Delta X^2 over E = %.4g at t = 20, %.4g at t = 80\n", sum_early, sum_late);
  HM_TEST_ASSERT(sum_late < 2.5 * sum_early && sum_late < 0.01 * sum_ballistic,
                 "disordered chain: Delta X^2 summed over 4 energies = %g at t = 20, %g at t = 80 (ballistic %g): "
                 "not saturating", sum_early, sum_late, sum_ballistic);
  hm_matrix_destroy(&dirty);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
