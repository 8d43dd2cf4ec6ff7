/* Datasets: small ones written by rank 0, text, and distributed row blocks written by every rank
 * with a collective transfer. */
#include <stdlib.h>
#include <string.h>
#include "h5util.h"
#include "context_access.h"

static hid_t collective_dxpl(void) {
  hid_t p = H5Pcreate(H5P_DATASET_XFER);
  if (p >= 0 && H5Pset_dxpl_mpio(p, H5FD_MPIO_COLLECTIVE) < 0) {
    H5Pclose(p);
    return H5I_INVALID_HID;
  }
  return p;
}

/* unit on every numeric dataset; description where the caller has one. */
static int describe(hid_t dset, const char *unit, const char *description) {
  if (unit) HM_CALL(hm_h5_attr_string(dset, "unit", unit));
  if (description) HM_CALL(hm_h5_attr_string(dset, "description", description));
  return HM_SUCCESS;
}

/* Create dataset `name` of `ftype` and write `buf` (of `mtype`) from rank 0 only. */
static int write_rank0(hm_context *ctx, hid_t loc, const char *name, hid_t space, hid_t ftype, hid_t mtype,
                       hid_t dcpl, const void *buf, const char *unit, const char *description) {
  int st = HM_SUCCESS;
  hid_t dset = H5I_INVALID_HID, mspace = H5I_INVALID_HID, fspace = H5I_INVALID_HID, dxpl = H5I_INVALID_HID;
  const hssize_t points = H5Sget_simple_extent_npoints(space);
  HM_CALL_GOTO(st, done, hm_h5_reserve(ctx, loc, (uint64_t)(points > 0 ? points : 1) * H5Tget_size(ftype)));
  HM_H5_GOTO(st, done, dset = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  HM_H5_GOTO(st, done, mspace = H5Scopy(space));
  HM_H5_GOTO(st, done, fspace = H5Scopy(space));
  if (hm_io_rank(ctx) != 0) {
    HM_H5_GOTO(st, done, H5Sselect_none(mspace));
    HM_H5_GOTO(st, done, H5Sselect_none(fspace));
  }
  HM_H5_GOTO(st, done, dxpl = collective_dxpl());
  /* an empty dataset (no eigenvalue in a window) has nothing to write: HDF5 refuses a write of 0 bytes */
  if (points > 0 && H5Dwrite(dset, mtype, mspace, fspace, dxpl, buf) < 0)
    st = hm_error_raise_hdf5("H5Dwrite", __FILE__, __LINE__, __func__);
  HM_CALL_GOTO(st, done, hm_h5_agree(ctx, st, name)); /* before the next collective call */
  HM_CALL_GOTO(st, done, describe(dset, unit, description));
done:
  if (dxpl >= 0) H5Pclose(dxpl);
  if (fspace >= 0) H5Sclose(fspace);
  if (mspace >= 0) H5Sclose(mspace);
  if (dset >= 0) H5Dclose(dset);
  return st;
}

/* Chunked with HDF5's Fletcher32 filter: every read then verifies each chunk's checksum. The chunk
 * shape depends on the dataset's shape only (about 1 MiB), never on the rank count, so a file
 * written on p ranks verifies on q. No filter on an empty dataset (chunks must not be empty). */
static int checksum_dcpl(int ndim, const hsize_t *dims, hid_t *dcpl) {
  hsize_t chunk[8], inner = 1;
  for (int i = 0; i < ndim; i++) {
    if (dims[i] == 0) return HM_SUCCESS;
    if (i > 0) inner *= dims[i];
  }
  if (ndim == 0) return HM_SUCCESS; /* a scalar cannot be chunked */
  hsize_t rows = inner < (1u << 17) ? (1u << 17) / inner : 1; /* a chunk holds at most 4 GiB: k stays far below */
  chunk[0] = rows < dims[0] ? (rows ? rows : 1) : dims[0];
  for (int i = 1; i < ndim; i++) chunk[i] = dims[i];
  HM_CALL_HDF5(*dcpl = H5Pcreate(H5P_DATASET_CREATE));
  int st = HM_SUCCESS;
  HM_H5_GOTO(st, fail, H5Pset_chunk(*dcpl, ndim, chunk));
  HM_H5_GOTO(st, fail, H5Pset_fletcher32(*dcpl));
  HM_H5_GOTO(st, fail, H5Pset_fill_time(*dcpl, H5D_FILL_TIME_NEVER));
  return HM_SUCCESS;
fail:
  H5Pclose(*dcpl);
  *dcpl = H5I_INVALID_HID;
  return st;
}

static int write_small(hm_context *ctx, hid_t loc, const char *name, int ndim, const hsize_t *dims,
                       const double *data, const char *unit, const char *description, int checksum) {
  HM_CHECK(ctx && name && unit && ndim >= 0 && ndim <= 8 && (ndim == 0 || dims), HM_ERR_ARGUMENT,
           "bad arguments for dataset '%s' (ctx, name, unit needed; 0 <= ndim = %d <= 8)", name ? name : "?", ndim);
  hid_t space, dcpl = H5P_DEFAULT;
  if (checksum) HM_CALL(checksum_dcpl(ndim, dims, &dcpl));
  int st = HM_SUCCESS;
  space = ndim ? H5Screate_simple(ndim, dims, NULL) : H5Screate(H5S_SCALAR);
  if (space < 0) st = hm_error_raise_hdf5("H5Screate_simple", __FILE__, __LINE__, __func__);
  if (!st) st = write_rank0(ctx, loc, name, space, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dcpl, data, unit, description);
  if (space >= 0) H5Sclose(space);
  if (dcpl != H5P_DEFAULT) H5Pclose(dcpl);
  HM_CALL(st);
  return HM_SUCCESS;
}

int hm_h5_write_small(hm_context *ctx, hid_t loc, const char *name, int ndim, const hsize_t *dims,
                      const double *data, const char *unit, const char *description) {
  HM_CALL(write_small(ctx, loc, name, ndim, dims, data, unit, description, 0));
  return HM_SUCCESS;
}

int hm_h5_write_small_checksum(hm_context *ctx, hid_t loc, const char *name, int ndim, const hsize_t *dims,
                               const double *data, const char *unit, const char *description) {
  HM_CALL(write_small(ctx, loc, name, ndim, dims, data, unit, description, 1));
  return HM_SUCCESS;
}

int hm_h5_write_text(hm_context *ctx, hid_t loc, const char *name, const char *text, const char *description) {
  HM_CHECK(ctx && name, HM_ERR_ARGUMENT, "ctx or name is NULL");
  if (!text) text = "";
  /* Every rank needs rank 0's length to create the same type. */
  uint64_t len = hm_io_rank(ctx) == 0 ? strlen(text) : 0;
  HM_CALL_MPI(MPI_Bcast(&len, 1, MPI_UINT64_T, 0, hm_io_comm(ctx)));
  int st = HM_SUCCESS;
  hid_t type = H5I_INVALID_HID, space = H5I_INVALID_HID;
  HM_H5_GOTO(st, done, type = H5Tcopy(H5T_C_S1));
  HM_H5_GOTO(st, done, H5Tset_size(type, (size_t)len + 1));
  HM_H5_GOTO(st, done, H5Tset_strpad(type, H5T_STR_NULLTERM));
  HM_H5_GOTO(st, done, space = H5Screate(H5S_SCALAR));
  HM_CALL_GOTO(st, done, write_rank0(ctx, loc, name, space, type, type, H5P_DEFAULT, text, "none", description));
done:
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  return st;
}

int hm_h5_read_text(hid_t loc, const char *name, char **text) {
  HM_CHECK(name && text, HM_ERR_ARGUMENT, "name or text is NULL");
  *text = NULL;
  int st = HM_SUCCESS;
  hid_t dset = H5I_INVALID_HID, ftype = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
  HM_H5_GOTO(st, done, dset = H5Dopen2(loc, name, H5P_DEFAULT));
  HM_H5_GOTO(st, done, ftype = H5Dget_type(dset));
  if (H5Tget_class(ftype) != H5T_STRING || H5Tis_variable_str(ftype) > 0) {
    st = hm_error_raise(HM_ERR_IO, __FILE__, __LINE__, __func__, "dataset '%s' is not a fixed-length string", name);
    goto done;
  }
  size_t n = H5Tget_size(ftype);
  HM_H5_GOTO(st, done, mtype = H5Tcopy(H5T_C_S1));
  HM_H5_GOTO(st, done, H5Tset_size(mtype, n + 1));
  HM_H5_GOTO(st, done, H5Tset_strpad(mtype, H5T_STR_NULLTERM));
  *text = calloc(n + 1, 1);
  if (!*text) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %zu bytes for '%s'", n + 1, name);
    goto done;
  }
  HM_H5_GOTO(st, done, H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *text));
