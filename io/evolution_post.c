/* hamlet post for /evolution (evolution_post.h): reads the stored Chebyshev moments of the commutator
 * states (msd) and the velocity auto-correlation's cross moments (vac), whichever the run kept, of the
 * start vectors and of v_a phi with the expansion's scale and shift, and makes the
 * transport anew (hm_evolution_transport_compute, the run's own arithmetic) on new energies or another
 * kernel, replacing its datasets in a copy of the file. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "evolution_post.h"
#include "evolution_transport.h"
#include "h5util.h"
#include "post_files.h"
#include "hamlet.h"

int hm_evolution_post_applies(const char *path) {
  hid_t f;
  if (hm_h5_open_serial(path, &f)) {
    hm_error_clear();
    return 0;
  }
  const int yes = H5Lexists(f, "evolution", H5P_DEFAULT) > 0;
  H5Fclose(f);
  return yes;
}

/* The dimensions of dataset `name` of g where it has `ndim` of them; non-zero otherwise. */
static int dims_of(hid_t g, const char *name, int ndim, hsize_t *dims) {
  if (H5Lexists(g, name, H5P_DEFAULT) <= 0) return 1;
  hid_t ds = H5Dopen2(g, name, H5P_DEFAULT), sp = ds < 0 ? -1 : H5Dget_space(ds);
  const int ok = sp >= 0 && H5Sget_simple_extent_ndims(sp) == ndim && H5Sget_simple_extent_dims(sp, dims, NULL) == ndim;
  if (sp >= 0) H5Sclose(sp);
  if (ds >= 0) H5Dclose(ds);
  return !ok;
}

/* The transport's datasets and the kernel's attributes (hm_post_rewrite's fill). */
typedef struct {
  const hm_evolution_moments *m;
  const hm_evolution_transport *x;
  const char *unit;
} evolution_result;

