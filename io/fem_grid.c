/* Reading the FEM grid potential: rank 0 reads, every rank receives (see fem_grid.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fem_grid.h"
#include "h5util.h"
#include "context_access.h"

/* Rank 0's part: dims and a malloc'd copy of the values. */
static int read_on_root(const char *path, const char *dataset, int64_t dims[3], double **values) {
  hid_t file, dset = H5I_INVALID_HID, space = H5I_INVALID_HID;
  /* A missing or foreign file is bad input (exit 2), not an I/O failure of the run. */
  HM_CHECK(access(path, R_OK) == 0, HM_ERR_INPUT, "FEM grid potential (grid_file): cannot read '%s': %s", path,
           strerror(errno));
  htri_t is_hdf5 = H5Fis_hdf5(path);
  H5Eclear2(H5E_DEFAULT);
  HM_CHECK(is_hdf5 > 0, HM_ERR_INPUT, "FEM grid potential (grid_file): '%s' is not an HDF5 file", path);
  HM_CALL(hm_h5_open_serial(path, &file));
  int st = HM_SUCCESS;
  htri_t exists = H5Lexists(file, dataset, H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);
  if (exists > 0) dset = H5Dopen2(file, dataset, H5P_DEFAULT);
  if (dset < 0) {
    H5Eclear2(H5E_DEFAULT);
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                        "FEM grid potential: no dataset '%s' in '%s'", dataset, path);
    goto done;
  }
  HM_H5_GOTO(st, done, space = H5Dget_space(dset));
  int ndim = H5Sget_simple_extent_ndims(space);
  if (ndim != 3) {
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                        "FEM grid potential: dataset '%s' in '%s' has %d dimensions: it must have 3, [gz][gy][gx]",
                        dataset, path, ndim);
    goto done;
  }
  hsize_t shape[3];
  HM_H5_GOTO(st, done, H5Sget_simple_extent_dims(space, shape, NULL));
  for (int d = 0; d < 3; d++) dims[d] = (int64_t)shape[2 - d];
  size_t count = (size_t)(dims[0] * dims[1] * dims[2]);
  *values = malloc(sizeof **values * (count ? count : 1));
  if (!*values) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                        "could not allocate %zu doubles for the FEM grid potential", count);
    goto done;
  }
  HM_H5_GOTO(st, done, H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *values));
done:
  if (st) {
    free(*values);
    *values = NULL;
  }
  if (space >= 0) H5Sclose(space);
  if (dset >= 0) H5Dclose(dset);
  H5Fclose(file);
  return st;
}

int hm_fem_grid_read(hm_context *ctx, const char *path, const char *dataset, int64_t dims[3], double **values) {
  HM_CHECK(ctx && path && dataset && dims && values, HM_ERR_ARGUMENT, "ctx, path, dataset, dims or values is NULL");
  *values = NULL;
  int st = HM_SUCCESS;
  if (hm_io_rank(ctx) == 0) st = read_on_root(path, dataset, dims, values);
  /* A failure on rank 0 becomes the same failure, with the same text, on every rank. */
  HM_CALL_MPI(MPI_Bcast(&st, 1, MPI_INT, 0, hm_io_comm(ctx)));
  if (st) {
    int len = hm_io_rank(ctx) == 0 ? (int)strlen(hm_error_message()) + 1 : 0;
    HM_CALL_MPI(MPI_Bcast(&len, 1, MPI_INT, 0, hm_io_comm(ctx)));
    char *text = malloc((size_t)len);
    HM_CHECK(text, HM_ERR_MEMORY, "could not allocate %d bytes for an error message", len);
    if (hm_io_rank(ctx) == 0) memcpy(text, hm_error_message(), (size_t)len);
    int mst = MPI_Bcast(text, len, MPI_CHAR, 0, hm_io_comm(ctx));
    if (hm_io_rank(ctx) != 0 && mst == MPI_SUCCESS) st = hm_error_raise(st, __FILE__, __LINE__, __func__, "rank 0: %s", text);
    free(text);
    return hm_io_rank(ctx) == 0 ? hm_error_trace(st, __FILE__, __LINE__, __func__) : st;
  }
  HM_CALL_MPI(MPI_Bcast(dims, 3, MPI_INT64_T, 0, hm_io_comm(ctx)));
  const size_t count = (size_t)(dims[0] * dims[1] * dims[2]);
  if (hm_io_rank(ctx) != 0) {
    *values = malloc(sizeof **values * (count ? count : 1));
    HM_CHECK(*values, HM_ERR_MEMORY, "could not allocate %zu doubles for the FEM grid potential", count);
  }
  /* In pieces below INT_MAX elements: MPI counts are int. */
  for (size_t done = 0; done < count;) {
    int piece = count - done > (size_t)(INT_MAX / 2) ? INT_MAX / 2 : (int)(count - done);
    st = MPI_Bcast(*values + done, piece, MPI_DOUBLE, 0, hm_io_comm(ctx));
    if (st != MPI_SUCCESS) {
      free(*values);
      *values = NULL;
      HM_RAISE(HM_ERR_MPI, "MPI_Bcast of the FEM grid potential failed");
    }
    done += (size_t)piece;
  }
  return HM_SUCCESS;
}
