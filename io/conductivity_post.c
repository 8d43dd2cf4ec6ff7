/* hamlet post for /conductivity (conductivity_post.h): reads the moments and their rescaling, evaluates
 * sigma (hm_conductivity_sigma) and the error from the per-vector moments where stored, and replaces
 * /conductivity/{energy, temperature, sigma, error} in a copy of the file; with new frequencies, or
 * where the file has them, the optical sigma (hm_conductivity_optical) too: frequency, sigma_omega, eta. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conductivity_post.h"
#include "error_macros.h"
#include "h5util.h"
#include "post_files.h"
#include "hamlet.h"

/* What the recomputation replaces in /conductivity. */
typedef struct {
  int C, T, E, F, kernel;
  double eta;
  const double *energy, *temps, *sigma, *error, *freq, *optical;
  const char *unit;
} post_result;

static int write_result(hm_context *self, hid_t g, void *user) {
  const post_result *r = user;
  const hsize_t de[1] = {(hsize_t)r->E}, dt[1] = {(hsize_t)r->T}, dsg[3] = {(hsize_t)r->C, (hsize_t)r->T, (hsize_t)r->E};
  int bad = hm_post_replace_dataset(self, g, "energy", 1, de, r->energy, "energy (units of t)", "chemical potentials mu");
  bad = bad || hm_post_replace_dataset(self, g, "temperature", 1, dt, r->temps, "energy (units of t, k_B = 1)",
                                       "temperatures T");
  bad = bad || hm_post_replace_dataset(self, g, "sigma", 3, dsg, r->sigma, r->unit,
                                       "Kubo-Bastin sigma_ab(mu, T) [component][temperature][energy] (hamlet post)");
  bad = bad || hm_post_replace_dataset(self, g, "error", 3, dsg, r->error, r->unit,
                                       "standard error of sigma over the random vectors (0: exact trace or one vector)");
  if (r->F) {
    const hsize_t df[1] = {(hsize_t)r->F}, dso[5] = {(hsize_t)r->C, (hsize_t)r->T, (hsize_t)r->E, (hsize_t)r->F, 2};
    bad = bad || hm_post_replace_dataset(self, g, "frequency", 1, df, r->freq, "energy (units of t, hbar = 1)",
                                         "frequencies omega of the optical sigma");
    bad = bad || hm_post_replace_dataset(self, g, "sigma_omega", 5, dso, r->optical, r->unit,
                                         "optical sigma_ab(omega; mu, T) [component][temperature][energy]"
                                         "[frequency][re, im] (hamlet post)");
    bad = bad || hm_post_replace_attr(g, "eta", NULL, r->eta);
  }
  return bad || hm_post_replace_attr(g, "kernel", r->kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson", 0);
}

int hm_conductivity_post(const hm_post_args *a, char *summary, size_t len) {
  hid_t f, g;
  int st = hm_h5_open_serial(a->in, &f);
  if (st) return hm_error_trace(HM_ERR_INPUT, __FILE__, __LINE__, __func__);
  if (H5Lexists(f, "conductivity", H5P_DEFAULT) <= 0) {
    H5Fclose(f);
    HM_RAISE(HM_ERR_INPUT, "%s has no /conductivity group (a result of method = conductivity is needed)", a->in);
  }
  g = H5Gopen2(f, "conductivity", H5P_DEFAULT);
  if (H5Aexists(g, "expansion") > 0) { /* expansion = single_shot: sigma at the run's energies, no moments */
    H5Gclose(g);
    H5Fclose(f);
    HM_RAISE(HM_ERR_INPUT, "%s holds a single-shot sigma (expansion = single_shot) and no moments to recompute it "
             "from: run the deck again with new energies, or with expansion = moments", a->in);
  }
  double scale, shift, density, vectors = 0;
  char *comps = NULL, *kname = NULL, *unit = NULL;
  st = hm_h5_read_attr_double(g, "scale", &scale) || hm_h5_read_attr_double(g, "shift", &shift) ||
       hm_h5_read_attr_double(g, "density", &density) || hm_h5_read_attr_string(g, "components", &comps) ||
       hm_h5_read_attr_string(g, "kernel", &kname) || hm_h5_read_attr_string(g, "unit", &unit);
  hm_h5_read_attr_double(g, "vectors", &vectors);
  hid_t ds = st ? -1 : H5Dopen2(g, "moments", H5P_DEFAULT), sp = ds < 0 ? -1 : H5Dget_space(ds);
  hsize_t dm[4] = {0, 0, 0, 0};
  if (sp < 0 || H5Sget_simple_extent_ndims(sp) != 4 || H5Sget_simple_extent_dims(sp, dm, NULL) != 4 || dm[3] != 2 ||
      dm[1] != dm[2] || dm[1] < 2) {
    if (st) hm_error_clear();
    if (sp >= 0) H5Sclose(sp);
    if (ds >= 0) H5Dclose(ds);
    H5Gclose(g);
    H5Fclose(f);
    free(comps), free(kname), free(unit);
    HM_RAISE(HM_ERR_INPUT, "%s: /conductivity lacks its attributes (scale, shift, density, components, kernel, unit) "
             "or a moments dataset [C][M][M][2]", a->in);
  }
  H5Sclose(sp);
  H5Dclose(ds);
  const int C = (int)dm[0], M = (int)dm[1];
  const size_t block = 2 * (size_t)C * M * M;
  double *mu = malloc(sizeof(double) * block);
  hm_h5_read_small(g, "moments", block, mu);
  /* energies and temperatures: the new ones, or the file's */
  int E = a->nenergy, T = a->ntemp;
  double *energy, temps[64];
  if (E) {
    energy = malloc(sizeof(double) * E);
    for (int i = 0; i < E; i++) energy[i] = E == 1 ? a->emin : a->emin + (a->emax - a->emin) * i / (E - 1);
  } else {
    hid_t d = H5Dopen2(g, "energy", H5P_DEFAULT), s = H5Dget_space(d);
    E = (int)H5Sget_simple_extent_npoints(s);
    H5Sclose(s), H5Dclose(d);
    energy = malloc(sizeof(double) * E);
    hm_h5_read_small(g, "energy", E, energy);
  }
  if (T) memcpy(temps, a->temps, sizeof(double) * T);
  else {
    hid_t d = H5Dopen2(g, "temperature", H5P_DEFAULT), s = H5Dget_space(d);
    T = (int)H5Sget_simple_extent_npoints(s);
    H5Sclose(s), H5Dclose(d);
    if (T > 64) T = 64;
    hm_h5_read_small(g, "temperature", T, temps);
  }
  const int kernel = a->kernel >= 0 ? a->kernel : strcmp(kname, "lorentz") ? HM_KERNEL_JACKSON : HM_KERNEL_LORENTZ;
  const size_t ns = (size_t)C * T * E;
  double *sigma = malloc(sizeof(double) * ns), *error = calloc(ns, sizeof(double));
  st = hm_conductivity_sigma(M, C, mu, scale, shift, kernel, a->lambda, density, E, energy, T, temps, sigma);
  const int R = (int)vectors;
  if (!st && R > 1 && H5Lexists(g, "moments_per_vector", H5P_DEFAULT) > 0) { /* the error from the spread */
    double *per = malloc(sizeof(double) * block * R), *one = malloc(sizeof(double) * ns), *s2 = calloc(ns, sizeof(double));
    double *s1 = calloc(ns, sizeof(double));
    hm_h5_read_small(g, "moments_per_vector", block * R, per);
    for (int r = 0; r < R && !st; r++) {
      st = hm_conductivity_sigma(M, C, per + r * block, scale, shift, kernel, a->lambda, density, E, energy, T, temps, one);
      for (size_t i = 0; i < ns; i++) s1[i] += one[i], s2[i] += one[i] * one[i];
    }
    for (size_t i = 0; i < ns; i++) {
      double mean = s1[i] / R;
      error[i] = sqrt(fmax(0, (s2[i] - R * mean * mean) / (R - 1)) / R);
    }
    free(per), free(one), free(s1), free(s2);
  }
  /* the optical sigma: on new frequencies, or anew on the file's where it has them */
  int F = a->nfreq;
  double *freq = NULL, *optical = NULL, eta = a->eta;
  if (!st && !F && H5Lexists(g, "frequency", H5P_DEFAULT) > 0) {
    hid_t d = H5Dopen2(g, "frequency", H5P_DEFAULT), s = H5Dget_space(d);
    F = (int)H5Sget_simple_extent_npoints(s);
    H5Sclose(s), H5Dclose(d);
    freq = malloc(sizeof(double) * F);
    hm_h5_read_small(g, "frequency", F, freq);
  } else if (F) {
    freq = malloc(sizeof(double) * F);
    for (int i = 0; i < F; i++) freq[i] = F == 1 ? a->wmin : a->wmin + (a->wmax - a->wmin) * i / (F - 1);
  }
  if (!st && !F && eta >= 0)
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                        "--eta is the optical sigma's broadening: %s has no /conductivity/frequency, so give "
                        "--frequencies wmin wmax count too", a->in);
  if (eta < 0 && (H5Aexists(g, "eta") <= 0 || hm_h5_read_attr_double(g, "eta", &eta))) eta = 0;
  if (!st && F) {
    optical = malloc(sizeof(double) * 2 * ns * F);
    st = hm_conductivity_optical(M, C, mu, scale, shift, kernel, a->lambda, density, eta, F, freq, E, energy, T, temps,
                                 optical);
  }
  H5Gclose(g);
  H5Fclose(f);
  if (st) st = hm_error_trace(HM_ERR_INPUT, __FILE__, __LINE__, __func__);
  else {
    const char *dest = a->out ? a->out : a->in;
    const post_result r = {C, T, E, F, kernel, eta, energy, temps, sigma, error, freq, optical, unit};
    st = hm_post_rewrite(a->in, dest, "conductivity", write_result, (void *)&r);
    if (!st) {
      char extra[96] = "";
      if (F) snprintf(extra, sizeof extra, ", sigma(omega) at %d frequencies (eta = %g)", F, eta);
      snprintf(summary, len, "sigma of %d component(s) at %d energies x %d temperatures (%s kernel)%s -> %s", C, E, T,
               kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson", extra, dest);
    }
  }
  free(mu), free(energy), free(sigma), free(error), free(comps), free(kname), free(unit), free(freq), free(optical);
  return st;
}

