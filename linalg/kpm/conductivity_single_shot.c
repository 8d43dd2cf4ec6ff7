/* Single-shot Kubo-Greenwood sigma_aa(E) (conductivity.h): for each start vector r, one Chebyshev
 * recursion on r and one on V r, advanced together as the two columns of one block by the fused step,
 * accumulate b_e = delta_M(E_e - H) r and a_e = delta_M(E_e - H) V r for every energy at once, and
 * <r| V delta V delta |r> = <a_e| V |b_e>. The fused step overwrites T_{n-1} with T_{n+1}, so the terms
 * are added two at a time, T_{n+1} and T_{n+2} in one pass over the accumulators: the accumulators,
 * 2 nenergy vectors, dominate the traffic. Memory: the two 2-column blocks, the accumulators and two
 * vectors for V b_e, one energy at a time: 2 nenergy + 6 vectors of N whatever M (no M x M moments).
 * The start vectors are hm_conductivity's (the same seed gives the same random phases, column r, made
 * one at a time), so the result equals the Greenwood sum over that run's moments to rounding.
 * Real arithmetic: for a real H the velocity is i A with A = -i v real, so with real start vectors (+-1)
 * every vector is real and Re <a_e| v |b_e> = (A b_e)^T a'_e, a'_e = delta A r: the same recursion at half
 * the bytes, given H and A as real matrices. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "halo.h"
#include "hamlet/conductivity.h"
#include "conductivity_interval.h"
#include "mvec_block.h"

typedef struct {
  hm_mvec *T[2];         /* two Chebyshev terms; column 0 the recursion of r, column 1 that of V r */
  hm_mvec *acc;          /* b_e (columns e < nenergy) and a_e (columns nenergy + e) */
  hm_mvec *r, *t;        /* the start vector (then one energy's b_e), and V times it */
  double *dots;          /* the fused step's column sums (backend memory; not read here) */
  double complex *zeros; /* 2 nenergy of them (axpby's per-column scalars, complex or the first reals) */
  hm_scalar type;        /* H's: complex, or real with A = -i v (see the top) */
} single_shot_vectors;

static void free_vectors(single_shot_vectors *w) {
  hm_mvec_destroy(&w->T[0]);
  hm_mvec_destroy(&w->T[1]);
  if (w->dots) w->acc->ctx->kernels->release(w->dots);
  hm_mvec_destroy(&w->acc);
  hm_mvec_destroy(&w->r);
  hm_mvec_destroy(&w->t);
  free(w->zeros);
}

/* value[e] = Re <a_e| V |b_e> of one start vector (in w->r); M >= 2; coef of w->type. */
static int one_start(hm_matrix *H, hm_matrix *V, double scale, double shift, int M, int nenergy, const double *coef,
                     single_shot_vectors *w, double *value) {
  hm_mvec *A = w->T[0], *B = w->T[1];
  HM_CALL(hm_matrix_apply(V, w->r, w->t));
  HM_CALL(hm_mvec_copy_columns(w->r, 0, A, 0, 1)); /* T_0 */
  HM_CALL(hm_mvec_copy_columns(w->t, 0, A, 1, 1));
  HM_CALL(hm_mvec_axpby(w->acc, w->zeros, w->acc, w->zeros)); /* cleared (NaN-safe) */
  const double complex alpha[2] = {scale, scale}, gamma[2] = {-scale * shift, -scale * shift};
  const double alpha_real[2] = {scale, scale}, gamma_real[2] = {-scale * shift, -scale * shift};
  const int complex_ = w->type == HM_COMPLEX;
  const size_t t = (size_t)w->type; /* doubles per coefficient */
  HM_CALL(hm_matrix_apply(H, A, B)); /* T_1 = scale (H - shift) T_0 */
  HM_CALL(hm_mvec_axpby(B, complex_ ? (const void *)gamma : gamma_real, A, complex_ ? (const void *)alpha : alpha_real));
  HM_CALL(hm_mvec_series_accumulate(w->acc, 2, w->T, coef));
  for (int n = 1; n + 1 < M;) { /* T_{n-1} in A and T_n in B, both added */
    HM_CALL(hm_matrix_chebyshev_step(H, scale, shift, B, A, w->dots)); /* A = T_{n+1} */
    if (n + 2 < M) {
      HM_CALL(hm_matrix_chebyshev_step(H, scale, shift, A, B, w->dots)); /* B = T_{n+2} */
      HM_CALL(hm_mvec_series_accumulate(w->acc, 2, w->T, coef + (size_t)(n + 1) * nenergy * t));
      n += 2;
    } else {
      HM_CALL(hm_mvec_series_accumulate(w->acc, 1, &A, coef + (size_t)(n + 1) * nenergy * t));
      n += 1;
    }
  }
  /* Re <a_e| V |b_e> = Re (V b_e)^H a_e: a_e copied beside V b_e for a dot (a Gram product of one
   * column by one, N long, is a GEMM that cuBLAS runs on a few thread blocks: seconds at N = 10^8) */
  for (int e = 0; e < nenergy; e++) {
    double complex dot = 0;
    HM_CALL(hm_mvec_copy_columns(w->acc, e, w->r, 0, 1));
    HM_CALL(hm_matrix_apply(V, w->r, w->t));
    HM_CALL(hm_mvec_copy_columns(w->acc, nenergy + e, w->r, 0, 1));
    HM_CALL(hm_mvec_dot(w->t, w->r, &dot)); /* a real dot fills the first double */
    value[e] = creal(dot);
  }
  return HM_SUCCESS;
}

