/* The stored entries of a distributed matrix with their global indices: the CSR keeps halo columns
 * renumbered after the local rows, so their global numbers come back through the halo plan (each
 * owner sends the global numbers of the rows it sends in a halo exchange, in the same order). */
#include <stddef.h>
#include "dense_internal.h"
#include "error_macros.h"
#include "mpi_waitall.h"

/* Global column of every local CSR column (ncols entries). */
static int global_columns(const struct hm_matrix_s *A, int64_t *gcol) {
  const hm_halo *h = &A->halo;
  const int64_t first = A->dist.first;
  for (int32_t c = 0; c < A->csr.nrows; c++) gcol[c] = first + c;
  const int nsend = h->send_start ? h->send_start[h->nsend_ranks] : 0;
  int64_t *sent;
  HM_MALLOC(sent, nsend + 1);
  for (int s = 0; s < nsend; s++) sent[s] = first + h->send_rows[s];
  MPI_Request *req;
  HM_MALLOC(req, h->nrecv_ranks + h->nsend_ranks + 1);
  int q = 0, st = MPI_SUCCESS;
  int64_t *halo = gcol + A->csr.nrows;
  for (int i = 0; i < h->nrecv_ranks && st == MPI_SUCCESS; i++)
    st = MPI_Irecv(halo + h->recv_start[i], h->recv_start[i + 1] - h->recv_start[i], MPI_INT64_T, h->recv_rank[i],
                   29, A->ctx->comm, &req[q++]);
  for (int i = 0; i < h->nsend_ranks && st == MPI_SUCCESS; i++)
    st = MPI_Isend(sent + h->send_start[i], h->send_start[i + 1] - h->send_start[i], MPI_INT64_T, h->send_rank[i],
                   29, A->ctx->comm, &req[q++]);
  if (st == MPI_SUCCESS) st = hm_mpi_waitall(q, req);
  free(sent);
  free(req);
  HM_CHECK(st == MPI_SUCCESS, HM_ERR_MPI, "exchange of halo column numbers failed");
  return HM_SUCCESS;
}

int hm_dense_lower_entries(const struct hm_matrix_s *A, hm_dense_entry **out, int64_t *count) {
  HM_CHECK(!A->stencil, HM_ERR_ARGUMENT,
           "matrix-free: the dense solvers need the matrix's entries; use storage = assembled");
  const hm_csr *c = &A->csr;
  int64_t *gcol;
  HM_MALLOC(gcol, (size_t)c->ncols + 1);
  int st = global_columns(A, gcol);
  if (st) { free(gcol); return hm_error_trace(st, __FILE__, __LINE__, __func__); }
  const int64_t nnz = c->rowptr[c->nrows];
  hm_dense_entry *e = malloc(sizeof *e * (size_t)(nnz + 1));
  if (!e) { free(gcol); HM_RAISE(HM_ERR_MEMORY, "could not allocate %lld matrix entries", (long long)nnz); }
  int64_t m = 0;
  for (int32_t r = 0; r < c->nrows; r++) {
    const int64_t i = A->dist.first + r;
    for (int64_t p = c->rowptr[r]; p < c->rowptr[r + 1]; p++) {
      const int64_t j = gcol[c->col[p]];
      if (j > i) continue;
      e[m].i = i;
      e[m].j = j;
      e[m].re = c->val[(size_t)A->type * (size_t)p];
      e[m].im = A->type == HM_COMPLEX ? c->val[2 * p + 1] : 0.0;
      m++;
    }
  }
  free(gcol);
  *out = e;
  *count = m;
  return HM_SUCCESS;
}

int hm_dense_entry_type(MPI_Datatype *t) {
  HM_CALL_MPI(MPI_Type_contiguous((int)sizeof(hm_dense_entry), MPI_BYTE, t));
  HM_CALL_MPI(MPI_Type_commit(t));
  return HM_SUCCESS;
}
