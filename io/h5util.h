/* Small HDF5 helpers shared by the output, checkpoint and compare code. Parallel files follow one
 * code path: every rank makes every call with identical arguments; small datasets are written by
 * rank 0 only (the others select nothing), distributed blocks by each rank's rows, collectively. */
#ifndef HAMLET_H5UTIL_H
#define HAMLET_H5UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <hdf5.h>
#include "error_macros.h"
#include "hamlet/context.h"
#include "hamlet/mvec.h"

/* Like HM_CALL_HDF5, for functions that hold handles: record the failure in st and jump to label. */
#define HM_H5_GOTO(st, label, expr)                                                 \
  do {                                                                              \
    if ((expr) < 0) {                                                               \
      (st) = hm_error_raise_hdf5(#expr, __FILE__, __LINE__, __func__);              \
      goto label;                                                                   \
    }                                                                               \
  } while (0)

/* The innermost message of HDF5's error stack (the stack is cleared). */
void hm_h5_last_message(char *buf, size_t n);

/* Collective over ctx. Create (truncating) / open read-only with the MPI-IO driver; HDF5's own
 * error printing is silenced, failures name the path. */
int hm_h5_create(hm_context *ctx, const char *path, hid_t *file);
int hm_h5_open_read(hm_context *ctx, const char *path, hid_t *file);
/* Not collective: open read-only with the default (serial) driver. */
int hm_h5_open_serial(const char *path, hid_t *file);

/* The group at an absolute path ("/" or "/a/b"), created with its parents where missing. */
int hm_h5_group(hid_t file, const char *path, hid_t *group);

/* Attributes: every rank writes the same value (HDF5 needs identical metadata calls). */
int hm_h5_attr_string(hid_t obj, const char *name, const char *value);
int hm_h5_attr_double(hid_t obj, const char *name, double value);
int hm_h5_attr_int(hid_t obj, const char *name, int64_t value);
int hm_h5_attr_uint64(hid_t obj, const char *name, uint64_t value);
/* Readers; a missing attribute is an HM_ERR_IO error naming it and the file. */
int hm_h5_read_attr_double(hid_t obj, const char *name, double *value);
int hm_h5_read_attr_int(hid_t obj, const char *name, int64_t *value);
int hm_h5_read_attr_uint64(hid_t obj, const char *name, uint64_t *value);
int hm_h5_read_attr_string(hid_t obj, const char *name, char **value); /* malloc'd */

/* Collective: a double dataset of ndim dimensions (0 = scalar); the data of rank 0 is written.
 * unit is required, description may be NULL. */
int hm_h5_write_small(hm_context *ctx, hid_t loc, const char *name, int ndim, const hsize_t *dims,
                      const double *data, const char *unit, const char *description);
/* The same, chunked with HDF5's Fletcher32 checksum (checkpoints): a read of a corrupted chunk
 * fails with HM_ERR_INPUT naming the dataset. */
int hm_h5_write_small_checksum(hm_context *ctx, hid_t loc, const char *name, int ndim, const hsize_t *dims,
                               const double *data, const char *unit, const char *description);
/* Collective: a fixed-length string scalar dataset with the text of rank 0 (NULL = ""), unit "none". */
int hm_h5_write_text(hm_context *ctx, hid_t loc, const char *name, const char *text,
                     const char *description);
/* Every caller reads the whole text (malloc'd) / all count doubles of a dataset. */
int hm_h5_read_text(hid_t loc, const char *name, char **text);
int hm_h5_read_small(hid_t loc, const char *name, size_t count, double *data);

/* Collective: rows [first, first + local) of a dataset [n_global][k] (type 1, real) or
 * [n_global][k][2] (type 2, complex: real, imaginary); data row-major, local*k*type doubles.
 * k = 0 writes [n_global] (or [n_global][2]): one number a row. */
int hm_h5_write_rows(hm_context *ctx, hid_t loc, const char *name, int64_t n_global, int64_t first, int64_t local,
                     int k, int type, const double *data, const char *unit, const char *description);
/* The same for 64-bit integers (real shape only). */
int hm_h5_write_rows_int64(hm_context *ctx, hid_t loc, const char *name, int64_t n_global, int64_t first, int64_t local,
                           int k, const int64_t *data, const char *unit, const char *description);
int hm_h5_write_rows_checksum(hm_context *ctx, hid_t loc, const char *name, int64_t n_global, int64_t first, int64_t local, int k,
                              int type, const double *data, const char *unit, const char *description);
/* The dataset must have exactly that shape; any rows may be read (another rank count). */
int hm_h5_read_rows(hid_t loc, const char *name, int64_t n_global, int64_t first, int64_t local,
                    int k, int type, double *data);

/* Collective: a distributed block as hm_h5_write_rows / hm_h5_read_rows do it, its data fetched
 * or stored through hm_mvec_get / hm_mvec_set (it may live on a device). */
int hm_h5_write_mvec(hid_t loc, const char *name, const hm_mvec *v, const char *unit, const char *description);
int hm_h5_write_mvec_checksum(hid_t loc, const char *name, const hm_mvec *v, const char *unit,
                              const char *description);
int hm_h5_read_mvec(hid_t loc, const char *name, hm_mvec *v);

/* Collective, before a dataset of `bytes` is created and written (h5util_reserve.c), and with 0
 * before the close: the file (of which loc is any object) can grow by that much plus a margin for
 * metadata (file size limit, disk space reserved by rank 0), or every rank returns HM_ERR_IO
 * naming the file and the system's reason. */
int hm_h5_reserve(hm_context *ctx, hid_t loc, uint64_t bytes);
/* Room for the metadata HDF5 writes at close, on top of the allocated end. */
#define HM_H5_METADATA_MARGIN ((uint64_t)1 << 20)
/* Collective: every rank returns a failure when one rank failed (`what` names the file or dataset);
 * used after each collective write and read of a dataset. */
int hm_h5_agree(hm_context *ctx, int status, const char *what);

/* Collective: after a barrier rank 0 renames from -> to (atomic within a file system) / removes
 * path; every rank returns the same status. */
int hm_h5_rename(hm_context *ctx, const char *from, const char *to);
int hm_h5_remove(hm_context *ctx, const char *path);
/* Collective: finish a file written under the name tmp (file < 0: it was never created). With
 * st == 0: room for the metadata the close writes, the close, then tmp renamed over path. After a
 * failure (st, or one of these steps) tmp is removed and path stays as it was. Returns the first
 * failure's status (its message kept). */
int hm_h5_commit(hm_context *ctx, hid_t file, const char *tmp, const char *path, int st);
#endif
