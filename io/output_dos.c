/* /dos: energy, rho and its stochastic error bar, with units that follow the normalisation. */
#include <stdlib.h>
#include "output_internal.h"

static int write_arrays(hm_output *out, hid_t g, int p, const double *e, const double *rho, const double *err) {
  hsize_t dims[1] = {(hsize_t)p};
  const char *rho_unit = "1/energy (units of 1/t)";
  if (out->have_dos_options && out->dos_options.norm == HM_NORM_STATES) rho_unit = "states/energy (units of 1/t)";
  HM_CALL(hm_h5_write_small(out->ctx, g, "energy", 1, dims, e, "energy (units of t)", "energies, ascending"));
  HM_CALL(hm_h5_write_small(out->ctx, g, "rho", 1, dims, rho, rho_unit, "density of states (kernel-damped KPM)"));
  HM_CALL(hm_h5_write_small(out->ctx, g, "error", 1, dims, err, rho_unit,
                            "standard error of rho from the spread over the random vectors"));
  const char *norm = "unknown (hm_output_write_kpm was not given the DOS options)";
  if (out->have_dos_options) norm = out->dos_options.norm == HM_NORM_STATES ? "states" : "unit";
  HM_CALL(hm_h5_attr_string(g, "normalization", norm));
  if (out->have_dos_options) {
    HM_CALL(hm_h5_attr_string(g, "kernel", out->dos_options.kernel == HM_KERNEL_LORENTZ ? "lorentz" : "jackson"));
    HM_CALL(hm_h5_attr_double(g, "lambda", out->dos_options.lorentz_lambda));
  }
  return HM_SUCCESS;
}

int hm_output_write_dos(hm_output *out, const hm_dos *dos) {
  HM_CHECK(out && out->file >= 0, HM_ERR_ARGUMENT, "out is NULL or closed");
  HM_CHECK(dos, HM_ERR_ARGUMENT, "dos is NULL");
  int p;
  HM_CALL(hm_dos_size(dos, &p));
  HM_CHECK(p >= 1, HM_ERR_ARGUMENT, "the DOS has %d points", p);
  double *buf;
  HM_MALLOC(buf, 3 * (size_t)p);
  double *e = buf, *rho = buf + p, *err = buf + 2 * (size_t)p;
  hid_t g = H5I_INVALID_HID;
  int st = hm_dos_get(dos, e, rho, err);
  if (!st) st = hm_h5_group(out->file, "/dos", &g);
  if (!st) st = write_arrays(out, g, p, e, rho, err);
  if (g >= 0) H5Gclose(g);
  free(buf);
  HM_CALL(st);
  return HM_SUCCESS;
}
