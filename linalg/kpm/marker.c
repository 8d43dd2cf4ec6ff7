/* The Fermi projector P = f(H) as a Chebyshev series applied to a block (the Jackson-damped step at
 * temperature 0, the undamped Fermi function above: projector_series.c), and the local Chern marker
 * -4 pi Im <e|P X Q Y P|e> of chosen rows (include/hamlet/marker.h). Written
 * against the public block operations only, so the same code runs on every backend. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "error_macros.h"
#include "hamlet/dist.h"
#include "hamlet/marker.h"
#include "projector_series.h"

enum { MARKER_BLOCK = 32 }; /* rows per block: the columns of one SpMMV */

static void fill(double complex *s, int k, double complex value) {
  for (int j = 0; j < k; j++) s[j] = value;
}

/* PV = sum_n a_n T_n(H~) V with three work blocks t[3] (V's shape); s: 4k scalars of scratch. */
static int projector_series(hm_matrix *H, double scale, double shift, const double *a, int moments, const hm_mvec *V,
                            hm_mvec *PV, hm_mvec **t, double complex *s, int k) {
  double complex *alpha = s, *beta = s + k, *one = s + 2 * k, *minus = s + 3 * k;
  fill(one, k, 1);
  fill(minus, k, -1);
  HM_CALL(hm_mvec_copy_columns(V, 0, t[0], 0, k));
  fill(alpha, k, a[0]);
  fill(beta, k, 0);
  HM_CALL(hm_mvec_axpby(PV, alpha, V, beta));
  for (int n = 1; n < moments; n++) {
    /* t[2] = f s (H - b) t[1] - (n > 1) t[0], with t[1] = V on the first step */
    hm_mvec *src = n == 1 ? t[0] : t[1];
    const double f = n == 1 ? 1.0 : 2.0;
    HM_CALL(hm_matrix_apply(H, src, t[2]));
    fill(alpha, k, -f * scale * shift);
    fill(beta, k, f * scale);
    HM_CALL(hm_mvec_axpby(t[2], alpha, src, beta));
    if (n > 1) HM_CALL(hm_mvec_axpby(t[2], minus, t[0], one));
    fill(alpha, k, a[n]);
    HM_CALL(hm_mvec_axpby(PV, alpha, t[2], one));
    if (n == 1) { /* t[0] = T_0 stays, t[1] = T_1 */
      hm_mvec *tmp = t[1];
      t[1] = t[2];
      t[2] = tmp;
    } else { /* (T_{n-1}, T_n) -> (T_n, T_{n+1}) */
      hm_mvec *tmp = t[0];
      t[0] = t[1];
      t[1] = t[2];
      t[2] = tmp;
    }
  }
  return HM_SUCCESS;
}

static int check_common(hm_matrix *H, double emin, double emax, double mu, double temperature, int moments) {
  HM_CHECK(H, HM_ERR_ARGUMENT, "H is NULL");
  HM_CHECK(isfinite(emin) && isfinite(emax) && emin < emax, HM_ERR_ARGUMENT,
           "spectral interval [%g, %g]: must be finite with emin < emax (it must contain H's spectrum)", emin, emax);
  HM_CHECK(isfinite(mu), HM_ERR_ARGUMENT, "mu = %g: the chemical potential must be finite", mu);
  HM_CHECK(isfinite(temperature) && temperature >= 0, HM_ERR_ARGUMENT,
           "temperature = %g: must be finite and >= 0 (0 = the Jackson-damped step theta(mu - H))", temperature);
  HM_CHECK(moments >= 2, HM_ERR_ARGUMENT, "moments = %d: the projector needs at least 2 Chebyshev moments", moments);
  return HM_SUCCESS;
}

/* Three work blocks shaped like V. */
static int make_work(hm_matrix *H, hm_scalar type, int k, hm_mvec **t) {
  hm_context *ctx;
  const hm_dist *dist;
  HM_CALL(hm_matrix_context(H, &ctx));
  HM_CALL(hm_matrix_dist(H, &dist));
  for (int i = 0; i < 3; i++) HM_CALL(hm_mvec_create(ctx, dist, type, k, &t[i]));
  return HM_SUCCESS;
}

int hm_fermi_projector_apply(hm_matrix *H, double emin, double emax, double mu, int moments, const hm_mvec *V,
                             hm_mvec *PV) {
  HM_CALL(hm_fermi_projector_apply_temperature(H, emin, emax, mu, 0.0, moments, V, PV));
  return HM_SUCCESS;
}

