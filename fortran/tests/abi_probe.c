/* What the C compiler makes of the public structs and enums, for test_fortran_abi to compare with
 * the Fortran mirrors in fortran/hamlet_types.f90. Fields are listed in declaration order. */
#include <stddef.h>
#include <stdint.h>
#include "hamlet.h"

#define OFF(type, field) (int64_t) offsetof(type, field)

/* which: 1 = hm_ti_params, 2 = hm_kpm_options, 3 = hm_dos_options, 4 = hm_idr_options. Returns sizeof; fills off[]
 * and *count. */
int64_t hm_probe_struct(int which, int64_t *off, int *count) {
  int n = 0;
  if (which == 1) {
    off[n++] = OFF(hm_ti_params, nx);
    off[n++] = OFF(hm_ti_params, ny);
    off[n++] = OFF(hm_ti_params, nz);
    off[n++] = OFF(hm_ti_params, t);
    off[n++] = OFF(hm_ti_params, m);
    off[n++] = OFF(hm_ti_params, boundary);
    off[n++] = OFF(hm_ti_params, dot_period_x);
    off[n++] = OFF(hm_ti_params, dot_period_y);
    off[n++] = OFF(hm_ti_params, dot_depth);
    off[n++] = OFF(hm_ti_params, dot_radius);
    off[n++] = OFF(hm_ti_params, dot_v0);
    off[n++] = OFF(hm_ti_params, disorder_w);
    off[n++] = OFF(hm_ti_params, disorder_seed);
    off[n++] = OFF(hm_ti_params, block_width);
    *count = n;
    return (int64_t)sizeof(hm_ti_params);
  }
  if (which == 2) {
    off[n++] = OFF(hm_kpm_options, moments);
    off[n++] = OFF(hm_kpm_options, vectors);
    off[n++] = OFF(hm_kpm_options, seed);
    off[n++] = OFF(hm_kpm_options, bounds);
    off[n++] = OFF(hm_kpm_options, lanczos_steps);
    off[n++] = OFF(hm_kpm_options, bounds_margin);
    off[n++] = OFF(hm_kpm_options, emin);
    off[n++] = OFF(hm_kpm_options, emax);
    off[n++] = OFF(hm_kpm_options, checkpoint_every);
    off[n++] = OFF(hm_kpm_options, checkpoint_seconds);
    off[n++] = OFF(hm_kpm_options, checkpoint);
    off[n++] = OFF(hm_kpm_options, checkpoint_user);
    off[n++] = OFF(hm_kpm_options, progress);
    off[n++] = OFF(hm_kpm_options, progress_user);
    off[n++] = OFF(hm_kpm_options, stop);
    off[n++] = OFF(hm_kpm_options, stop_user);
    off[n++] = OFF(hm_kpm_options, block);
    *count = n;
    return (int64_t)sizeof(hm_kpm_options);
  }
  if (which == 4) {
    off[n++] = OFF(hm_idr_options, s);
    off[n++] = OFF(hm_idr_options, smoothing);
    off[n++] = OFF(hm_idr_options, tol);
    off[n++] = OFF(hm_idr_options, maxit);
    off[n++] = OFF(hm_idr_options, omega_angle);
    off[n++] = OFF(hm_idr_options, residual_replacement);
    off[n++] = OFF(hm_idr_options, precond);
    off[n++] = OFF(hm_idr_options, precond_op);
    off[n++] = OFF(hm_idr_options, precond_diagonal);
    off[n++] = OFF(hm_idr_options, seed);
    off[n++] = OFF(hm_idr_options, history);
    off[n++] = OFF(hm_idr_options, checkpoint_every);
    off[n++] = OFF(hm_idr_options, checkpoint);
    off[n++] = OFF(hm_idr_options, checkpoint_user);
    off[n++] = OFF(hm_idr_options, checkpoint_seconds);
    off[n++] = OFF(hm_idr_options, stop);
    off[n++] = OFF(hm_idr_options, stop_user);
    *count = n;
    return (int64_t)sizeof(hm_idr_options);
  }
  off[n++] = OFF(hm_dos_options, kernel);
  off[n++] = OFF(hm_dos_options, lorentz_lambda);
  off[n++] = OFF(hm_dos_options, points);
  off[n++] = OFF(hm_dos_options, emin);
  off[n++] = OFF(hm_dos_options, emax);
  off[n++] = OFF(hm_dos_options, norm);
  *count = n;
  return (int64_t)sizeof(hm_dos_options);
}

/* Every enum value, in the order test_fortran_abi lists its Fortran parameters; returns the count.
 * The enum sizes must equal sizeof(int) for integer(c_int) to mirror them. */
int hm_probe_enums(int *v, int *enum_size_ok) {
  int n = 0;
#define HM_PROBE_CODE_(name, value, text) v[n++] = name;
  HM_ERROR_LIST(HM_PROBE_CODE_)
#undef HM_PROBE_CODE_
  v[n++] = HM_BACKEND_AUTO; v[n++] = HM_BACKEND_CPU; v[n++] = HM_BACKEND_CUDA; v[n++] = HM_BACKEND_MIXED;
  v[n++] = HM_REAL; v[n++] = HM_COMPLEX;
  v[n++] = HM_FORMAT_AUTO; v[n++] = HM_FORMAT_CSR; v[n++] = HM_FORMAT_SELL;
  v[n++] = HM_BC_PERIODIC; v[n++] = HM_BC_OPEN;
  v[n++] = HM_BOUNDS_LANCZOS; v[n++] = HM_BOUNDS_GERSHGORIN; v[n++] = HM_BOUNDS_GIVEN;
  v[n++] = HM_KERNEL_JACKSON; v[n++] = HM_KERNEL_LORENTZ;
  v[n++] = HM_NORM_STATES; v[n++] = HM_NORM_UNIT;
  *enum_size_ok = sizeof(hm_status) == sizeof(int) && sizeof(hm_backend) == sizeof(int) &&
                  sizeof(hm_scalar) == sizeof(int) && sizeof(hm_boundary) == sizeof(int) &&
                  sizeof(hm_bounds_method) == sizeof(int) && sizeof(hm_kpm_kernel) == sizeof(int) &&
                  sizeof(hm_dos_norm) == sizeof(int) && sizeof(hm_format) == sizeof(int);
  return n;
}
