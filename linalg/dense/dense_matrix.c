/* hm_dense_eigh_matrix: all eigenvalues (and vectors) of a distributed matrix, either through
 * ScaLAPACK (dense_scalapack.c) or gathered on rank 0 and solved there by LAPACK or cuSOLVER. */
#include <complex.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "dense_internal.h"
#include "error_macros.h"
#include "gpu_probe.h"
#include "matrix_hermitian.h"
#include "halo.h"
#include "mpi_large.h"

/* Every rank learns rank 0's status; the others raise it with rank 0's message. */
static int share_root_status(MPI_Comm comm, int rank, int st) {
  char msg[1024] = "";
  HM_CALL_MPI(MPI_Bcast(&st, 1, MPI_INT, 0, comm));
  if (!st) return HM_SUCCESS;
  if (rank == 0) snprintf(msg, sizeof msg, "%s", hm_error_message());
  HM_CALL_MPI(MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, comm));
  if (rank == 0) return hm_error_trace(st, __FILE__, __LINE__, __func__);
  HM_RAISE(st, "on rank 0: %s", msg);
}

/* Gather the lower-triangle entries of M into the dense column-major n x n array d on rank 0. A dense
 * n = 65536 already has 2^31 lower entries: MPI 4's large-count gather (MPI_Count, MPI_Aint). */
static int gather_dense(const struct hm_matrix_s *M, const hm_dense_entry *e, int64_t count, double *d) {
  const int64_t n = M->dist.n_global;
  MPI_Datatype t;
  HM_CALL(hm_dense_entry_type(&t));
  void *gathered = NULL;
  size_t total = 0;
  int st = hm_mpi_gatherv_large(e, (size_t)count, t, 0, M->ctx->comm, &gathered, &total);
  MPI_Type_free(&t);
  HM_CALL(st);
  const hm_dense_entry *all = gathered;
  for (size_t p = 0; p < total; p++) {
    size_t at = (size_t)(all[p].j * n + all[p].i);
    if (M->type == HM_REAL) d[at] = all[p].re;
    else ((double complex *)d)[at] = CMPLX(all[p].re, all[p].im);
  }
  free(gathered);
  return HM_SUCCESS;
}

/* Rank 0 holds the eigenvectors column-major (n x n); every rank gets its rows into Z. */
static int scatter_vectors(struct hm_matrix_s *A, const double *dz, struct hm_mvec_s *Z) {
  hm_context *ctx = A->ctx;
  const int64_t n = A->dist.n_global, l = A->dist.local, f = A->dist.first;
  const int type = (int)A->type;
  double *cm = NULL, *rm = NULL; /* this rank's rows column-major (l x n), then row-major */
  HM_MALLOC(cm, (size_t)(l * n * type) + 1);
  HM_MALLOC(rm, (size_t)(l * n * type) + 1);
  int st = MPI_SUCCESS;
  if (ctx->rank == 0) {
    for (int r = 1; r < ctx->size && st == MPI_SUCCESS; r++) {
      const int64_t fr = A->dist.offsets[r], lr = A->dist.offsets[r + 1] - fr;
      if (!lr) continue;
      /* Int arguments: n x n x type doubles fit on rank 0 (checked before the gather), so n x 2 < INT_MAX. */
      MPI_Datatype rows; /* rows fr..fr+lr of every column */
      st = MPI_Type_vector((int)n, (int)(lr * type), (int)(n * type), MPI_DOUBLE, &rows);
      if (st == MPI_SUCCESS) st = MPI_Type_commit(&rows);
      if (st == MPI_SUCCESS) st = MPI_Send(dz + fr * type, 1, rows, r, 31, ctx->comm);
      MPI_Type_free(&rows);
    }
    for (int64_t j = 0; j < n; j++) memcpy(cm + j * l * type, dz + (j * n + f) * type, sizeof(double) * (size_t)(l * type));
  } else if (l) {
    MPI_Datatype column;
    st = MPI_Type_contiguous((int)(l * type), MPI_DOUBLE, &column);
    if (st == MPI_SUCCESS) st = MPI_Type_commit(&column);
    if (st == MPI_SUCCESS) st = MPI_Recv(cm, (int)n, column, 0, 31, ctx->comm, MPI_STATUS_IGNORE);
    MPI_Type_free(&column);
  }
  if (st != MPI_SUCCESS) { free(cm); free(rm); HM_RAISE(HM_ERR_MPI, "sending the eigenvectors' rows from rank 0 failed"); }
  for (int64_t i = 0; i < l; i++)
    for (int64_t j = 0; j < n; j++)
      for (int c = 0; c < type; c++) rm[(i * n + j) * type + c] = cm[(j * l + i) * type + c];
  free(cm);
  st = hm_mvec_set(Z, rm);
  free(rm);
  HM_CALL(st);
  return HM_SUCCESS;
}