int hm_fermi_projector_apply_temperature(hm_matrix *H, double emin, double emax, double mu, double temperature,
                                         int moments, const hm_mvec *V, hm_mvec *PV) {
  HM_CALL(check_common(H, emin, emax, mu, temperature, moments));
  HM_CHECK(V && PV && V != PV, HM_ERR_ARGUMENT, "V and PV must be two distinct blocks");
  int k, kp;
  hm_scalar type, tp, th;
  HM_CALL(hm_mvec_size(V, NULL, &k));
  HM_CALL(hm_mvec_size(PV, NULL, &kp));
  HM_CALL(hm_mvec_type(V, &type));
  HM_CALL(hm_mvec_type(PV, &tp));
  HM_CALL(hm_matrix_info(H, NULL, NULL, &th));
  HM_CHECK(k == kp && type == tp && type == th, HM_ERR_ARGUMENT,
           "V (%d columns, %s), PV (%d columns, %s) and H (%s) must have equal widths and one scalar type", k,
           type == HM_COMPLEX ? "complex" : "real", kp, tp == HM_COMPLEX ? "complex" : "real",
           th == HM_COMPLEX ? "complex" : "real");
  const double scale = 2.0 / (emax - emin), shift = 0.5 * (emax + emin);
  double *a = NULL;
  double complex *s = NULL;
  hm_mvec *t[3] = {NULL, NULL, NULL};
  int st;
  a = malloc(sizeof *a * (size_t)moments);
  s = malloc(sizeof *s * 4 * (size_t)k);
  if (!a || !s) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "no memory for %d coefficients", moments);
    goto done;
  }
  HM_CALL_GOTO(st, done, hm_projector_coefficients(moments, scale, shift, mu, temperature, a));
  HM_CALL_GOTO(st, done, make_work(H, type, k, t));
  HM_CALL_GOTO(st, done, projector_series(H, scale, shift, a, moments, V, PV, t, s, k));
done:
  for (int i = 0; i < 3; i++) hm_mvec_destroy(&t[i]);
  free(a);
  free(s);
  return st;
}

typedef struct {
  hm_mvec *t[3], *E, *W, *Q, *PQ, *xpos, *ypos;
  double *a, *unit;
  double complex *s, *dots;
} marker_work;

static void free_work(marker_work *w) {
  hm_mvec **blocks[] = {&w->t[0], &w->t[1], &w->t[2], &w->E, &w->W, &w->Q, &w->PQ, &w->xpos, &w->ypos};
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) hm_mvec_destroy(blocks[i]);
  free(w->a);
  free(w->unit);
  free(w->s);
  free(w->dots);
}

/* The positions as one-column complex blocks (the diagonal of X and Y). */
static int make_positions(marker_work *w, hm_context *ctx, const hm_dist *dist, int64_t local, const double *x,
                          const double *y) {
  double complex *d;
  HM_MALLOC(d, local + 1);
  int st;
  HM_CALL_GOTO(st, done, hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &w->xpos));
  HM_CALL_GOTO(st, done, hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &w->ypos));
  for (int64_t i = 0; i < local; i++) d[i] = x[i];
  HM_CALL_GOTO(st, done, hm_mvec_set(w->xpos, d));
  for (int64_t i = 0; i < local; i++) d[i] = y[i];
  HM_CALL_GOTO(st, done, hm_mvec_set(w->ypos, d));
done:
  free(d);
  return st;
}

static int alloc_work(marker_work *w, hm_matrix *H, int k, int moments, int64_t local, const double *x,
                      const double *y) {
  hm_context *ctx;
  const hm_dist *dist;
  HM_CALL(hm_matrix_context(H, &ctx));
  HM_CALL(hm_matrix_dist(H, &dist));
  HM_CALL(make_work(H, HM_COMPLEX, k, w->t));
  hm_mvec **blocks[] = {&w->E, &w->W, &w->Q, &w->PQ};
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
    HM_CALL(hm_mvec_create(ctx, dist, HM_COMPLEX, k, blocks[i]));
  HM_CALL(make_positions(w, ctx, dist, local, x, y));
  HM_MALLOC(w->a, moments);
  HM_MALLOC(w->unit, 2 * (size_t)k * (size_t)local + 1);
  HM_MALLOC(w->s, 4 * (size_t)k);
  HM_MALLOC(w->dots, k);
  return HM_SUCCESS;
}

