/* The velocity auto-correlation from the public API (hm_evolution + hm_evolution_cross_moments), the
 * exact trace over every unit vector e_i of a disordered band matrix (real and complex):
 *   sum_i sum_n (2 - delta_n0) g_n T_n(x_E) Re <U e_i|T_n(Ht) V U V e_i>
 *     = sum_ab delta_K(E, E_a) cos((E_a - E_b) t) |V_ab|^2,
 *   delta_K(E, E') = sum_n (2 - delta_n0) g_n T_n(x_E) T_n(x_E')
 * with the eigenpairs of the dense H (LAPACK) and the same Jackson factors g_n, to 1e-10 of the largest
 * value, at t = 0 and after steps of two sizes, at several energies; the cross moments of a block with
 * itself against hm_kpm's; blocks of different widths refused. Argument "cuda": the GPU backend. Run on
 * 1 and 3 ranks. */
#include <string.h>
#include "evolution_testlib.h"
#include "hamlet/dos.h"
#include "hamlet/evolution.h"
#include "hamlet/kpm.h"

enum { N = 48, M = 40, NE = 5 };

static hm_backend backend = HM_BACKEND_CPU;
static const double energies[NE] = {-1.6, -0.7, 0.05, 0.8, 1.45};

static double chebyshev(int n, double x) { return cos(n * acos(x)); }

/* The exact trace at time t on the interval's mapping x = scale (E - shift). */
static void exact(const double complex *h, const double complex *v, double t, double scale, double shift,
                  const double *g, double *out) {
  double *w = malloc(sizeof *w * N);
  double complex *Q = malloc(sizeof *Q * N * N), *VQ = calloc(N * N, sizeof *VQ);
  HM_TEST_ASSERT(hm_test_eigh(N, h, w, Q) == 0, "zheev failed");
  for (int b = 0; b < N; b++) /* VQ = V Q */
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++) VQ[b * N + i] += v[j * N + i] * Q[b * N + j];
  for (int e = 0; e < NE; e++) out[e] = 0;
  for (int a = 0; a < N; a++) {
    double delta[NE];
    for (int e = 0; e < NE; e++) {
      delta[e] = 0;
      for (int n = 0; n < M; n++)
        delta[e] += (n ? 2 : 1) * g[n] * chebyshev(n, scale * (energies[e] - shift)) *
                    chebyshev(n, scale * (w[a] - shift));
    }
    for (int b = 0; b < N; b++) {
      double complex vab = 0;
      for (int i = 0; i < N; i++) vab += conj(Q[a * N + i]) * VQ[b * N + i];
      const double weight = cos((w[a] - w[b]) * t) * creal(vab * conj(vab));
      for (int e = 0; e < NE; e++) out[e] += delta[e] * weight;
    }
  }
  free(w), free(Q), free(VQ);
}

/* The same sum from the cross moments of U e and V U V e after `steps` steps of dt. */
static void from_moments(hm_context *ctx, hm_matrix *H, hm_matrix *V, double emin, double emax, double dt, int steps,
                         const double *g, double *out) {
  double complex *unit = calloc(N * N, sizeof *unit);
  for (int i = 0; i < N; i++) unit[i * N + i] = 1;
  hm_mvec *phi, *right, *left, *vleft;
  HM_TEST_OK(evo_block_of(ctx, H, N, unit, &phi));
  HM_TEST_OK(evo_block_of(ctx, H, N, unit, &right));
  HM_TEST_OK(evo_block_of(ctx, H, N, unit, &left));
  HM_TEST_OK(evo_block_of(ctx, H, N, unit, &vleft));
  HM_TEST_OK(hm_matrix_apply(V, phi, left));
  hm_evolution_options opt;
  HM_TEST_OK(hm_evolution_options_default(&opt));
  opt.dt = dt, opt.accuracy = 1e-14, opt.bounds = HM_BOUNDS_GIVEN, opt.emin = emin, opt.emax = emax;
  hm_evolution *ur, *ul;
  HM_TEST_OK(hm_evolution_create(H, N, &opt, &ur));
  HM_TEST_OK(hm_evolution_create(H, N, &opt, &ul));
  HM_TEST_OK(hm_evolution_set_state(ur, phi));
  HM_TEST_OK(hm_evolution_set_state(ul, left));
  HM_TEST_OK(hm_evolution_step(ur, steps));
  HM_TEST_OK(hm_evolution_step(ul, steps));
  HM_TEST_OK(hm_evolution_get_state(ur, right));
  HM_TEST_OK(hm_evolution_get_state(ul, left));
  HM_TEST_OK(hm_matrix_apply(V, left, vleft));
  double *mu = malloc(sizeof *mu * N * M);
  HM_TEST_OK(hm_evolution_cross_moments(H, emin, emax, M, right, vleft, mu));
  const double scale = 2.0 / (emax - emin), shift = 0.5 * (emax + emin);
  for (int e = 0; e < NE; e++) {
    out[e] = 0;
    for (int j = 0; j < N; j++)
      for (int n = 0; n < M; n++)
        out[e] += (n ? 2 : 1) * g[n] * chebyshev(n, scale * (energies[e] - shift)) * mu[j * M + n];
  }
  free(mu), free(unit);
  hm_evolution_destroy(&ur), hm_evolution_destroy(&ul);
  hm_mvec_destroy(&phi), hm_mvec_destroy(&right), hm_mvec_destroy(&left), hm_mvec_destroy(&vleft);
}

