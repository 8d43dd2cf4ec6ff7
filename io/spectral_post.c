/* hamlet post for /spectral (spectral_post.h): reads the orbital-summed moments [k][layer][M] and
 * their rescaling, reconstructs A with the new grid or kernel (hm_spectral_reconstruct, the run's own
 * arithmetic) and replaces /spectral/{energy, A} in a copy of the file. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "h5util.h"
#include "post_files.h"
#include "hamlet.h"
#include "hamlet/spectral.h"
#include "spectral_post.h"

int hm_spectral_post_applies(const char *path) {
  hid_t f;
  if (hm_h5_open_serial(path, &f)) {
    hm_error_clear();
    return 0;
  }
  const int yes = H5Lexists(f, "spectral", H5P_DEFAULT) > 0;
  H5Fclose(f);
  return yes;
}

/* The new grid and A, with the kernel and grid attributes (hm_post_rewrite's fill). */
typedef struct {
  const hsize_t *dm;
  int P;
  const double *energy, *A;
  const hm_dos_options *opt;
} spectral_result;

static int fill(hm_context *self, hid_t g, void *user) {
  const spectral_result *r = user;
  const hm_dos_options *opt = r->opt;
  const hsize_t de[1] = {(hsize_t)r->P}, da[3] = {r->dm[0], r->dm[1], (hsize_t)r->P};
  return hm_post_replace_dataset(self, g, "energy", 1, de, r->energy, "energy (units of t)", "energies E") ||
         hm_post_replace_dataset(self, g, "A", 3, da, r->A, "states/energy (units of 1/t)",
                                 "A(k, E) = sum_o <k,o|delta(E - H)|k,o> [k][layer][E] (kernel-broadened; "
                                 "hamlet post)") ||
         hm_post_replace_attr(g, "kernel", opt->kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson", 0) ||
         hm_post_replace_attr(g, "lambda", NULL, opt->lorentz_lambda) ||
         hm_post_replace_attr(g, "grid_points", NULL, opt->points) ||
         hm_post_replace_attr(g, "grid_emin", NULL, opt->emin) || hm_post_replace_attr(g, "grid_emax", NULL, opt->emax);
}

int hm_spectral_post(const hm_post_args *a, char *summary, size_t len) {
  HM_CHECK(a->ntemp == 0, HM_ERR_INPUT, "%s holds a spectral function: --temperatures applies to conductivities only",
           a->in);
  hid_t f;
  if (hm_h5_open_serial(a->in, &f)) return hm_error_trace(HM_ERR_INPUT, __FILE__, __LINE__, __func__);
  hid_t g = H5Lexists(f, "spectral", H5P_DEFAULT) > 0 ? H5Gopen2(f, "spectral", H5P_DEFAULT) : -1;
  double scale = 0, shift = 0, orbitals = 0, lambda = 4, points = 0, emin = 0, emax = 0;
  char *kname = NULL;
  int st = g < 0 || hm_h5_read_attr_double(g, "scale", &scale) || hm_h5_read_attr_double(g, "shift", &shift) ||
           hm_h5_read_attr_double(g, "orbitals", &orbitals) || hm_h5_read_attr_string(g, "kernel", &kname) ||
           hm_h5_read_attr_double(g, "lambda", &lambda) || hm_h5_read_attr_double(g, "grid_points", &points) ||
           hm_h5_read_attr_double(g, "grid_emin", &emin) || hm_h5_read_attr_double(g, "grid_emax", &emax);
  hid_t ds = st ? -1 : H5Dopen2(g, "moments", H5P_DEFAULT), sp = ds < 0 ? -1 : H5Dget_space(ds);
  hsize_t dm[3] = {0, 0, 0};
  if (sp < 0 || H5Sget_simple_extent_ndims(sp) != 3 || H5Sget_simple_extent_dims(sp, dm, NULL) != 3 || dm[2] < 2 ||
      orbitals < 1) {
    hm_error_clear();
    if (sp >= 0) H5Sclose(sp);
    if (ds >= 0) H5Dclose(ds);
    if (g >= 0) H5Gclose(g);
    H5Fclose(f);
    free(kname);
    HM_RAISE(HM_ERR_INPUT, "%s: /spectral lacks its attributes (scale, shift, orbitals, kernel, lambda, grid_points, "
             "grid_emin, grid_emax) or a moments dataset [k][layer][M]", a->in);
  }
  H5Sclose(sp);
  H5Dclose(ds);
  const int count = (int)(dm[0] * dm[1]), M = (int)dm[2];
  double *mu = malloc(sizeof(double) * (size_t)count * M);
  st = hm_h5_read_small(g, "moments", (size_t)count * M, mu);
  H5Gclose(g);
  H5Fclose(f);
  hm_dos_options opt;
  hm_dos_options_default(&opt);
  opt.kernel = a->kernel >= 0 ? a->kernel : strcmp(kname, "lorentz") ? HM_KERNEL_JACKSON : HM_KERNEL_LORENTZ;
  opt.lorentz_lambda = a->kernel >= 0 ? a->lambda : lambda;
  opt.points = a->nenergy ? a->nenergy : (int)points;
  opt.emin = a->nenergy ? a->emin : emin;
  opt.emax = a->nenergy ? a->emax : emax;
  free(kname);
  int P = 0;
  double *energy = NULL, *A = NULL;
  if (!st) st = hm_ldos_points(M, &opt, &P);
  if (!st) {
    energy = malloc(sizeof(double) * P);
    A = malloc(sizeof(double) * (size_t)P * count);
    st = hm_spectral_reconstruct(M, count, (int)orbitals, mu, scale, shift, &opt, energy, A);
    if (st) st = hm_error_trace(HM_ERR_INPUT, __FILE__, __LINE__, __func__);
  }
  spectral_result result = {dm, P, energy, A, &opt};
  if (!st) st = hm_post_rewrite(a->in, a->out ? a->out : a->in, "spectral", fill, &result);
  if (!st)
    snprintf(summary, len, "A(k, E) of %d k points x %d layer(s) at %d energies (%s kernel) -> %s", (int)dm[0],
             (int)dm[1], P, opt.kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson", a->out ? a->out : a->in);
  free(mu), free(energy), free(A);
  return st;
}
