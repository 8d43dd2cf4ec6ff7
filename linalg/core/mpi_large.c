/* Messages longer than an int count, as ordered pieces (see mpi_large.h). */
#include <limits.h>
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
