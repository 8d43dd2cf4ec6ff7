/* /kpm: the Chebyshev moments (averaged and per vector) with everything needed to rebuild the
 * DOS from them: interval, rescaling, sizes, seed, bounds method and the kernel. */
#include <stdlib.h>
#include <string.h>
#include "output_kpm_moments.h"
#include "kpm_sums.h"
#include "output_internal.h"

static const char *bounds_word(hm_bounds_method b) {
  return b == HM_BOUNDS_LANCZOS ? "lanczos" : b == HM_BOUNDS_GERSHGORIN ? "gershgorin" : b == HM_BOUNDS_GIVEN ? "given" : "?";
}

typedef struct {
  int M, R, done;
  double scale, shift, emin, emax;
  int64_t n;
  hm_kpm_options opt;
} kpm_facts;

static int write_attrs(hid_t g, const kpm_facts *k, const hm_dos_options *dopt) {
  HM_CALL(hm_h5_attr_double(g, "scale", k->scale));
  HM_CALL(hm_h5_attr_double(g, "shift", k->shift));
  HM_CALL(hm_h5_attr_double(g, "emin", k->emin));
  HM_CALL(hm_h5_attr_double(g, "emax", k->emax));
  HM_CALL(hm_h5_attr_int(g, "moments", k->M));
  HM_CALL(hm_h5_attr_int(g, "moments_done", k->done));
  HM_CALL(hm_h5_attr_int(g, "vectors", k->R));
  HM_CALL(hm_h5_attr_int(g, "N", k->n));
  HM_CALL(hm_h5_attr_uint64(g, "seed", k->opt.seed));
  HM_CALL(hm_h5_attr_string(g, "bounds", bounds_word(k->opt.bounds)));
  if (k->opt.bounds == HM_BOUNDS_LANCZOS) HM_CALL(hm_h5_attr_int(g, "lanczos_steps", k->opt.lanczos_steps));
  if (k->opt.bounds != HM_BOUNDS_GIVEN) HM_CALL(hm_h5_attr_double(g, "bounds_margin", k->opt.bounds_margin));
  if (dopt) {
    HM_CALL(hm_h5_attr_string(g, "kernel", dopt->kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson"));
    HM_CALL(hm_h5_attr_double(g, "lambda", dopt->lorentz_lambda));
  }
  HM_CALL(hm_h5_attr_string(g, "description", "Chebyshev moments mu_n = <v|T_n(scale*(H - shift))|v>/N, "
                                               "random-phase vectors v; emin, emax map onto [-1, 1]"));
  return HM_SUCCESS;
}

/* Where the Lanczos interval proved too narrow and the run began again on the Gershgorin one. */
static int write_widened(hid_t g, const hm_kpm *kpm) {
  int widened = 0;
  double lo = 0, hi = 0, growth = 0;
  HM_CALL(hm_kpm_bounds_widened(kpm, &widened, &lo, &hi, &growth));
  if (!widened) return HM_SUCCESS; /* (absent: the interval held) */
  HM_CALL(hm_h5_attr_int(g, "bounds_widened", widened));
  HM_CALL(hm_h5_attr_double(g, "bounds_narrow_emin", lo));
  HM_CALL(hm_h5_attr_double(g, "bounds_narrow_emax", hi));
  HM_CALL(hm_h5_attr_double(g, "bounds_narrow_growth", growth));
  HM_CALL(hm_h5_attr_string(g, "bounds_note", "the Lanczos interval [bounds_narrow_emin, bounds_narrow_emax] missed part "
                                               "of the spectrum (a moment of magnitude bounds_narrow_growth > 1): the "
                                               "moments were made again on the Gershgorin interval emin, emax"));
  return HM_SUCCESS;
}

static int write_moments(hm_output *out, hid_t g, const kpm_facts *k, const double *mu, const double *mu_vec) {
  hsize_t dims[2] = {(hsize_t)k->R, (hsize_t)k->M};
  HM_CALL(hm_h5_write_small(out->ctx, g, "moments", 1, dims + 1, mu, "1",
                            "moments averaged over the random vectors, moment 0 = 1"));
  HM_CALL(hm_h5_write_small(out->ctx, g, "moments_per_vector", 2, dims, mu_vec, "1",
                            "moments of each random vector (row r = vector r)"));
  return HM_SUCCESS;
}

/* /kpm from the kpm's facts and the given moments of a problem of n rows (the kpm's own, or moments
 * a caller corrected). */
static int write_kpm(hm_output *out, hm_kpm *kpm, const hm_dos_options *dopt, const double *given_mu,
                     const double *given_mu_vec, int64_t n) {
  HM_CHECK(out && out->file >= 0, HM_ERR_ARGUMENT, "out is NULL or closed");
  HM_CHECK(kpm, HM_ERR_ARGUMENT, "kpm is NULL");
  kpm_facts k;
  HM_CALL(hm_kpm_info(kpm, &k.M, &k.R, &k.done, &k.scale, &k.shift, &k.n));
  HM_CALL(hm_kpm_interval(kpm, &k.emin, &k.emax));
  HM_CALL(hm_kpm_options_get(kpm, &k.opt));
  if (n > 0) k.n = n;
  double *mu, *mu_vec;
  HM_MALLOC(mu, k.M);
  mu_vec = malloc(sizeof(double) * (size_t)k.M * (size_t)k.R);
  if (!mu_vec) {
    free(mu);
    HM_RAISE(HM_ERR_MEMORY, "could not allocate %d x %d moments", k.R, k.M);
  }
  hid_t g = H5I_INVALID_HID;
  int st = hm_kpm_moments(kpm, mu, mu_vec); /* collective: every rank gets the sums */
  if (!st && given_mu) {
    memcpy(mu, given_mu, sizeof(double) * (size_t)k.M);
    memcpy(mu_vec, given_mu_vec, sizeof(double) * (size_t)k.M * (size_t)k.R);
  }
  if (!st) st = hm_h5_group(out->file, "/kpm", &g);
  if (!st) st = write_moments(out, g, &k, mu, mu_vec);
  if (!st) st = write_attrs(g, &k, dopt);
  if (!st) st = write_widened(g, kpm);
  if (g >= 0) H5Gclose(g);
  free(mu);
  free(mu_vec);
  HM_CALL(st);
  if (dopt) { /* /dos needs the normalisation, which the DOS object does not report */
    out->dos_options = *dopt;
    out->have_dos_options = 1;
  }
  return HM_SUCCESS;
}

int hm_output_write_kpm(hm_output *out, hm_kpm *kpm, const hm_dos_options *dopt) {
  return write_kpm(out, kpm, dopt, NULL, NULL, 0);
}

int hm_output_write_kpm_moments(hm_output *out, hm_kpm *kpm, const hm_dos_options *dopt, const double *mu,
                                const double *mu_vec, int64_t n_global) {
  HM_CHECK(mu && mu_vec, HM_ERR_ARGUMENT, "mu or mu_vec is NULL");
  HM_CHECK(n_global > 0, HM_ERR_ARGUMENT, "n_global = %lld: must be positive", (long long)n_global);
  return write_kpm(out, kpm, dopt, mu, mu_vec, n_global);
}
