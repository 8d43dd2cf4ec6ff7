#ifndef HM_MPI_WAITALL_H
#define HM_MPI_WAITALL_H
#include <mpi.h>

/* MPI_Waitall without statuses. GCC 12 reads MPICH's MPI_STATUSES_IGNORE (a pointer constant) through
 * the access attribute of mpi.h's prototype as a buffer of size 0 and warns (-Wstringop-overflow) at
 * every such call; the false warning is silenced here, once. */
static inline int hm_mpi_waitall(int n, MPI_Request *requests) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
  return MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
}

#endif
