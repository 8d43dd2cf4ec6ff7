/* hm_matrix_local_csr: this rank's stored rows with global column indices (the halo slots' global
 * indices come from their owners: each rank sends the indices of the rows it sends), for writers
 * of whole matrices (Matrix Market, HDF5). */
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "matrix_local_csr.h"
#include "mpi_waitall.h"
#include "objects.h"

/* global[j] = the global index of halo slot j (nhalo of them), from the halo plan. */
int hm_matrix_halo_globals(const hm_matrix *A, int64_t *global) {
  const hm_halo *h = &A->halo;
  const int nsend = h->send_start ? h->send_start[h->nsend_ranks] : 0;
  int64_t *out = malloc(sizeof *out * ((size_t)nsend + 1));
  MPI_Request *req = malloc(sizeof *req * ((size_t)h->nsend_ranks + h->nrecv_ranks + 1));
  HM_CHECK(out && req, HM_ERR_MEMORY, "no memory for %d halo indices", nsend);
  for (int i = 0; i < nsend; i++) out[i] = A->dist.first + h->send_rows[i];
  int n = 0;
  for (int i = 0; i < h->nrecv_ranks; i++)
    MPI_Irecv(global + h->recv_start[i], h->recv_start[i + 1] - h->recv_start[i], MPI_INT64_T, h->recv_rank[i], 71,
              A->ctx->comm, &req[n++]);
  for (int i = 0; i < h->nsend_ranks; i++)
    MPI_Isend(out + h->send_start[i], h->send_start[i + 1] - h->send_start[i], MPI_INT64_T, h->send_rank[i], 71,
              A->ctx->comm, &req[n++]);
  const int st = hm_mpi_waitall(n, req);
  free(out);
  free(req);
  HM_CHECK(st == MPI_SUCCESS, HM_ERR_MPI, "exchanging the halo's global indices failed");
  return HM_SUCCESS;
}

int hm_matrix_local_csr(hm_matrix *A, int64_t *local, int64_t *nnz, int64_t *rowptr, int64_t *cols, double *values) {
  HM_CHECK(A && local && nnz, HM_ERR_ARGUMENT, "A, local or nnz is NULL");
  HM_CHECK(!A->stencil, HM_ERR_ARGUMENT, "a matrix-free operator stores no entries; build it with assembled storage");
  const hm_csr *c = &A->csr;
  *local = c->nrows;
  *nnz = c->rowptr[c->nrows];
  if (!rowptr && !cols && !values) return HM_SUCCESS;
  HM_CHECK(rowptr && cols && values, HM_ERR_ARGUMENT, "rowptr, cols and values: all or none");
  int64_t *global = malloc(sizeof *global * ((size_t)A->halo.nhalo + 1));
  HM_CHECK(global, HM_ERR_MEMORY, "no memory for %d halo indices", (int)A->halo.nhalo);
  const int st = hm_matrix_halo_globals(A, global);
  if (st) {
    free(global);
    return st;
  }
  const int w = A->type == HM_COMPLEX ? 2 : 1;
  for (int32_t i = 0; i <= c->nrows; i++) rowptr[i] = c->rowptr[i];
  for (int64_t e = 0; e < *nnz; e++) {
    const int32_t j = c->col[e];
    cols[e] = j < c->nrows ? A->dist.first + j : global[j - c->nrows];
  }
  memcpy(values, c->val, sizeof(double) * (size_t)w * (size_t)*nnz);
  free(global);
  return HM_SUCCESS;
}
