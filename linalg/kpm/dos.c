/* Density of states from KPM moments. Per random vector r the damped series
 *   f_r(theta) = g_0 mu_0 + 2 sum_{n>=1} g_n mu_{r,n} cos(n theta),   x = cos(theta),
 * is summed on K Chebyshev nodes theta_k = pi (k + 1/2) / K by one DCT-III (FFTW REDFT01), and
 * rho_r(x) = f_r / (pi sqrt(1 - x^2)). The mean over r is the DOS, the standard error of the mean
 * its error bar. For a uniform energy grid, f (smooth, even and 2pi-periodic in theta, unlike
 * rho) is interpolated by 4-point Lagrange cubics on the uniform theta nodes; K is then taken
 * several times larger than 2M so that the interpolation error is far below the KPM resolution. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dct.h"
#include "error_macros.h"
#include "hamlet/dos.h"

struct hm_dos_s {
  int points;
  double *energy, *rho, *error;
};

/* Where output point j reads f: nodes idx[0..3] with Lagrange weights w[0..3]; inside = 0 when the
 * energy lies outside (-1, 1) in x (rho = 0 there). */
typedef struct {
  int idx[4];
  double w[4];
  double sin_theta;
  int inside;
} hm_dos_stencil;

enum { HM_DOS_OVERSAMPLE = 8, HM_DOS_MAX_POINTS = 1 << 26 };

int hm_dos_options_default(hm_dos_options *opt) {
  HM_CHECK(opt, HM_ERR_ARGUMENT, "opt is NULL");
  *opt = (hm_dos_options){.kernel = HM_KERNEL_JACKSON, .lorentz_lambda = 4.0, .points = 0,
                          .emin = 0.0, .emax = 0.0, .norm = HM_NORM_STATES};
  return 0;
}

/* Smallest n' >= n of the form 2^a 3^b 5^c, sizes FFTW transforms fastest. */
static int64_t fft_friendly(int64_t n) {
  for (;; n++) {
    int64_t m = n;
    while (m % 2 == 0) m /= 2;
    while (m % 3 == 0) m /= 3;
    while (m % 5 == 0) m /= 5;
    if (m == 1) return n;
  }
}

/* Node index mirrored into [0, K): f is even about theta = 0 and about theta = pi. */
static int mirror(int i, int K) { return i < 0 ? -1 - i : (i >= K ? 2 * K - 1 - i : i); }

static void make_stencil(double x, int K, hm_dos_stencil *s) {
  memset(s, 0, sizeof *s);
  if (!(x > -1.0 && x < 1.0)) return;
  s->inside = 1;
  s->sin_theta = sqrt((1.0 - x) * (1.0 + x));
  const double t = acos(x) * K / M_PI - 0.5; /* position in units of node spacing */
  int j = (int)floor(t);
  const double u = t - j;
  s->w[0] = -u * (u - 1) * (u - 2) / 6;
  s->w[1] = (u + 1) * (u - 1) * (u - 2) / 2;
  s->w[2] = -(u + 1) * u * (u - 2) / 2;
  s->w[3] = (u + 1) * u * (u - 1) / 6;
  for (int q = 0; q < 4; q++) s->idx[q] = mirror(j - 1 + q, K);
}

