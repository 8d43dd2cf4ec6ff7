/* HDF5 files (parallel and serial opens, atomic rename) and groups by path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "h5util.h"
#include "context_access.h"

struct message { char *buf; size_t n; };

static herr_t take_innermost(unsigned n, const H5E_error2_t *e, void *data) {
  struct message *m = data;
  if (n == 0) snprintf(m->buf, m->n, "%s", e->desc);
  return 0;
}

void hm_h5_last_message(char *buf, size_t n) {
  if (n == 0) return;
  snprintf(buf, n, "no HDF5 message");
  struct message m = {buf, n};
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_innermost, &m); /* n == 0: where it was detected */
  H5Eclear2(H5E_DEFAULT);
}

/* Users should see hamlet's message, not HDF5's whole stack. */
static void silence_hdf5(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

static int mpio_fapl(hm_context *ctx, hid_t *fapl) {
  HM_CALL_HDF5(*fapl = H5Pcreate(H5P_FILE_ACCESS));
  if (H5Pset_fapl_mpio(*fapl, hm_io_comm(ctx), MPI_INFO_NULL) < 0) {
    H5Pclose(*fapl);
    return hm_error_raise_hdf5("H5Pset_fapl_mpio", __FILE__, __LINE__, __func__);
  }
  return HM_SUCCESS;
}

int hm_h5_create(hm_context *ctx, const char *path, hid_t *file) {
  HM_CHECK(ctx && path && file, HM_ERR_ARGUMENT, "ctx, path or file is NULL");
  silence_hdf5();
  hid_t fapl;
  HM_CALL(mpio_fapl(ctx, &fapl));
  *file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  char msg[256]; /* taken before the next HDF5 call clears the stack */
  if (*file < 0) hm_h5_last_message(msg, sizeof msg);
  H5Pclose(fapl);
  if (*file < 0) {
    HM_RAISE(HM_ERR_IO, "could not create the HDF5 file '%s' (does its directory exist and is it "
             "writable?): %s", path, msg);
  }
  return HM_SUCCESS;
}

/* Rank 0 looks first, so a missing or foreign file gets a plain message on every rank. */
static int check_readable(hm_context *ctx, const char *path) {
  int what[2] = {0, 0}; /* {0 ok | 1 unreadable | 2 not HDF5, errno} */
  if (hm_io_rank(ctx) == 0) {
    if (access(path, R_OK) != 0) {
      what[0] = 1;
      what[1] = errno;
    } else if (H5Fis_hdf5(path) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      what[0] = 2;
    }
  }
  HM_CALL_MPI(MPI_Bcast(what, 2, MPI_INT, 0, hm_io_comm(ctx)));
  HM_CHECK(what[0] != 1, HM_ERR_IO, "cannot read '%s': %s", path, strerror(what[1]));
  HM_CHECK(what[0] != 2, HM_ERR_IO, "'%s' is not an HDF5 file", path);
  return HM_SUCCESS;
}

int hm_h5_open_read(hm_context *ctx, const char *path, hid_t *file) {
  HM_CHECK(ctx && path && file, HM_ERR_ARGUMENT, "ctx, path or file is NULL");
  silence_hdf5();
  HM_CALL(check_readable(ctx, path));
  hid_t fapl;
  HM_CALL(mpio_fapl(ctx, &fapl));
  *file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  char msg[256];
  if (*file < 0) hm_h5_last_message(msg, sizeof msg);
  H5Pclose(fapl);
  if (*file < 0) {
    HM_RAISE(HM_ERR_HDF5, "could not open the HDF5 file '%s': %s", path, msg);
  }
  return HM_SUCCESS;
}

int hm_h5_open_serial(const char *path, hid_t *file) {
  HM_CHECK(path && file, HM_ERR_ARGUMENT, "path or file is NULL");
  silence_hdf5();
  HM_CHECK(access(path, R_OK) == 0, HM_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
  htri_t is = H5Fis_hdf5(path);
  H5Eclear2(H5E_DEFAULT);
  HM_CHECK(is > 0, HM_ERR_IO, "'%s' is not an HDF5 file", path);
  *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (*file < 0) {
    char msg[256];
    hm_h5_last_message(msg, sizeof msg);
    HM_RAISE(HM_ERR_HDF5, "could not open the HDF5 file '%s': %s", path, msg);
  }
  return HM_SUCCESS;
}

int hm_h5_rename(hm_context *ctx, const char *from, const char *to) {
  int err = 0;
  HM_CALL_MPI(MPI_Barrier(hm_io_comm(ctx)));
  if (hm_io_rank(ctx) == 0 && rename(from, to) != 0) err = errno;
  HM_CALL_MPI(MPI_Bcast(&err, 1, MPI_INT, 0, hm_io_comm(ctx)));
  HM_CHECK(err == 0, HM_ERR_IO, "could not rename '%s' to '%s': %s", from, to, strerror(err));
  return HM_SUCCESS;
}

int hm_h5_remove(hm_context *ctx, const char *path) {
  int err = 0;
  HM_CALL_MPI(MPI_Barrier(hm_io_comm(ctx)));
  if (hm_io_rank(ctx) == 0 && remove(path) != 0 && errno != ENOENT) err = errno;
  HM_CALL_MPI(MPI_Bcast(&err, 1, MPI_INT, 0, hm_io_comm(ctx)));
  HM_CHECK(err == 0, HM_ERR_IO, "could not remove '%s': %s", path, strerror(err));
  return HM_SUCCESS;
}

int hm_h5_commit(hm_context *ctx, hid_t file, const char *tmp, const char *path, int st) {
  if (!st && file >= 0) st = hm_h5_reserve(ctx, file, 0);
  if (file >= 0 && H5Fclose(file) < 0 && !st) st = hm_error_raise_hdf5("H5Fclose", __FILE__, __LINE__, __func__);
  if (!st) st = hm_h5_rename(ctx, tmp, path);
  else if (file >= 0) hm_h5_remove(ctx, tmp); /* the failure's message is kept, not the clean-up's */
  return st;
}

static int is_group(hid_t file, const char *path) {
  hid_t o = H5Oopen(file, path, H5P_DEFAULT);
  if (o < 0) return 0;
  int yes = H5Iget_type(o) == H5I_GROUP;
  H5Oclose(o);
  return yes;
}

/* Walk the path one component at a time, opening what exists and creating what does not. */
int hm_h5_group(hid_t file, const char *path, hid_t *group) {
  HM_CHECK(path && path[0] == '/' && group, HM_ERR_ARGUMENT, "group path '%s' must start with '/'",
           path ? path : "(null)");
  size_t n = strlen(path);
  char *prefix;
  HM_MALLOC(prefix, n + 1);
  int st = HM_SUCCESS;
  hid_t g = H5I_INVALID_HID;
  HM_H5_GOTO(st, done, g = H5Gopen2(file, "/", H5P_DEFAULT));
  for (size_t i = 1; i <= n; i++) {
    if (path[i] != '/' && path[i] != '\0') continue;
    if (path[i - 1] == '/') {
      if (path[i] == '\0') break; /* "/a/" ends like "/a" */
      st = hm_error_raise(HM_ERR_ARGUMENT, __FILE__, __LINE__, __func__,
                          "group path '%s' has an empty component", path);
      goto done;
    }
    memcpy(prefix, path, i);
    prefix[i] = '\0';
    htri_t exists;
    HM_H5_GOTO(st, done, exists = H5Lexists(file, prefix, H5P_DEFAULT));
    H5Gclose(g);
    if (exists && !is_group(file, prefix)) {
      g = H5I_INVALID_HID;
      st = hm_error_raise(HM_ERR_ARGUMENT, __FILE__, __LINE__, __func__,
                          "'%s' is in the file already and is not a group (wanted the group '%s')", prefix, path);
      goto done;
    }
    if (exists)
      HM_H5_GOTO(st, done, g = H5Gopen2(file, prefix, H5P_DEFAULT));
    else
      HM_H5_GOTO(st, done, g = H5Gcreate2(file, prefix, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  }
done:
  free(prefix);
  if (st && g >= 0) H5Gclose(g);
  *group = st ? H5I_INVALID_HID : g;
  return st;
}
