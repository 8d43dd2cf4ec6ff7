/* io/ reads a context's rank, size and communicator through the public accessors (linalg's object
 * layout stays private to linalg). Callers have checked ctx; a NULL ctx gives rank -1, size 0 and
 * MPI_COMM_NULL, on which the next MPI call fails with an error status. */
#ifndef HAMLET_IO_CONTEXT_ACCESS_H
#define HAMLET_IO_CONTEXT_ACCESS_H
#include <mpi.h>
#include "hamlet/context.h"

static inline int hm_io_rank(const hm_context *ctx) {
  int rank = -1;
  if (hm_context_rank(ctx, &rank, NULL)) return -1;
  return rank;
}

static inline int hm_io_size(const hm_context *ctx) {
  int size = 0;
  if (hm_context_rank(ctx, NULL, &size)) return 0;
  return size;
}

static inline MPI_Comm hm_io_comm(const hm_context *ctx) {
  MPI_Comm comm = MPI_COMM_NULL;
  if (hm_context_comm(ctx, &comm)) return MPI_COMM_NULL;
  return comm;
}
#endif
