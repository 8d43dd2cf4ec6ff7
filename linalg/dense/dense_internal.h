/* Shared by the dense eigensolver paths (linalg/dense/): memory accounting, the LAPACK path, the
 * nonzeros of a distributed matrix with global indices, and the ScaLAPACK path. */
#ifndef HAMLET_DENSE_INTERNAL_H
#define HAMLET_DENSE_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "hamlet/dense.h"
#include "objects.h"

/* Bytes of host memory this process may count on: MemAvailable / ranks_on_node, capped by
 * HAMLET_DENSE_MEMORY_LIMIT. */
size_t hm_dense_host_available(int ranks_on_node);
/* The HAMLET_DENSE_MEMORY_LIMIT cap in bytes, SIZE_MAX when unset. */
size_t hm_dense_memory_limit(void);
/* "1.50 GiB" style text of a byte count (buf of >= 32 chars). */
const char *hm_dense_bytes_text(double bytes, char *buf);

/* LAPACK on the host: ?syevd / ?sygvd with queried workspace; refuses when the workspace does not
 * fit. Arguments as hm_dense_eigh. */
int hm_dense_lapack(hm_scalar type, int64_t n, void *A, int64_t lda, void *B, int64_t ldb, int vectors,
                    double *w);

/* One stored entry of a distributed matrix with its global row and column. */
typedef struct {
  int64_t i, j;
  double re, im;
} hm_dense_entry;

/* The entries of this rank's rows in the lower triangle (j <= i), global indices. Collective
 * (halo columns are translated through the halo plan). *e is malloc'ed. */
int hm_dense_lower_entries(const struct hm_matrix_s *A, hm_dense_entry **e, int64_t *count);
/* An MPI datatype of one hm_dense_entry (committed; free with MPI_Type_free). */
int hm_dense_entry_type(MPI_Datatype *t);

/* A 2D block-cyclic layout of n x n matrices in square blocks of nb (ScaLAPACK's, BLACS context ctxt;
 * the distributed eigensolver uses a 1 x P grid of column blocks without BLACS, ctxt = sys = -1). */
typedef struct {
  int ctxt, sys;                   /* BLACS grid and system handle (-1: none) */
  int nprow, npcol, myrow, mycol;
  int n, nb, mloc, nloc, lld;
  int desc[9];
  int *pnum;                       /* rank of grid position (pr, pc) at pr * npcol + pc */
} hm_dense_grid;

/* Block-cyclic maps of global index i (0-based) over nproc processes in blocks of nb. */
static inline int hm_dense_owner_of(int64_t i, int nb, int nproc) { return (int)((i / nb) % nproc); }
static inline int64_t hm_dense_local_of(int64_t i, int nb, int nproc) {
  return (i / ((int64_t)nb * nproc)) * nb + i % nb;
}
static inline int64_t hm_dense_global_of(int64_t l, int nb, int iproc, int nproc) {
  return ((l / nb) * nproc + iproc) * nb + l % nb;
}
/* Indices of n that process iproc owns (ScaLAPACK's numroc with source 0). */
static inline int64_t hm_dense_numroc(int64_t n, int nb, int iproc, int nproc) {
  const int64_t blocks = n / nb, extra = n % nb;
  int64_t count = (blocks / nproc) * nb;
  const int64_t rest = blocks % nproc;
  if (iproc < rest) count += nb;
  else if (iproc == rest) count += extra;
  return count;
}

/* One matrix on its way to the grid: its entries sorted by destination, and the counts. */
typedef struct {
  hm_dense_entry *send, *recv;
  MPI_Count *scount, *rcount;
  MPI_Aint *sdispl, *rdispl;
  int64_t nsend, nrecv;
} hm_dense_transfer;

/* Group the lower-triangle entries of M by owning rank (mirror = 1: the upper triangle's too, as
 * conjugates) and exchange the counts. Collective. */
int hm_dense_transfer_plan(const struct hm_matrix_s *M, const hm_dense_grid *g, int mirror, hm_dense_transfer *t);
/* Send the entries and write the received ones into the local block-cyclic array loc (zeroed by the
 * caller, leading dimension g->lld); frees t. Collective. */
int hm_dense_transfer_run(const struct hm_matrix_s *M, const hm_dense_grid *g, hm_dense_transfer *t, double *loc);
void hm_dense_transfer_free(hm_dense_transfer *t);
/* Eigenvectors from the grid (zloc, leading dimension g->lld) to this rank's rows of Z. Collective. */
int hm_dense_vectors_to_rows(const struct hm_matrix_s *A, const hm_dense_grid *g, const double *zloc,
                             struct hm_mvec_s *Z);

/* One rank over memory stops all: every rank learns the worst (need, available) pair and raises
 * HM_ERR_MEMORY "WHAT needs .. on rank r, .. available there (ADVICE)". Collective. */
int hm_dense_check_memory(MPI_Comm comm, int rank, double need, double avail, const char *what, const char *advice);
/* A failure on one rank stops all: st where this rank failed, else an error if another did. Collective. */
int hm_dense_agree(MPI_Comm comm, int st);
/* Ranks of comm sharing this rank's node (1 if that cannot be told). */
int hm_dense_ranks_on_node(MPI_Comm comm);

/* ScaLAPACK path of hm_dense_eigh_matrix (arguments checked by the caller). */
int hm_dense_scalapack(struct hm_matrix_s *A, struct hm_matrix_s *B, int vectors, double *w,
                       struct hm_mvec_s *Z);
/* The distributed two-stage path of hm_dense_eigh_matrix (dense_distributed.h); block: the band width
 * (0: chosen from n and the rank count). */
int hm_dense_distributed(struct hm_matrix_s *A, struct hm_matrix_s *B, int vectors, int block, double *w,
                         struct hm_mvec_s *Z);
#endif