/* LAPACK or cuSOLVER on rank 0 of a gathered copy. */
static int gathered_solve(struct hm_matrix_s *A, struct hm_matrix_s *B, int vectors, hm_dense_method method,
                          double *w, struct hm_mvec_s *Z) {
  hm_context *ctx = A->ctx;
  const int64_t n = A->dist.n_global;
  const int type = (int)A->type;
  hm_dense_entry *ea = NULL, *eb = NULL;
  int64_t na = 0, nb = 0;
  double *da = NULL, *db = NULL;
  int st = HM_SUCCESS, node = 1;
  HM_CALL_GOTO(st, done, hm_dense_lower_entries(A, &ea, &na));
  if (B) HM_CALL_GOTO(st, done, hm_dense_lower_entries(B, &eb, &nb));
  node = hm_dense_ranks_on_node(ctx->comm);
  /* Rank 0 needs the dense arrays and the gathered entries (the solver checks its workspace). */
  int64_t entries = na + nb, all_entries = 0;
  if (MPI_Reduce(&entries, &all_entries, 1, MPI_INT64_T, MPI_SUM, 0, ctx->comm) != MPI_SUCCESS) {
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Reduce of the entry counts failed");
    goto done;
  }
  int root = HM_SUCCESS;
  if (ctx->rank == 0) {
    const double need = (double)n * (double)n * 8.0 * type * (B ? 2 : 1) + (double)all_entries * sizeof(hm_dense_entry);
    const size_t avail = hm_dense_host_available(node);
    char t1[32], t2[32];
    if (need > (double)avail)
      root = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,
                            "gathering the %lld x %lld matrix%s on rank 0 needs %s, %s available there", (long long)n,
                            (long long)n, B ? " pair" : "", hm_dense_bytes_text(need, t1), hm_dense_bytes_text((double)avail, t2));
    if (!root) {
      da = calloc((size_t)(n * n * type), sizeof(double));
      if (B) db = calloc((size_t)(n * n * type), sizeof(double));
      if (!da || (B && !db))
        root = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %s for the dense matrix",
                              hm_dense_bytes_text(need, t1));
    }
  }
  HM_CALL_GOTO(st, done, share_root_status(ctx->comm, ctx->rank, root));
  HM_CALL_GOTO(st, done, gather_dense(A, ea, na, da));
  if (B) HM_CALL_GOTO(st, done, gather_dense(B, eb, nb, db));
  free(ea); free(eb);
  ea = eb = NULL;
  if (ctx->rank == 0) root = hm_dense_eigh(A->type, n, da, n, db, n, vectors, method, w);
  HM_CALL_GOTO(st, done, share_root_status(ctx->comm, ctx->rank, root));
  if (MPI_Bcast(w, (int)n, MPI_DOUBLE, 0, ctx->comm) != MPI_SUCCESS) { /* n < INT_MAX: rank 0 held n x n */
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Bcast of the eigenvalues failed");
    goto done;
  }
  free(db);
  db = NULL;
  if (vectors) HM_CALL_GOTO(st, done, scatter_vectors(A, da, Z));
