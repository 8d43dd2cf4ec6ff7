/* hm_mtx_write (declared with the reader in hamlet/mtx.h; here, beside the matrix, because it reads
 * the CSR and the halo plan): a stored distributed matrix to a coordinate Matrix Market file, every entry (general
 * symmetry), 1-based global indices, 17 significant digits (the doubles read back exactly). The halo
 * columns' global indices come from their owners (each rank sends the indices of the rows it sends);
 * the ranks then append their rows in turn to a temporary file that rank 0 renames when complete. */
#include <stdio.h>
#include <stdlib.h>
#include "error_macros.h"
#include "hamlet/mtx.h"
#include "mpi_waitall.h"
#include "matrix_local_csr.h"
#include "objects.h"

/* This rank's rows appended to f. */
static int append_rows(const hm_matrix *A, const int64_t *global, FILE *f) {
  const hm_csr *c = &A->csr;
  const int w = A->type == HM_COMPLEX ? 2 : 1;
  for (int32_t i = 0; i < c->nrows; i++)
    for (int64_t e = c->rowptr[i]; e < c->rowptr[i + 1]; e++) {
      const int32_t j = c->col[e];
      const int64_t col = j < c->nrows ? A->dist.first + j : global[j - c->nrows];
      if (w == 2)
        fprintf(f, "%lld %lld %.17g %.17g\n", (long long)(A->dist.first + i + 1), (long long)(col + 1), c->val[2 * e],
                c->val[2 * e + 1]);
      else
        fprintf(f, "%lld %lld %.17g\n", (long long)(A->dist.first + i + 1), (long long)(col + 1), c->val[e]);
    }
  return ferror(f) ? 1 : 0;
}

int hm_mtx_write(hm_matrix *A, const char *path) {
  HM_CHECK(A && path, HM_ERR_ARGUMENT, "A or path is NULL");
  HM_CHECK(!A->stencil, HM_ERR_ARGUMENT,
           "%s: a matrix-free operator stores no entries; build it with assembled storage to write it", path);
  int rank, size;
  MPI_Comm_rank(A->ctx->comm, &rank);
  MPI_Comm_size(A->ctx->comm, &size);
  int64_t *global = malloc(sizeof *global * ((size_t)A->halo.nhalo + 1));
  HM_CHECK(global, HM_ERR_MEMORY, "no memory for %d halo indices", (int)A->halo.nhalo);
  int st = hm_matrix_halo_globals(A, global);
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int bad = st != HM_SUCCESS;
  if (rank == 0 && !bad) {
    FILE *f = fopen(tmp, "w");
    bad = !f || fprintf(f, "%%%%MatrixMarket matrix coordinate %s general\n%% written by hamlet\n%lld %lld %lld\n",
                        A->type == HM_COMPLEX ? "complex" : "real", (long long)A->dist.n_global,
                        (long long)A->dist.n_global, (long long)A->nnz_global) < 0;
    if (f && fclose(f)) bad = 1;
  }
  for (int r = 0; r < size; r++) { /* in rank order: the file's entries row by row */
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, A->ctx->comm);
    if (bad) break;
    if (r == rank) {
      FILE *f = fopen(tmp, "a");
      bad = !f || append_rows(A, global, f);
      if (f && fclose(f)) bad = 1;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, A->ctx->comm);
  free(global);
  if (!bad && rank == 0 && rename(tmp, path)) bad = 1;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, A->ctx->comm);
  if (bad) {
    if (rank == 0) remove(tmp);
    HM_CALL(st);
    HM_RAISE(HM_ERR_IO, "could not write the Matrix Market file %s", path);
  }
  return HM_SUCCESS;
}