/* One block of rows: w->E = unit vectors, W = P E, Q = Y W - P Y W, marker = -4 pi Im <W|X Q>. */
static int marker_block(marker_work *w, hm_matrix *H, double scale, double shift, int moments, int64_t first,
                        int64_t local, int k, int count, const int64_t *rows, double *marker) {
  memset(w->unit, 0, sizeof(double) * 2 * (size_t)k * (size_t)local);
  for (int j = 0; j < count; j++)
    if (rows[j] >= first && rows[j] < first + local) w->unit[2 * ((size_t)(rows[j] - first) * k + j)] = 1;
  HM_CALL(hm_mvec_set(w->E, w->unit));
  HM_CALL(projector_series(H, scale, shift, w->a, moments, w->E, w->W, w->t, w->s, k));
  HM_CALL(hm_mvec_scale_rows(w->Q, w->ypos, w->W));
  HM_CALL(projector_series(H, scale, shift, w->a, moments, w->Q, w->PQ, w->t, w->s, k));
  double complex *minus = w->s, *one = w->s + k;
  fill(minus, k, -1);
  fill(one, k, 1);
  HM_CALL(hm_mvec_axpby(w->Q, minus, w->PQ, one));
  HM_CALL(hm_mvec_scale_rows(w->PQ, w->xpos, w->Q));
  HM_CALL(hm_mvec_dot(w->W, w->PQ, w->dots));
  for (int j = 0; j < count; j++) marker[j] = -4 * M_PI * cimag(w->dots[j]);
  return HM_SUCCESS;
}

int hm_marker_local(hm_matrix *H, const double *x, const double *y, double emin, double emax, double mu, int moments,
                    int nrows, const int64_t *rows, double *marker) {
  HM_CALL(hm_marker_local_temperature(H, x, y, emin, emax, mu, 0.0, moments, nrows, rows, marker));
  return HM_SUCCESS;
}

int hm_marker_local_temperature(hm_matrix *H, const double *x, const double *y, double emin, double emax, double mu,
                                double temperature, int moments, int nrows, const int64_t *rows, double *marker) {
  HM_CALL(check_common(H, emin, emax, mu, temperature, moments));
  HM_CHECK(nrows >= 0, HM_ERR_ARGUMENT, "nrows = %d must be >= 0", nrows);
  if (nrows == 0) return HM_SUCCESS;
  HM_CHECK(rows && marker, HM_ERR_ARGUMENT, "rows and marker must not be NULL");
  int64_t n, first, local;
  hm_scalar type;
  const hm_dist *dist;
  HM_CALL(hm_matrix_info(H, &n, NULL, &type));
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT,
           "H is real: a real (time-reversal symmetric) Hamiltonian has a zero Chern marker; pass a complex H");
  HM_CALL(hm_matrix_dist(H, &dist));
  HM_CALL(hm_dist_range(dist, &first, &local, NULL));
  HM_CHECK(local == 0 || (x && y), HM_ERR_ARGUMENT, "x and y (positions of the %lld local rows) must not be NULL",
           (long long)local);
  for (int j = 0; j < nrows; j++)
    HM_CHECK(rows[j] >= 0 && rows[j] < n, HM_ERR_ARGUMENT, "rows[%d] = %lld: allowed are 0 to %lld (H's rows)", j,
             (long long)rows[j], (long long)(n - 1));
  for (int64_t i = 0; i < local; i++)
    HM_CHECK(isfinite(x[i]) && isfinite(y[i]), HM_ERR_ARGUMENT, "position of local row %lld is not finite",
             (long long)i);
  const int k = nrows < MARKER_BLOCK ? nrows : MARKER_BLOCK;
  const double scale = 2.0 / (emax - emin), shift = 0.5 * (emax + emin);
  marker_work w;
  memset(&w, 0, sizeof w);
  int st;
  HM_CALL_GOTO(st, done, alloc_work(&w, H, k, moments, local, x, y));
  HM_CALL_GOTO(st, done, hm_projector_coefficients(moments, scale, shift, mu, temperature, w.a));
  for (int j0 = 0; j0 < nrows; j0 += k) {
    const int count = nrows - j0 < k ? nrows - j0 : k;
    HM_CALL_GOTO(st, done, marker_block(&w, H, scale, shift, moments, first, local, k, count, rows + j0, marker + j0));
  }
done:
  free_work(&w);
  return st;
}