static int validate(int M, int R, const double *mu, double scale, double shift, int64_t N,
                    const hm_dos_options *opt, hm_dos **dos) {
  HM_CHECK(dos, HM_ERR_ARGUMENT, "dos is NULL: pass the address of an hm_dos pointer");
  *dos = NULL;
  HM_CHECK(opt, HM_ERR_ARGUMENT, "opt is NULL: fill one with hm_dos_options_default()");
  HM_CHECK(M >= 2, HM_ERR_ARGUMENT, "moments = %d: need at least 2 Chebyshev moments", M);
  HM_CHECK(M <= INT_MAX / (2 * HM_DOS_OVERSAMPLE), HM_ERR_ARGUMENT, "moments = %d: at most %d supported", M,
           INT_MAX / (2 * HM_DOS_OVERSAMPLE));
  HM_CHECK(R >= 1, HM_ERR_ARGUMENT, "vectors = %d: need at least 1 random vector", R);
  HM_CHECK(mu, HM_ERR_ARGUMENT, "mu_vec is NULL: pass vectors*moments = %d*%d moments", R, M);
  HM_CHECK(isfinite(scale) && scale > 0, HM_ERR_ARGUMENT,
           "scale = %g: must be finite and > 0 (x = scale*(E - shift) maps the spectrum into (-1, 1))", scale);
  HM_CHECK(isfinite(shift), HM_ERR_ARGUMENT, "shift = %g: must be finite", shift);
  HM_CHECK(N >= 1, HM_ERR_ARGUMENT, "n_global = %lld: the matrix dimension must be >= 1", (long long)N);
  HM_CHECK(opt->kernel == HM_KERNEL_JACKSON || opt->kernel == HM_KERNEL_LORENTZ, HM_ERR_ARGUMENT,
           "opt->kernel = %d: allowed are HM_KERNEL_JACKSON (0) and HM_KERNEL_LORENTZ (1)", (int)opt->kernel);
  HM_CHECK(opt->norm == HM_NORM_STATES || opt->norm == HM_NORM_UNIT, HM_ERR_ARGUMENT,
           "opt->norm = %d: allowed are HM_NORM_STATES (0, integral N) and HM_NORM_UNIT (1, integral 1)",
           (int)opt->norm);
  HM_CHECK(opt->points >= 0 && opt->points <= HM_DOS_MAX_POINTS, HM_ERR_ARGUMENT,
           "opt->points = %d: allowed are 0 (the 2M Chebyshev nodes) or 1..%d (a uniform grid)", opt->points,
           HM_DOS_MAX_POINTS);
  if (opt->points > 0 && !(opt->emin == 0 && opt->emax == 0))
    HM_CHECK(isfinite(opt->emin) && isfinite(opt->emax) && opt->emin < opt->emax, HM_ERR_ARGUMENT,
             "opt->emin = %g, opt->emax = %g: need finite emin < emax (or both 0 for the interval of the moments)",
             opt->emin, opt->emax);
  for (int r = 0; r < R; r++) {
    const double *m = mu + (size_t)r * M;
    HM_CHECK(fabs(m[0] - 1.0) <= 1e-6, HM_ERR_ARGUMENT,
             "mu_vec[%d*moments] = %.17g: each vector's moments must be normalised to mu_0 = 1", r, m[0]);
    for (int n = 1; n < M; n++)
      HM_CHECK(isfinite(m[n]), HM_ERR_ARGUMENT, "mu_vec[%d*moments + %d] = %g: moments must be finite", r, n, m[n]);
  }
  return 0;
}

/* Energies and read stencils of the output points; K nodes. */
static void layout(const hm_dos_options *opt, int K, double scale, double shift, double *energy,
                   hm_dos_stencil *st) {
  if (opt->points == 0) { /* the nodes themselves, ascending x = reversed k */
    for (int j = 0; j < K; j++) {
      const int k = K - 1 - j;
      const double theta = M_PI * (k + 0.5) / K;
      energy[j] = shift + cos(theta) / scale;
      st[j] = (hm_dos_stencil){.idx = {k, k, k, k}, .w = {0, 1, 0, 0}, .sin_theta = sin(theta), .inside = 1};
    }
    return;
  }
  double emin = opt->emin, emax = opt->emax;
  if (emin == 0 && emax == 0) { /* the interval of the moments, ends on the outermost nodes */
    const double xend = cos(M_PI * 0.5 / K);
    emin = shift - xend / scale;
    emax = shift + xend / scale;
  }
  const int P = opt->points;
  for (int j = 0; j < P; j++) {
    energy[j] = P == 1 ? 0.5 * (emin + emax) : emin + (emax - emin) * j / (P - 1);
    if (P > 1 && j == P - 1) energy[j] = emax;
    make_stencil(scale * (energy[j] - shift), K, &st[j]);
  }
}