/* coef[n][e]: scale (2 - delta_n0) g_n T_n(x_e) / (pi sqrt(1 - x_e^2)), x_e = scale (E_e - shift): the
 * damped series of delta(E_e - H) in T_n(H~); 0 outside the interval. Real, stored as t doubles each
 * (t = 2: the complex scalars of a complex block). */
static int coefficients(int M, hm_kpm_kernel kernel, double lambda, double scale, double shift, int nenergy,
                        const double *energies, int t, double *coef) {
  double *g = malloc(sizeof(double) * (size_t)M);
  HM_CHECK(g, HM_ERR_MEMORY, "%d kernel factors", M);
  const int st = hm_kpm_kernel_factors(kernel, lambda, M, g);
  for (int e = 0; !st && e < nenergy; e++) {
    const double x = scale * (energies[e] - shift);
    const int inside = fabs(x) < 1;
    const double th = inside ? acos(x) : 0, w = inside ? scale / (M_PI * sqrt(1 - x * x)) : 0;
    for (int n = 0; n < M; n++) {
      double *c = coef + ((size_t)n * nenergy + e) * t;
      c[0] = w * (n ? 2 : 1) * g[n] * cos(n * th);
      if (t == 2) c[1] = 0;
    }
  }
  free(g);
  return st;
}

/* The start vectors of opt's trace: R random phases or N unit vectors. */
static int start_count(const hm_conductivity_options *opt, int64_t n) {
  return opt->trace == HM_TRACE_RANDOM ? opt->vectors : (int)n;
}

int hm_conductivity_single_shot_part(hm_matrix *H, hm_matrix *V, const hm_conductivity_options *opt, hm_kpm_kernel kernel,
                                     double lorentz_lambda, int nenergy, const double *energies, int first, int last,
                                     double *sums, int *done, double *bounds) {
  HM_CHECK(H && V && opt && energies && sums && done && bounds && nenergy >= 1, HM_ERR_ARGUMENT,
           "H, V, opt, energies, sums, done and bounds are required, nenergy >= 1 (got %d)", nenergy);
  *done = first;
  const int M = opt->moments;
  HM_CHECK(M >= 2 && (opt->trace == HM_TRACE_EXACT || opt->vectors >= 1), HM_ERR_ARGUMENT,
           "moments = %d (>= 2) and vectors = %d (>= 1) are required", M, opt->vectors);
  int64_t n, nv;
  hm_scalar th, tv;
  HM_CALL(hm_matrix_info(H, &n, NULL, &th));
  HM_CALL(hm_matrix_info(V, &nv, NULL, &tv));
  HM_CHECK(th == tv && nv == n, HM_ERR_ARGUMENT,
           "H and V must be matrices of one size and type: both complex, or both real with V = -i v_a (N = %lld "
           "and %lld, %s and %s)", (long long)n, (long long)nv, th == HM_REAL ? "real" : "complex",
           tv == HM_REAL ? "real" : "complex");
  HM_CHECK(opt->trace == HM_TRACE_RANDOM || n <= 100000, HM_ERR_ARGUMENT,
           "trace = exact runs one start vector per row: N = %lld is too large (at most 10^5; use random)", (long long)n);
  const int starts = start_count(opt, n);
  HM_CHECK(first >= 0 && first <= last && last <= starts, HM_ERR_ARGUMENT,
           "start vectors [%d, %d): want 0 <= first <= last <= %d", first, last, starts);
  double emin, emax;
  HM_CALL(hm_conductivity_interval_of(H, opt, &emin, &emax));
  const double scale = 2.0 / (emax - emin), shift = 0.5 * (emax + emin);
  bounds[0] = emin, bounds[1] = emax;
  hm_context *ctx;
  const hm_dist *dist;
  HM_CALL(hm_matrix_context(H, &ctx));
  HM_CALL(hm_matrix_dist(H, &dist));
  int64_t row0, local;
  HM_CALL(hm_dist_range(dist, &row0, &local, NULL));
  const int t = (int)th;
  double *coef = malloc(sizeof(double) * t * (size_t)M * nenergy), *unit = NULL;
  double *value = malloc(sizeof(double) * nenergy);
  single_shot_vectors w = {0};
  int st = coef && value ? HM_SUCCESS : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "buffers");
  if (!st) st = coefficients(M, kernel, lorentz_lambda, scale, shift, nenergy, energies, t, coef);
  w.type = th;
  for (int i = 0; i < 2 && !st; i++) st = hm_mvec_create(ctx, dist, th, 2, &w.T[i]);
  if (!st) st = hm_mvec_create(ctx, dist, th, 2 * nenergy, &w.acc);
  if (!st) st = hm_mvec_create(ctx, dist, th, 1, &w.r);
  if (!st) st = hm_mvec_create(ctx, dist, th, 1, &w.t);
  if (!st) st = ctx->kernels->alloc(4 * sizeof(double), (void **)&w.dots);
  if (!st && !(w.zeros = calloc(2 * (size_t)nenergy, sizeof *w.zeros)))
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "%d scalars", 2 * nenergy);
  if (!st && opt->trace == HM_TRACE_EXACT && !(unit = calloc(((size_t)local + 1) * t, sizeof *unit))) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "a unit vector");
  }
  for (int r = first; r < last && !st; r++) {
    if (opt->trace == HM_TRACE_RANDOM) { /* column r of hm_conductivity's random phases */
      st = hm_mvec_random_phase_columns(w.r, opt->seed, r);
    } else { /* the unit vector of row r */
      memset(unit, 0, sizeof *unit * (size_t)local * t);
      if (r >= row0 && r < row0 + local) unit[(r - row0) * t] = 1;
      st = hm_mvec_set(w.r, unit);
    }
    if (!st) st = one_start(H, V, scale, shift, M, nenergy, coef, &w, value);
    for (int e = 0; !st && e < nenergy; e++) sums[e] += value[e], sums[nenergy + e] += value[e] * value[e];
    if (!st) *done = r + 1;
    if (!st && r + 1 < last && opt->stop && opt->stop(opt->stop_user))
      st = hm_error_raise(HM_ERR_STOPPED, __FILE__, __LINE__, __func__, "stopped after %d of %d start vectors", r + 1,
                          starts);
  }
  free_vectors(&w);
  free(coef);
  free(unit);
  free(value);
  return st;
}