static void check_trace(hm_context *ctx, hm_scalar type, uint64_t seed) {
  double complex *h = evo_random_band(N, 2, 2.0, type, seed), *v = evo_velocity_dense(N, h, 0);
  hm_matrix *H, *V;
  HM_TEST_OK(evo_matrix_from_dense(ctx, N, type, h, &H));
  HM_TEST_OK(evo_matrix_from_dense(ctx, N, HM_COMPLEX, v, &V));
  double emin, emax, g[M];
  HM_TEST_OK(hm_matrix_gershgorin(H, &emin, &emax));
  HM_TEST_OK(hm_kpm_kernel_factors(HM_KERNEL_JACKSON, 4, M, g));
  const double scale = 2.0 / (emax - emin), shift = 0.5 * (emax + emin);
  const struct { double dt; int steps; } when[3] = {{0.5, 0}, {0.45, 3}, {2.2, 2}};
  for (int k = 0; k < 3; k++) {
    double ref[NE], got[NE], top = 0, worst = 0;
    exact(h, v, when[k].dt * when[k].steps, scale, shift, g, ref);
    from_moments(ctx, H, V, emin, emax, when[k].dt, when[k].steps, g, got);
    for (int e = 0; e < NE; e++) top = fmax(top, fabs(ref[e]));
    for (int e = 0; e < NE; e++) worst = fmax(worst, fabs(got[e] - ref[e]));
    HM_TEST_ASSERT(top > 1e-3, "the reference trace vanishes (%g): the test would prove nothing", top);
    HM_TEST_ASSERT(worst <= 1e-10 * top, "%s H, t = %g: the VAC trace is off by %.3g of %.3g",
                   type == HM_REAL ? "real" : "complex", when[k].dt * when[k].steps, worst, top);
  }
  hm_matrix_destroy(&H), hm_matrix_destroy(&V);
  free(h), free(v);
}

/* A block with itself: the KPM moments <v|T_n|v> (hm_kpm normalises them by <v|v>); widths must agree. */
static void check_self(hm_context *ctx, uint64_t seed) {
  enum { K = 3 };
  double complex *h = evo_random_band(N, 3, 1.0, HM_COMPLEX, seed), *psi = evo_random_state(N, K, seed + 1);
  hm_matrix *H;
  HM_TEST_OK(evo_matrix_from_dense(ctx, N, HM_COMPLEX, h, &H));
  hm_mvec *B, *narrow;
  HM_TEST_OK(evo_block_of(ctx, H, K, psi, &B));
  HM_TEST_OK(evo_block_of(ctx, H, 1, psi, &narrow));
  double emin, emax, mu[K * M], kpm_mu[M], kpm_vec[K * M];
  HM_TEST_OK(hm_matrix_gershgorin(H, &emin, &emax));
  HM_TEST_OK(hm_evolution_cross_moments(H, emin, emax, M, B, B, mu));
  hm_kpm_options o;
  HM_TEST_OK(hm_kpm_options_default(&o));
  o.moments = M, o.vectors = K, o.bounds = HM_BOUNDS_GIVEN, o.emin = emin, o.emax = emax;
  hm_kpm *k;
  HM_TEST_OK(hm_kpm_create(H, &o, &k));
  HM_TEST_OK(hm_kpm_set_start(k, B));
  HM_TEST_OK(hm_kpm_run(k));
  HM_TEST_OK(hm_kpm_moments(k, kpm_mu, kpm_vec));
  double worst = 0;
  for (int i = 0; i < K * M; i++) worst = fmax(worst, fabs(mu[i] - kpm_vec[i]));
  HM_TEST_ASSERT(worst < 1e-12, "cross moments of a block with itself differ from hm_kpm's by %.3g", worst);
  HM_TEST_ASSERT(hm_evolution_cross_moments(H, emin, emax, M, B, narrow, mu) == HM_ERR_ARGUMENT,
                 "blocks of 3 and 1 columns accepted");
  HM_TEST_ASSERT(hm_evolution_cross_moments(H, emax, emin, M, B, B, mu) == HM_ERR_ARGUMENT,
                 "an empty interval accepted");
  hm_error_clear();
  hm_kpm_destroy(&k);
  hm_mvec_destroy(&B), hm_mvec_destroy(&narrow);
  hm_matrix_destroy(&H);
  free(h), free(psi);
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
  check_trace(ctx, HM_COMPLEX, seed);
  check_trace(ctx, HM_REAL, seed + 3);
  check_self(ctx, seed + 5);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