/* One DCT per vector; Welford's running mean and squared deviation per output point. */
static int accumulate(int M, int R, const double *mu, const double *g, int K, const hm_dos_stencil *st,
                      int P, double factor, double *mean, double *m2) {
  hm_dct dct;
  HM_CALL(hm_dct_create(K, FFTW_REDFT01, "REDFT01", &dct));
  double *buf = dct.buf;
  for (int r = 0; r < R; r++) {
    const double *m = mu + (size_t)r * M;
    for (int n = 0; n < M; n++) buf[n] = g[n] * m[n];
    for (int n = M; n < K; n++) buf[n] = 0;
    hm_dct_execute(&dct); /* buf[k] = f_r(theta_k) */
    for (int j = 0; j < P; j++) {
      double rho = 0;
      if (st[j].inside) {
        const double f = st[j].w[0] * buf[st[j].idx[0]] + st[j].w[1] * buf[st[j].idx[1]] +
                         st[j].w[2] * buf[st[j].idx[2]] + st[j].w[3] * buf[st[j].idx[3]];
        rho = factor * f / (M_PI * st[j].sin_theta);
      }
      const double d = rho - mean[j];
      mean[j] += d / (r + 1);
      m2[j] += d * (rho - mean[j]);
    }
  }
  hm_dct_destroy(&dct);
  return 0;
}

int hm_dos_create(int moments, int vectors, const double *mu_vec, double scale, double shift, int64_t n_global,
                  const hm_dos_options *opt, hm_dos **dos) {
  HM_CALL(validate(moments, vectors, mu_vec, scale, shift, n_global, opt, dos));
  const int M = moments, R = vectors;
  int K = 2 * M, P = K;
  if (opt->points > 0) {
    P = opt->points;
    int64_t want = (int64_t)HM_DOS_OVERSAMPLE * M;
    if (want < 4 * (int64_t)P) want = 4 * (int64_t)P;
    K = (int)fft_friendly(want);
  }
  double *g;
  HM_MALLOC(g, M);
  int st = hm_kpm_kernel_factors(opt->kernel, opt->lorentz_lambda, M, g);
  if (st) {
    free(g);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  hm_dos *d = calloc(1, sizeof *d);
  hm_dos_stencil *stencil = calloc((size_t)P, sizeof *stencil);
  if (d) {
    d->points = P;
    d->energy = calloc((size_t)P, sizeof(double));
    d->rho = calloc((size_t)P, sizeof(double));
    d->error = calloc((size_t)P, sizeof(double));
  }
  if (!d || !stencil || !d->energy || !d->rho || !d->error) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate a DOS of %d points", P);
    goto fail;
  }
  layout(opt, K, scale, shift, d->energy, stencil);
  const double factor = scale * (opt->norm == HM_NORM_STATES ? (double)n_global : 1.0);
  HM_CALL_GOTO(st, fail, accumulate(M, R, mu_vec, g, K, stencil, P, factor, d->rho, d->error));
  for (int j = 0; j < P; j++) d->error[j] = R > 1 ? sqrt(d->error[j] / (R - 1) / R) : 0.0;
  free(stencil);
  free(g);
  *dos = d;
  return 0;
fail:
  free(stencil);
  free(g);
  hm_dos_destroy(&d);
  return st;
}

int hm_dos_destroy(hm_dos **dos) {
  if (!dos || !*dos) return 0;
  free((*dos)->energy);
  free((*dos)->rho);
  free((*dos)->error);
  free(*dos);
  *dos = NULL;
  return 0;
}

int hm_dos_size(const hm_dos *dos, int *points) {
  HM_CHECK(dos, HM_ERR_ARGUMENT, "dos is NULL: create it with hm_dos_create()");
  HM_CHECK(points, HM_ERR_ARGUMENT, "points is NULL");
  *points = dos->points;
  return 0;
}

int hm_dos_get(const hm_dos *dos, double *energy, double *rho, double *error) {
  HM_CHECK(dos, HM_ERR_ARGUMENT, "dos is NULL: create it with hm_dos_create()");
  const size_t bytes = sizeof(double) * (size_t)dos->points;
  if (energy) memcpy(energy, dos->energy, bytes);
  if (rho) memcpy(rho, dos->rho, bytes);
  if (error) memcpy(error, dos->error, bytes);
  return 0;
}