done:
  if (mtype >= 0) H5Tclose(mtype);
  if (ftype >= 0) H5Tclose(ftype);
  if (dset >= 0) H5Dclose(dset);
  if (st) {
    free(*text);
    *text = NULL;
  }
  return st;
}

/* A failed read names the dataset: with the Fletcher32 filter it is how corruption shows. */
static int read_checked(hid_t dset, const char *name, hid_t mspace, hid_t fspace, hid_t dxpl, double *data) {
  if (H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, data) >= 0) return HM_SUCCESS;
  char why[512];
  hm_h5_last_message(why, sizeof why);
  HM_CHECK(0, HM_ERR_INPUT, "dataset '%s' could not be read (corrupt: %s)", name, why);
  return HM_SUCCESS;
}

int hm_h5_read_small(hid_t loc, const char *name, size_t count, double *data) {
  HM_CHECK(name && (data || count == 0), HM_ERR_ARGUMENT, "name or data is NULL");
  int st = HM_SUCCESS;
  hid_t dset = H5I_INVALID_HID, space = H5I_INVALID_HID;
  HM_H5_GOTO(st, done, dset = H5Dopen2(loc, name, H5P_DEFAULT));
  HM_H5_GOTO(st, done, space = H5Dget_space(dset));
  hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n != (hssize_t)count) {
    st = hm_error_raise(HM_ERR_IO, __FILE__, __LINE__, __func__, "dataset '%s' has %lld values, expected %zu", name,
                        (long long)n, count);
    goto done;
  }
  HM_CALL_GOTO(st, done, read_checked(dset, name, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
done:
  if (space >= 0) H5Sclose(space);
  if (dset >= 0) H5Dclose(dset);
  return st;
}

/* The dataset shape of a row block and this rank's hyperslab of it (local = 0 selects nothing). */
/* [n][k] or [n][k][2]; k = 0: [n] or [n][2] */
static void row_shape(int64_t n_global, int k, int type, hsize_t dims[3], int *ndim) {
  dims[0] = (hsize_t)n_global;
  dims[1] = k ? (hsize_t)k : 2;
  dims[2] = 2;
  *ndim = (type == HM_COMPLEX ? 3 : 2) - (k == 0);
}

static int select_rows(hid_t fspace, int64_t first, int64_t local, const hsize_t dims[3]) {
  if (local == 0) {
    HM_CALL_HDF5(H5Sselect_none(fspace));
    return HM_SUCCESS;
  }
  hsize_t start[3] = {(hsize_t)first, 0, 0}, count[3] = {(hsize_t)local, dims[1], dims[2]};
  HM_CALL_HDF5(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL));
  return HM_SUCCESS;
}

