/* Messages longer than an int count, as ordered pieces (see mpi_large.h). */
#include <limits.h>
#include <stdlib.h>
#include "error_macros.h"
#include "mpi_large.h"

static int piece_limit = INT_MAX;

void hm_mpi_set_piece_limit(int limit) { piece_limit = limit >= 1 ? limit : INT_MAX; }

size_t hm_mpi_pieces(size_t count) {
  const size_t limit = (size_t)piece_limit;
  return count == 0 ? 1 : (count + limit - 1) / limit;
}

/* Bytes of one element of type (MPI_Type_size's int is enough for the element types used here). */
static int element_bytes(MPI_Datatype type, size_t *bytes) {
  int size = 0;
  HM_CALL_MPI(MPI_Type_size(type, &size));
  HM_CHECK(size > 0, HM_ERR_INTERNAL, "an MPI element type of %d bytes", size);
  *bytes = (size_t)size;
  return HM_SUCCESS;
}

int hm_mpi_isend_large(const void *buf, size_t count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                       MPI_Request *requests) {
  size_t bytes = 1;
  HM_CALL(element_bytes(type, &bytes));
  const size_t n = hm_mpi_pieces(count), limit = (size_t)piece_limit;
  for (size_t i = 0; i < n; i++) {
    const size_t first = i * limit, len = count - first < limit ? count - first : limit;
    HM_CALL_MPI(MPI_Isend((const char *)buf + first * bytes, (int)len, type, peer, tag, comm, &requests[i]));
  }
  return HM_SUCCESS;
}

int hm_mpi_irecv_large(void *buf, size_t count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                       MPI_Request *requests) {
  size_t bytes = 1;
  HM_CALL(element_bytes(type, &bytes));
  const size_t n = hm_mpi_pieces(count), limit = (size_t)piece_limit;
  for (size_t i = 0; i < n; i++) {
    const size_t first = i * limit, len = count - first < limit ? count - first : limit;
    HM_CALL_MPI(MPI_Irecv((char *)buf + first * bytes, (int)len, type, peer, tag, comm, &requests[i]));
  }
  return HM_SUCCESS;
}

int hm_mpi_bcast_large(void *buf, size_t count, MPI_Datatype type, int root, MPI_Comm comm) {
  size_t bytes = 1;
  HM_CALL(element_bytes(type, &bytes));
  const size_t limit = (size_t)piece_limit;
  for (size_t first = 0; first < count; first += limit) {
    const size_t len = count - first < limit ? count - first : limit;
    HM_CALL_MPI(MPI_Bcast((char *)buf + first * bytes, (int)len, type, root, comm));
  }
  return HM_SUCCESS;
}

int hm_mpi_allreduce_large(const void *send, void *recv, size_t count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  size_t bytes = 1;
  HM_CALL(element_bytes(type, &bytes));
  const size_t limit = (size_t)piece_limit;
  for (size_t first = 0; first < count; first += limit) {
    const size_t len = count - first < limit ? count - first : limit;
    const void *from = send == MPI_IN_PLACE ? MPI_IN_PLACE : (const char *)send + first * bytes;
    HM_CALL_MPI(MPI_Allreduce(from, (char *)recv + first * bytes, (int)len, type, op, comm));
  }
  return HM_SUCCESS;
}

int hm_mpi_gatherv_large(const void *send, size_t count, MPI_Datatype type, int root, MPI_Comm comm, void **all,
                         size_t *total) {
  HM_CHECK(all && total, HM_ERR_ARGUMENT, "all or total is NULL");
  *all = NULL;
  *total = 0;
  int rank, size;
  HM_CALL_MPI(MPI_Comm_rank(comm, &rank));
  HM_CALL_MPI(MPI_Comm_size(comm, &size));
  MPI_Aint lb, extent;
  HM_CALL_MPI(MPI_Type_get_extent(type, &lb, &extent));
  MPI_Count mine = (MPI_Count)count, *counts = NULL;
  MPI_Aint *displs = NULL;
  int ready = 1; /* root's buffers: every rank learns a failed allocation instead of waiting in the gather */
  if (rank == root) {
    counts = calloc((size_t)size, sizeof *counts);
    displs = calloc((size_t)size + 1, sizeof *displs);
    ready = counts && displs;
  }
  int st = MPI_Gather(&mine, 1, MPI_COUNT, counts, 1, MPI_COUNT, root, comm);
  if (st == MPI_SUCCESS && rank == root && ready) {
    for (int r = 0; r < size; r++) {
      *total += (size_t)counts[r];
      displs[r + 1] = displs[r] + (MPI_Aint)counts[r];
    }
    *all = malloc(*total * (size_t)extent + 1);
    ready = *all != NULL;
  }
  if (st == MPI_SUCCESS) st = MPI_Bcast(&ready, 1, MPI_INT, root, comm);
  if (st == MPI_SUCCESS && ready) st = MPI_Gatherv_c(send, mine, type, *all, counts, displs, type, root, comm);
  const size_t wanted = *total;
  free(counts);
  free(displs);
  if (st != MPI_SUCCESS || !ready) {
    free(*all);
    *all = NULL;
    *total = 0;
  }
  HM_CHECK(st == MPI_SUCCESS, HM_ERR_MPI, "MPI_Gatherv_c of %zu elements (%zu from this rank) to rank %d failed",
           wanted, count, root);
  HM_CHECK(ready, HM_ERR_MEMORY, "rank %d could not allocate the %zu gathered elements of %lld bytes", root, wanted,
           (long long)extent);
  return HM_SUCCESS;
}
