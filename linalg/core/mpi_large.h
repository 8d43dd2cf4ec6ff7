/* Messages of any length. MPI counts are int; a message of count elements (size_t)
 * goes out as pieces of at most the piece limit each, in order (MPI does not let messages of one
 * sender, tag and communicator overtake each other, so the receiver's pieces match the sender's). */
#ifndef HM_MPI_LARGE_H
#define HM_MPI_LARGE_H
#include <stddef.h>
#include <mpi.h>

/* Requests a message of count elements takes (at least 1: an empty message still travels). */
size_t hm_mpi_pieces(size_t count);
/* Nonblocking send / receive of count elements of type; fills hm_mpi_pieces(count) requests. */
int hm_mpi_isend_large(const void *buf, size_t count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                       MPI_Request *requests);
int hm_mpi_irecv_large(void *buf, size_t count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                       MPI_Request *requests);
/* Collectives of count elements, in pieces of at most the piece limit (one call when it fits, so
 * results are bitwise those of the plain call). send may be MPI_IN_PLACE; op must act element-wise. */
int hm_mpi_bcast_large(void *buf, size_t count, MPI_Datatype type, int root, MPI_Comm comm);
int hm_mpi_allreduce_large(const void *send, void *recv, size_t count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
/* Gathers count elements of type from every rank onto root, in rank order, with MPI 4's large
 * counts (MPI_Gatherv_c: totals and single counts past INT_MAX). On root *all is malloc'ed and holds
 * *total elements (the caller frees it); elsewhere NULL and 0. Every rank fails together where
 * root cannot allocate. */
int hm_mpi_gatherv_large(const void *send, size_t count, MPI_Datatype type, int root, MPI_Comm comm, void **all,
                         size_t *total);
/* The largest piece in elements: INT_MAX unless a test asks for less (limit >= 1; 0 restores INT_MAX),
 * so the splitting is tested without 2^31-element buffers. */
void hm_mpi_set_piece_limit(int limit);
#endif