static int fill(hm_context *self, hid_t g, void *user) {
  const evolution_result *r = user;
  hm_evolution_dataset list[HM_EVOLUTION_DATASETS];
  const int n = hm_evolution_transport_datasets(r->m, r->x, r->unit, list);
  for (int i = 0; i < n; i++) {
    hsize_t dims[3];
    for (int k = 0; k < list[i].ndim; k++) dims[k] = (hsize_t)list[i].dims[k];
    if (hm_post_replace_dataset(self, g, list[i].name, list[i].ndim, dims, list[i].data, list[i].unit,
                                list[i].description))
      return 1;
  }
  return hm_post_replace_attr(g, "msd_kernel", r->m->kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson", 0) ||
         hm_post_replace_attr(g, "msd_lambda", NULL, r->m->lambda);
}

/* The file's moments, times, energies and attributes into m (its arrays malloc'd); the kernel and
 * energies as the arguments ask. */
static int read_moments(const hm_post_args *a, hid_t g, hm_evolution_moments *m, char **unit) {
  hsize_t dc[4], dvac[4], ds[2], dv[3], de[1];
  double dimension = 0, lambda = 4;
  char *kname = NULL, *start = NULL;
  const int has_msd = !dims_of(g, "msd_moments", 4, dc), has_vac = !dims_of(g, "vac_moments", 4, dvac);
  if (!has_msd && has_vac) memcpy(dc, dvac, sizeof dc);
  int st = (!has_msd && !has_vac) || (has_msd && has_vac && memcmp(dc, dvac, sizeof dc)) ||
           dims_of(g, "start_moments", 2, ds) ||
           dims_of(g, "velocity_moments", 3, dv) || dims_of(g, "energy", 1, de) ||
           hm_h5_read_attr_double(g, "scale", &m->scale) || hm_h5_read_attr_double(g, "shift", &m->shift) ||
           hm_h5_read_attr_double(g, "density", &m->density) || hm_h5_read_attr_double(g, "dimension", &dimension) ||
           hm_h5_read_attr_string(g, "msd_kernel", &kname) || hm_h5_read_attr_double(g, "msd_lambda", &lambda) ||
           hm_h5_read_attr_string(g, "sigma_unit", unit) || hm_h5_read_attr_string(g, "start", &start);
  if (!st && (ds[0] != dc[2] || ds[1] != dc[3] || dv[0] != dc[0] || dv[1] != dc[2] || dv[2] != dc[3] || dc[3] < 2))
    st = 1;
  if (st) {
    free(kname), free(start);
    hm_error_clear();
    HM_RAISE(HM_ERR_INPUT, "%s: /evolution holds no mean-square displacement to redo (hamlet post needs a run with "
             "[evolution] msd: msd_moments or vac_moments [direction][time][vector][n], start_moments, "
             "velocity_moments, energy and "
             "the attributes scale, shift, density, dimension, msd_kernel, msd_lambda, sigma_unit, start)", a->in);
  }
  m->nd = (int)dc[0], m->T = (int)dc[1] - 1, m->R = (int)dc[2], m->M = (int)dc[3];
  m->dimension = (int)dimension;
  m->random = !strcmp(start, "random");
  m->kernel = a->kernel >= 0 ? a->kernel : strcmp(kname, "lorentz") ? HM_KERNEL_JACKSON : HM_KERNEL_LORENTZ;
  m->lambda = a->kernel >= 0 ? a->lambda : lambda;
  free(kname), free(start);
  const size_t chi = dc[0] * dc[1] * dc[2] * dc[3], one = ds[0] * ds[1], vel = dv[0] * dv[1] * dv[2];
  m->ne = a->nenergy ? a->nenergy : (int)de[0];
  double *time = malloc(sizeof(double) * dc[1]), *c = has_msd ? malloc(sizeof(double) * chi) : NULL;
  double *cv = has_vac ? malloc(sizeof(double) * chi) : NULL;
  double *s0 = malloc(sizeof(double) * one), *v = malloc(sizeof(double) * vel), *E = malloc(sizeof(double) * m->ne);
  m->time = time, m->chi = c, m->vac = cv, m->start = s0, m->velocity = v, m->energies = E;
  HM_CHECK(time && (c || !has_msd) && (cv || !has_vac) && s0 && v && E, HM_ERR_MEMORY, "no memory for %s's moments",
           a->in);
  if (a->nenergy)
    for (int e = 0; e < m->ne; e++) E[e] = m->ne > 1 ? a->emin + (a->emax - a->emin) * e / (m->ne - 1) : a->emin;
  st = hm_h5_read_small(g, "time", dc[1], time) || (has_msd && hm_h5_read_small(g, "msd_moments", chi, c)) ||
       (has_vac && hm_h5_read_small(g, "vac_moments", chi, cv)) ||
       hm_h5_read_small(g, "start_moments", one, s0) || hm_h5_read_small(g, "velocity_moments", vel, v) ||
       (!a->nenergy && hm_h5_read_small(g, "energy", de[0], E));
  if (st) return hm_error_trace(HM_ERR_INPUT, __FILE__, __LINE__, __func__);
  return HM_SUCCESS;
}

int hm_evolution_post(const hm_post_args *a, char *summary, size_t len) {
  HM_CHECK(a->ntemp == 0 && a->nfreq == 0 && a->eta < 0, HM_ERR_INPUT,
           "%s holds a time evolution: --temperatures, --frequencies and --eta apply to conductivities only; "
           "--energies and --kernel (--lambda) redo the mean-square displacement", a->in);
  hid_t f;
  if (hm_h5_open_serial(a->in, &f)) return hm_error_trace(HM_ERR_INPUT, __FILE__, __LINE__, __func__);
  hid_t g = H5Gopen2(f, "evolution", H5P_DEFAULT);
  hm_evolution_moments m = {0};
  char *unit = NULL;
  int st = g < 0 ? hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__, "%s: no /evolution", a->in)
                 : read_moments(a, g, &m, &unit);
  if (g >= 0) H5Gclose(g);
  H5Fclose(f);
  hm_evolution_transport x = {0};
  if (!st) st = hm_evolution_transport_compute(&m, &x);
  evolution_result result = {&m, &x, unit};
  if (!st) st = hm_post_rewrite(a->in, a->out ? a->out : a->in, "evolution", fill, &result);
  if (!st)
    snprintf(summary, len, "%s of %d direction(s) x %d times at %d energies (%s kernel) -> %s",
             m.chi && m.vac ? "Delta X^2, the velocity auto-correlation and sigma"
             : m.chi        ? "Delta X^2 and sigma"
                            : "the velocity auto-correlation and sigma",
             m.nd, m.T + 1, m.ne, m.kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson", a->out ? a->out : a->in);
  hm_evolution_transport_free(&x);
  free((double *)m.time), free((double *)m.chi), free((double *)m.vac), free((double *)m.start);
  free((double *)m.velocity);
  free((double *)m.energies), free(unit);
  return st;
}
