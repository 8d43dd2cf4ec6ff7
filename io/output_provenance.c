/* /provenance: what produced this file (version, commit, ranks, threads, backend, host, date, MPI).
 * Strings that could differ between ranks come from rank 0, so every rank writes the same metadata. */
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <omp.h>
#include "output_internal.h"
#include "context_access.h"
#include "hamlet.h"
#include "hamlet_git_commit.h" /* generated before each build (cmake/GitCommit.cmake) */

enum { TEXT = 256 };

typedef struct {
  char host[TEXT], date[TEXT], mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  int threads, cuda_ranks;
} facts;

static int gather_facts(hm_context *ctx, facts *f) {
  memset(f, 0, sizeof *f);
  if (hm_io_rank(ctx) == 0) {
    if (gethostname(f->host, TEXT - 1) != 0) strcpy(f->host, "unknown");
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(f->date, TEXT, "%Y-%m-%dT%H:%M:%SZ", &utc);
    int len = 0;
    MPI_Get_library_version(f->mpi, &len);
    /* MPICH's text spans lines; the first line names library and version. */
    f->mpi[strcspn(f->mpi, "\n")] = '\0';
    f->threads = omp_get_max_threads();
  }
  HM_CALL_MPI(MPI_Bcast(f->host, TEXT, MPI_CHAR, 0, hm_io_comm(ctx)));
  HM_CALL_MPI(MPI_Bcast(f->date, TEXT, MPI_CHAR, 0, hm_io_comm(ctx)));
  HM_CALL_MPI(MPI_Bcast(f->mpi, MPI_MAX_LIBRARY_VERSION_STRING, MPI_CHAR, 0, hm_io_comm(ctx)));
  HM_CALL_MPI(MPI_Bcast(&f->threads, 1, MPI_INT, 0, hm_io_comm(ctx)));
  hm_backend resolved;
  HM_CALL(hm_context_backend(ctx, &resolved));
  int mine = resolved == HM_BACKEND_CUDA;
  HM_CALL_MPI(MPI_Allreduce(&mine, &f->cuda_ranks, 1, MPI_INT, MPI_SUM, hm_io_comm(ctx)));
  return HM_SUCCESS;
}

static int write_facts(hm_context *ctx, hid_t g, const facts *f) {
  HM_CALL(hm_h5_attr_string(g, "version", hm_version()));
  HM_CALL(hm_h5_attr_string(g, "git_commit", HAMLET_GIT_COMMIT));
  HM_CALL(hm_h5_attr_int(g, "ranks", hm_io_size(ctx)));
  HM_CALL(hm_h5_attr_int(g, "threads", f->threads));
  HM_CALL(hm_h5_attr_int(g, "gpus", f->cuda_ranks));
  /* the same text on every rank (HDF5 metadata): "mixed" when some ranks ran on GPUs and some not */
  const char *backend = f->cuda_ranks == hm_io_size(ctx) ? "cuda" : f->cuda_ranks == 0 ? "cpu" : "mixed";
  HM_CALL(hm_h5_attr_string(g, "backend", backend));
  HM_CALL(hm_h5_attr_string(g, "host", f->host));
  HM_CALL(hm_h5_attr_string(g, "date", f->date));
  HM_CALL(hm_h5_attr_string(g, "mpi_library", f->mpi));
  char hdf5[64];
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  snprintf(hdf5, sizeof hdf5, "%u.%u.%u", maj, min, rel);
  HM_CALL(hm_h5_attr_string(g, "hdf5_library", hdf5));
  return HM_SUCCESS;
}

int hm_output_write_provenance(hm_output *out) {
  HM_CHECK(out && out->file >= 0, HM_ERR_ARGUMENT, "out is NULL or closed");
  facts f;
  HM_CALL(gather_facts(out->ctx, &f));
  hid_t g;
  HM_CALL(hm_h5_group(out->file, "/provenance", &g));
  int st = write_facts(out->ctx, g, &f);
  H5Gclose(g);
  HM_CALL(st);
  return HM_SUCCESS;
}