int hm_conductivity_single_shot_sigma(const hm_conductivity_options *opt, int64_t n, double density, int nenergy,
                                      const double *sums, double *sigma, double *error) {
  HM_CHECK(opt && sums && sigma && n >= 1 && nenergy >= 1, HM_ERR_ARGUMENT,
           "opt, sums and sigma are required, n >= 1 and nenergy >= 1 (got %lld, %d)", (long long)n, nenergy);
  /* sigma = 2 pi^2 (density / N) Tr[V delta V delta]: the trace is the sum over unit vectors, or N times
   * the mean over random phases (|r|^2 = N) */
  const int R = opt->trace == HM_TRACE_RANDOM ? opt->vectors : 0;
  const double factor = 2 * M_PI * M_PI * density / (double)n;
  for (int e = 0; e < nenergy; e++) {
    const double mean = R ? sums[e] / R : sums[e];
    sigma[e] = factor * mean;
    const double var = R > 1 ? fmax(0, (sums[nenergy + e] - R * mean * mean) / (R - 1)) : 0;
    if (error) error[e] = R > 1 ? factor * sqrt(var / R) : 0;
  }
  return HM_SUCCESS;
}

int hm_conductivity_single_shot(hm_matrix *H, hm_matrix *V, const hm_conductivity_options *opt, hm_kpm_kernel kernel,
                                double lorentz_lambda, double density, int nenergy, const double *energies,
                                double *sigma, double *error, double *bounds) {
  HM_CHECK(H && opt && sigma && nenergy >= 1, HM_ERR_ARGUMENT, "H, opt and sigma are required, nenergy >= 1 (got %d)",
           nenergy);
  int64_t n;
  HM_CALL(hm_matrix_info(H, &n, NULL, NULL));
  double *sums = calloc(2 * (size_t)nenergy, sizeof(double)), interval_used[2];
  HM_CHECK(sums, HM_ERR_MEMORY, "%d sums", 2 * nenergy);
  int done;
  int st = hm_conductivity_single_shot_part(H, V, opt, kernel, lorentz_lambda, nenergy, energies, 0,
                                            start_count(opt, n), sums, &done, interval_used);
  if (!st) st = hm_conductivity_single_shot_sigma(opt, n, density, nenergy, sums, sigma, error);
  if (!st && bounds) bounds[0] = interval_used[0], bounds[1] = interval_used[1];
  free(sums);
  return st;
}