done:
  free(ea); free(eb); free(da); free(db);
  return st;
}

/* Both matrices live on the same rows of the same ranks. */
static int check_pair(const struct hm_matrix_s *A, const struct hm_matrix_s *B) {
  HM_CHECK(B->type == A->type, HM_ERR_ARGUMENT, "B is %s, A %s", B->type == HM_REAL ? "real" : "complex",
           A->type == HM_REAL ? "real" : "complex");
  int same = MPI_UNEQUAL;
  HM_CALL_MPI(MPI_Comm_compare(A->ctx->comm, B->ctx->comm, &same));
  HM_CHECK(same != MPI_UNEQUAL, HM_ERR_ARGUMENT, "A and B live on different communicators");
  HM_CHECK(B->dist.n_global == A->dist.n_global && B->dist.first == A->dist.first && B->dist.local == A->dist.local,
           HM_ERR_ARGUMENT, "B is distributed differently from A (rows %lld+%lld of %lld, A %lld+%lld of %lld)",
           (long long)B->dist.first, (long long)B->dist.local, (long long)B->dist.n_global, (long long)A->dist.first,
           (long long)A->dist.local, (long long)A->dist.n_global);
  return HM_SUCCESS;
}

int hm_dense_eigh_matrix(hm_matrix *A, hm_matrix *B, int vectors, hm_dense_method method, double *w, hm_mvec *Z) {
  HM_CHECK(A && w, HM_ERR_ARGUMENT, "A or w is NULL");
  HM_CHECK(vectors == 0 || vectors == 1, HM_ERR_ARGUMENT, "vectors = %d, must be 0 or 1", vectors);
  HM_CHECK(method >= HM_DENSE_AUTO && method <= HM_DENSE_DISTRIBUTED, HM_ERR_ARGUMENT,
           "method %d is not one of HM_DENSE_AUTO (0), LAPACK (1), CUSOLVER (2), SCALAPACK (3), DISTRIBUTED (4)",
           (int)method);
  const int64_t n = A->dist.n_global;
  HM_CHECK(n < INT_MAX, HM_ERR_ARGUMENT, "n = %lld, dense solvers take n < %d", (long long)n, INT_MAX);
  if (B) HM_CALL(check_pair(A, B));
  HM_CALL(hm_matrix_require_hermitian(A, "the dense symmetric eigensolver"));
  if (B) HM_CALL(hm_matrix_require_hermitian(B, "the dense symmetric eigensolver (mass matrix B)"));
  if (vectors) {
    HM_CALL(hm_matrix_check_block(A, Z, "Z"));
    HM_CHECK(Z->k == n, HM_ERR_ARGUMENT, "Z has %d columns, must have n_global = %lld (one per eigenvector)", Z->k,
             (long long)n);
  } else {
    HM_CHECK(!Z, HM_ERR_ARGUMENT, "Z is given but vectors = 0; pass Z = NULL or vectors = 1");
  }
  if (method == HM_DENSE_AUTO)
    method = A->ctx->size > 1 ? HM_DENSE_SCALAPACK : A->ctx->backend == HM_BACKEND_CUDA ? HM_DENSE_CUSOLVER : HM_DENSE_LAPACK;
  HM_CHECK(method != HM_DENSE_CUSOLVER || hm_gpu_compiled(), HM_ERR_BACKEND,
           "HM_DENSE_CUSOLVER asked, but this hamlet was built without CUDA; allowed here: AUTO, LAPACK, SCALAPACK");
  if (n == 0) return HM_SUCCESS;
  if (method == HM_DENSE_SCALAPACK) HM_CALL(hm_dense_scalapack(A, B, vectors, w, Z));
  else if (method == HM_DENSE_DISTRIBUTED) HM_CALL(hm_dense_distributed(A, B, vectors, 0, w, Z));
  else HM_CALL(gathered_solve(A, B, vectors, method, w, Z));
  return HM_SUCCESS;
}
