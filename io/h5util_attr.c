/* Scalar attributes (strings, doubles, integers): writers and readers. */
#include <stdlib.h>
#include <string.h>
#include "h5util.h"

/* A fixed-length, null-terminated string type of len characters (HDF5 needs at least one byte). */
static hid_t string_type(size_t len) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0) return t;
  if (H5Tset_size(t, len + 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
    H5Tclose(t);
    return H5I_INVALID_HID;
  }
  return t;
}

static int write_attr(hid_t obj, const char *name, hid_t file_type, hid_t mem_type, const void *value) {
  int st = HM_SUCCESS;
  hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
  HM_H5_GOTO(st, done, space = H5Screate(H5S_SCALAR));
  HM_H5_GOTO(st, done, attr = H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT));
  HM_H5_GOTO(st, done, H5Awrite(attr, mem_type, value));
done:
  if (attr >= 0) H5Aclose(attr);
  if (space >= 0) H5Sclose(space);
  return st;
}

int hm_h5_attr_string(hid_t obj, const char *name, const char *value) {
  if (!value) value = "";
  hid_t t;
  HM_CALL_HDF5(t = string_type(strlen(value)));
  int st = write_attr(obj, name, t, t, value);
  H5Tclose(t);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_h5_attr_double(hid_t obj, const char *name, double value) {
  HM_CALL(write_attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value));
  return HM_SUCCESS;
}

int hm_h5_attr_int(hid_t obj, const char *name, int64_t value) {
  HM_CALL(write_attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value));
  return HM_SUCCESS;
}

int hm_h5_attr_uint64(hid_t obj, const char *name, uint64_t value) {
  HM_CALL(write_attr(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value));
  return HM_SUCCESS;
}

/* Open an attribute that must exist; the message names it and the file it was looked for in. */
static int open_attr(hid_t obj, const char *name, hid_t *attr) {
  htri_t exists;
  HM_CALL_HDF5(exists = H5Aexists(obj, name));
  if (!exists) {
    char file[512] = "?", where[256] = "?";
    H5Fget_name(obj, file, sizeof file);
    H5Iget_name(obj, where, sizeof where);
    HM_RAISE(HM_ERR_IO, "'%s' has no attribute '%s' on '%s'", file, name, where);
  }
  HM_CALL_HDF5(*attr = H5Aopen(obj, name, H5P_DEFAULT));
  return HM_SUCCESS;
}

/* Numbers are converted by HDF5 to the memory type asked for. */
static int read_number(hid_t obj, const char *name, hid_t mem_type, void *value) {
  hid_t attr = H5I_INVALID_HID;
  HM_CALL(open_attr(obj, name, &attr));
  int st = HM_SUCCESS;
  HM_H5_GOTO(st, done, H5Aread(attr, mem_type, value));
done:
  H5Aclose(attr);
  return st;
}

int hm_h5_read_attr_double(hid_t obj, const char *name, double *value) {
  HM_CALL(read_number(obj, name, H5T_NATIVE_DOUBLE, value));
  return HM_SUCCESS;
}

int hm_h5_read_attr_int(hid_t obj, const char *name, int64_t *value) {
  HM_CALL(read_number(obj, name, H5T_NATIVE_INT64, value));
  return HM_SUCCESS;
}

int hm_h5_read_attr_uint64(hid_t obj, const char *name, uint64_t *value) {
  HM_CALL(read_number(obj, name, H5T_NATIVE_UINT64, value));
  return HM_SUCCESS;
}

/* Fixed-length or variable-length (as h5py writes them) string attributes. */
int hm_h5_read_attr_string(hid_t obj, const char *name, char **value) {
  HM_CHECK(value, HM_ERR_ARGUMENT, "value is NULL");
  *value = NULL;
  hid_t attr = H5I_INVALID_HID;
  HM_CALL(open_attr(obj, name, &attr));
  int st = HM_SUCCESS;
  hid_t ftype = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
  HM_H5_GOTO(st, done, ftype = H5Aget_type(attr));
  if (H5Tget_class(ftype) != H5T_STRING) {
    st = hm_error_raise(HM_ERR_IO, __FILE__, __LINE__, __func__, "attribute '%s' is not a string", name);
    goto done;
  }
  HM_H5_GOTO(st, done, mtype = H5Tcopy(H5T_C_S1));
  if (H5Tis_variable_str(ftype) > 0) {
    char *vl = NULL;
    HM_H5_GOTO(st, done, H5Tset_size(mtype, H5T_VARIABLE));
    HM_H5_GOTO(st, done, H5Aread(attr, mtype, &vl));
    *value = strdup(vl ? vl : "");
    H5free_memory(vl);
  } else {
    size_t n = H5Tget_size(ftype);
    HM_H5_GOTO(st, done, H5Tset_size(mtype, n + 1));
    HM_H5_GOTO(st, done, H5Tset_strpad(mtype, H5T_STR_NULLTERM));
    *value = calloc(n + 1, 1);
    if (*value) HM_H5_GOTO(st, done, H5Aread(attr, mtype, *value));
  }
  if (!*value) st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not copy attribute '%s'", name);
done:
  if (mtype >= 0) H5Tclose(mtype);
  if (ftype >= 0) H5Tclose(ftype);
  H5Aclose(attr);
  if (st) {
    free(*value);
    *value = NULL;
  }
  return st;
}
