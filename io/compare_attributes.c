/* hamlet compare: the numeric attributes of one object (N, nnz, emin, converged, ...) in two
 * files. Sizes and flags live in attributes, so a result with the right vectors but the wrong
 * N or converged = 0 must not compare equal. */
#include <stdlib.h>
#include <string.h>
#include "compare_internal.h"
#include "h5util.h"

static int attr_is_numeric(hid_t obj, const char *name) {
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return 0;
  hid_t t = H5Aget_type(a);
  H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  if (t >= 0) H5Tclose(t);
  H5Aclose(a);
  return c == H5T_INTEGER || c == H5T_FLOAT;
}

static herr_t add_attr(hid_t obj, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  hm_compare_names *l = data;
  if (attr_is_numeric(obj, name)) hm_compare_names_add(l, name);
  return l->failed ? -1 : 0;
}

static int list_attrs(hid_t obj, const char *path, hm_compare_names *l) {
  memset(l, 0, sizeof *l);
  herr_t e = H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, add_attr, l);
  if (l->failed) {
    hm_compare_names_free(l);
    HM_RAISE(HM_ERR_MEMORY, "out of memory listing the attributes of '%s'", path);
  }
  if (e < 0) {
    hm_compare_names_free(l);
    char msg[256];
    hm_h5_last_message(msg, sizeof msg);
    HM_RAISE(HM_ERR_HDF5, "could not list the attributes of '%s': %s", path, msg);
  }
  return HM_SUCCESS;
}

/* The attribute's values as doubles (malloc'd) and its shape. */
static int read_attr(hid_t obj, const char *label, const char *name, double **values, hsize_t *count, int *ndim,
                     hsize_t *dims) {
  *values = NULL;
  hid_t a, space = H5I_INVALID_HID;
  HM_CALL_HDF5(a = H5Aopen(obj, name, H5P_DEFAULT));
  int st = HM_SUCCESS;
  HM_H5_GOTO(st, done, space = H5Aget_space(a));
  HM_H5_GOTO(st, done, *ndim = H5Sget_simple_extent_dims(space, dims, NULL));
  hssize_t n;
  HM_H5_GOTO(st, done, n = H5Sget_simple_extent_npoints(space));
  *count = (hsize_t)n;
  *values = malloc(sizeof(double) * (n ? (size_t)n : 1));
  if (!*values) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory reading %s", label);
    goto done;
  }
  HM_H5_GOTO(st, done, H5Aread(a, H5T_NATIVE_DOUBLE, *values));
done:
  if (st) { free(*values); *values = NULL; }
  if (space >= 0) H5Sclose(space);
  H5Aclose(a);
  return st;
}

static int compare_attr(hid_t oa, hid_t ob, const char *label, const char *name, double rtol, double atol, FILE *out,
                        hm_compare_summary *s) {
  double *x, *y;
  hsize_t nx, ny, dx[H5S_MAX_RANK], dy[H5S_MAX_RANK];
  int kx, ky;
  HM_CALL(read_attr(oa, label, name, &x, &nx, &kx, dx));
  int st = read_attr(ob, label, name, &y, &ny, &ky, dy);
  if (st) {
    free(x);
    HM_CALL(st);
  }
  char sa[128], sb[128];
  hm_compare_shape_text(kx, dx, sa, sizeof sa);
  hm_compare_shape_text(ky, dy, sb, sizeof sb);
  s->attributes++;
  if (strcmp(sa, sb) != 0) {
    s->differ++;
    if (out) fprintf(out, "FAIL  %s  shape %s in A, %s in B\n", label, sa, sb);
  } else {
    hm_compare_deviation d = {0};
    hm_compare_values(x, y, nx, 0, rtol, atol, &d);
    hm_compare_report(s, label, sa, &d, out);
  }
  free(x);
  free(y);
  return HM_SUCCESS;
}

int hm_compare_attributes(hid_t fa, hid_t fb, const char *path, double rtol, double atol, FILE *out,
                          hm_compare_summary *s) {
  hid_t oa = fa >= 0 ? H5Oopen(fa, path, H5P_DEFAULT) : H5I_INVALID_HID;
  if (fa >= 0 && oa < 0) return hm_error_raise_hdf5("H5Oopen", __FILE__, __LINE__, __func__);
  hid_t ob = fb >= 0 ? H5Oopen(fb, path, H5P_DEFAULT) : H5I_INVALID_HID;
  if (fb >= 0 && ob < 0) {
    int st = hm_error_raise_hdf5("H5Oopen", __FILE__, __LINE__, __func__); /* before the close clears the stack */
    if (oa >= 0) H5Oclose(oa);
    return st;
  }
  hm_compare_names la = {0}, lb = {0}; /* an object absent from one file has no attributes there */
  int st = oa >= 0 ? list_attrs(oa, path, &la) : HM_SUCCESS;
  if (!st && ob >= 0) st = list_attrs(ob, path, &lb);
  char label[512];
  for (size_t i = 0; !st && i < la.n; i++) {
    snprintf(label, sizeof label, "%s@%s", path, la.names[i]);
    if (hm_compare_names_contain(&lb, la.names[i])) {
      st = compare_attr(oa, ob, label, la.names[i], rtol, atol, out, s);
    } else {
      s->attributes++;
      s->differ++;
      if (out) fprintf(out, "FAIL  %s  missing in B (or not numeric there)\n", label);
    }
  }
  for (size_t i = 0; !st && i < lb.n; i++) {
    if (hm_compare_names_contain(&la, lb.names[i])) continue;
    snprintf(label, sizeof label, "%s@%s", path, lb.names[i]);
    s->attributes++;
    s->differ++;
    if (out) fprintf(out, "FAIL  %s  only in B\n", label);
  }
  hm_compare_names_free(&la);
  hm_compare_names_free(&lb);
  if (oa >= 0) H5Oclose(oa);
  if (ob >= 0) H5Oclose(ob);
  HM_CALL(st);
  return HM_SUCCESS;
}