static int memory_space(int64_t local, const hsize_t dims[3], int ndim, hid_t *mspace) {
  hsize_t mdims[3] = {(hsize_t)(local > 0 ? local : 1), dims[1], dims[2]};
  HM_CALL_HDF5(*mspace = H5Screate_simple(ndim, mdims, NULL));
  if (local == 0) HM_CALL_HDF5(H5Sselect_none(*mspace));
  return HM_SUCCESS;
}

/* data: doubles, or int64_t where integer (type then HM_REAL) */
static int write_rows(hm_context *ctx, hid_t loc, const char *name, int64_t n_global, int64_t first, int64_t local, int k, int type,
                      const void *data, const char *unit, const char *description, int checksum, int integer) {
  HM_CHECK(name && k >= 0 && (type == HM_REAL || (type == HM_COMPLEX && !integer)) && first >= 0 && local >= 0 &&
               first + local <= n_global && (data || local == 0),
           HM_ERR_ARGUMENT, "bad row block for '%s': rows [%lld, +%lld) of %lld, k = %d, type = %d", name ? name : "?",
           (long long)first, (long long)local, (long long)n_global, k, type);
  hsize_t dims[3];
  int ndim, st = HM_SUCCESS;
  row_shape(n_global, k, type, dims, &ndim);
  hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID, dset = H5I_INVALID_HID, dxpl = H5I_INVALID_HID;
  hid_t dcpl = H5I_INVALID_HID;
  HM_H5_GOTO(st, done, fspace = H5Screate_simple(ndim, dims, NULL));
  if (checksum) HM_CALL_GOTO(st, done, checksum_dcpl(ndim, dims, &dcpl));
  if (dcpl < 0) HM_H5_GOTO(st, done, dcpl = H5Pcreate(H5P_DATASET_CREATE));
  HM_H5_GOTO(st, done, H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER)); /* every row is written next */
  const uint64_t bytes = sizeof(double) * (uint64_t)n_global * (uint64_t)(k ? k : 1) * (uint64_t)type;
  HM_CALL_GOTO(st, done, hm_h5_reserve(ctx, loc, bytes)); /* before the create allocates it */
  HM_H5_GOTO(st, done, dset = H5Dcreate2(loc, name, integer ? H5T_STD_I64LE : H5T_IEEE_F64LE, fspace, H5P_DEFAULT,
                                         dcpl, H5P_DEFAULT));
  HM_CALL_GOTO(st, done, select_rows(fspace, first, local, dims));
  HM_CALL_GOTO(st, done, memory_space(local, dims, ndim, &mspace));
  HM_H5_GOTO(st, done, dxpl = collective_dxpl());
  if (H5Dwrite(dset, integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, data) < 0)
    st = hm_error_raise_hdf5("H5Dwrite", __FILE__, __LINE__, __func__);
  HM_CALL_GOTO(st, done, hm_h5_agree(ctx, st, name)); /* before the next collective call */
  HM_CALL_GOTO(st, done, describe(dset, unit, description));
  if (type == HM_COMPLEX) HM_CALL_GOTO(st, done, hm_h5_attr_string(dset, "complex", "last dimension is (real, imaginary)"));
