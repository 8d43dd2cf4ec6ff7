/* HM_CALL_HDF5's raise: keeps the innermost message of HDF5's error stack. */
#include <stdio.h>
#include <hdf5.h>
#include "error_macros.h"

static herr_t take_innermost(unsigned n, const H5E_error2_t *e, void *data) {
  if (n == 0) snprintf((char *)data, 512, "%s (in %s)", e->desc, e->func_name);
  return 0;
}

int hm_error_raise_hdf5(const char *expr, const char *file, int line, const char *func) {
  char msg[512] = "no HDF5 message";
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_innermost, msg);
  H5Eclear2(H5E_DEFAULT);
  return hm_error_raise(HM_ERR_HDF5, file, line, func, "%s failed: %s", expr, msg);
}
