/* Collective writes that cannot hang: room on disk made sure of before a dataset is written, and
 * the status agreed after each collective transfer (hm_h5_agree). A write that fails on one rank
 * (disk full, quota, file size limit) leaves the other ranks waiting in HDF5's own collectives
 * (MPI-IO file views) for ever, and no later agreement can reach them. So the room is made sure of
 * first: rank 0 checks the process's file size limit and reserves the file's blocks for what is
 * written, the new dataset and a margin for metadata (fallocate keeping the size; where the file
 * system cannot, statvfs's free space), and every rank learns the verdict before the dataset is
 * even created: a dataset allocated beyond the limit could not be closed either. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "h5util.h"
#include "context_access.h"

/* 0 or the errno that says why `need` bytes of `path` cannot be written. */
static int reserve_on_disk(const char *path, uint64_t need) {
  struct rlimit lim;
  if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && need > (uint64_t)lim.rlim_cur)
    return EFBIG;
  int fd = open(path, O_WRONLY);
  if (fd < 0) return errno;
  int err = 0;
  if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)need) != 0) {
    err = errno;
    struct stat st;
    struct statvfs vfs;
    if ((err == EOPNOTSUPP || err == ENOSYS || err == EINVAL) && fstat(fd, &st) == 0 && fstatvfs(fd, &vfs) == 0) {
      const uint64_t have = (uint64_t)st.st_blocks * 512u, room = (uint64_t)vfs.f_bavail * vfs.f_frsize;
      err = need > have && need - have > room ? ENOSPC : 0;
    }
  }
  close(fd);
  return err;
}

int hm_h5_reserve(hm_context *ctx, hid_t loc, uint64_t bytes) {
  char path[4096] = "";
  int64_t verdict[2] = {0, 0}; /* errno, bytes needed */
  if (H5Fget_name(loc, path, sizeof path) < 0) return hm_error_raise_hdf5("H5Fget_name", __FILE__, __LINE__, __func__);
  if (hm_io_rank(ctx) == 0) {
    /* What is written so far (HDF5's own size query does not answer with MPI-IO once the file was
     * written), the new bytes, and room for the metadata HDF5 places and writes at close. */
    struct stat st;
    const uint64_t written = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    verdict[1] = (int64_t)(written + bytes + HM_H5_METADATA_MARGIN);
    verdict[0] = reserve_on_disk(path, (uint64_t)verdict[1]);
  }
  HM_CALL_MPI(MPI_Bcast(verdict, 2, MPI_INT64_T, 0, hm_io_comm(ctx)));
  HM_CHECK(verdict[0] == 0, HM_ERR_IO, "cannot write '%s': %s (the file needs about %.1f MiB)", path,
           strerror((int)verdict[0]), (double)verdict[1] / (1024.0 * 1024.0));
  return HM_SUCCESS;
}

int hm_h5_agree(hm_context *ctx, int status, const char *what) {
  int mine[2] = {status ? hm_io_rank(ctx) + 1 : 0, status}, any[2];
  HM_CALL_MPI(MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, hm_io_comm(ctx)));
  if (status) return status;
  if (any[0]) HM_RAISE(any[1], "rank %d failed on %s (its message says why)", any[0] - 1, what);
  return HM_SUCCESS;
}