done:
  if (dcpl >= 0) H5Pclose(dcpl);
  if (dxpl >= 0) H5Pclose(dxpl);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (dset >= 0) H5Dclose(dset);
  return st;
}

int hm_h5_write_rows(hm_context *ctx, hid_t loc, const char *name, int64_t n_global, int64_t first, int64_t local, int k, int type,
                     const double *data, const char *unit, const char *description) {
  HM_CALL(write_rows(ctx, loc, name, n_global, first, local, k, type, data, unit, description, 0, 0));
  return HM_SUCCESS;
}

int hm_h5_write_rows_int64(hm_context *ctx, hid_t loc, const char *name, int64_t n_global, int64_t first, int64_t local,
                           int k, const int64_t *data, const char *unit, const char *description) {
  HM_CALL(write_rows(ctx, loc, name, n_global, first, local, k, HM_REAL, data, unit, description, 0, 1));
  return HM_SUCCESS;
}

int hm_h5_write_rows_checksum(hm_context *ctx, hid_t loc, const char *name, int64_t n_global, int64_t first, int64_t local, int k,
                              int type, const double *data, const char *unit, const char *description) {
  HM_CALL(write_rows(ctx, loc, name, n_global, first, local, k, type, data, unit, description, 1, 0));
  return HM_SUCCESS;
}

int hm_h5_read_rows(hid_t loc, const char *name, int64_t n_global, int64_t first, int64_t local, int k, int type,
                    double *data) {
  HM_CHECK(name && (data || local == 0), HM_ERR_ARGUMENT, "name or data is NULL");
  hsize_t dims[3], have[3] = {0, 0, 0};
  int ndim, st = HM_SUCCESS;
  row_shape(n_global, k, type, dims, &ndim);
  hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID, dset = H5I_INVALID_HID, dxpl = H5I_INVALID_HID;
  HM_H5_GOTO(st, done, dset = H5Dopen2(loc, name, H5P_DEFAULT));
  HM_H5_GOTO(st, done, fspace = H5Dget_space(dset));
  int have_ndim = H5Sget_simple_extent_ndims(fspace);
  if (have_ndim == ndim) H5Sget_simple_extent_dims(fspace, have, NULL);
  if (have_ndim != ndim || have[0] != dims[0] || have[1] != dims[1] || (ndim == 3 && have[2] != 2)) {
    st = hm_error_raise(HM_ERR_IO, __FILE__, __LINE__, __func__,
                        "dataset '%s' has shape [%llu][%llu]%s (%d dimensions), expected [%lld][%d]%s", name,
                        (unsigned long long)have[0], (unsigned long long)have[1], have_ndim == 3 ? "[2]" : "",
                        have_ndim, (long long)n_global, k, ndim == 3 ? "[2]" : "");
    goto done;
  }
  HM_CALL_GOTO(st, done, select_rows(fspace, first, local, dims));
  HM_CALL_GOTO(st, done, memory_space(local, dims, ndim, &mspace));
  HM_H5_GOTO(st, done, dxpl = collective_dxpl());
  HM_CALL_GOTO(st, done, read_checked(dset, name, mspace, fspace, dxpl, data));
done:
  if (dxpl >= 0) H5Pclose(dxpl);
  if (mspace >= 0) H5Sclose(mspace);
  if (fspace >= 0) H5Sclose(fspace);
  if (dset >= 0) H5Dclose(dset);
  return st;
}
