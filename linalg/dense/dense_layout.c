/* The 2D block-cyclic layout shared by the ScaLAPACK path and the distributed eigensolver (a 1 x P
 * grid of column blocks there): the nonzeros of a row-distributed matrix go straight to their owners
 * in one all-to-all, and eigenvectors come back to row blocks in a second one whose order both sides
 * know, so only values travel. */
#include <string.h>
#include "dense_internal.h"
#include "error_macros.h"
#include "host_alloc.h"

int hm_dense_check_memory(MPI_Comm comm, int rank, double need, double avail, const char *what, const char *advice) {
  struct { double excess; int rank; } mine = {need - avail, rank}, worst;
  HM_CALL_MPI(MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
  if (worst.excess <= 0) return HM_SUCCESS;
  double pair[2] = {need, avail};
  HM_CALL_MPI(MPI_Bcast(pair, 2, MPI_DOUBLE, worst.rank, comm));
  char t1[32], t2[32];
  HM_RAISE(HM_ERR_MEMORY, "%s needs %s on rank %d, %s available there (%s)", what, hm_dense_bytes_text(pair[0], t1),
           worst.rank, hm_dense_bytes_text(pair[1], t2), advice);
}

int hm_dense_agree(MPI_Comm comm, int st) {
  int worst = 0;
  HM_CALL_MPI(MPI_Allreduce(&st, &worst, 1, MPI_INT, MPI_MAX, comm));
  if (st) return st;
  HM_CHECK(!worst, worst, "failed on another rank");
  return HM_SUCCESS;
}

int hm_dense_ranks_on_node(MPI_Comm comm) {
  int node = 1;
  MPI_Comm node_comm;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm) == MPI_SUCCESS) {
    MPI_Comm_size(node_comm, &node);
    MPI_Comm_free(&node_comm);
  }
  return node;
}

void hm_dense_transfer_free(hm_dense_transfer *t) {
  free(t->send); free(t->recv); free(t->scount); free(t->rcount); free(t->sdispl); free(t->rdispl);
  memset(t, 0, sizeof *t);
}

static int owner_rank(const hm_dense_grid *g, int64_t i, int64_t j) {
  return g->pnum[hm_dense_owner_of(i, g->nb, g->nprow) * g->npcol + hm_dense_owner_of(j, g->nb, g->npcol)];
}

int hm_dense_transfer_plan(const struct hm_matrix_s *M, const hm_dense_grid *g, int mirror, hm_dense_transfer *t) {
  const int P = M->ctx->size;
  hm_dense_entry *e = NULL;
  int64_t count = 0;
  HM_CALL(hm_dense_lower_entries(M, &e, &count));
  if (mirror) { /* the upper triangle's entries: conjugates of the strictly lower ones */
    int64_t strict = 0;
    for (int64_t p = 0; p < count; p++) strict += e[p].i != e[p].j;
    hm_dense_entry *both = realloc(e, sizeof *e * (size_t)(count + strict + 1));
    if (!both) { free(e); HM_RAISE(HM_ERR_MEMORY, "could not mirror %lld entries", (long long)strict); }
    e = both;
    for (int64_t p = 0, q = count; p < count; p++)
      if (e[p].i != e[p].j) e[q++] = (hm_dense_entry){e[p].j, e[p].i, e[p].re, -e[p].im};
    count += strict;
  }
  t->send = e;
  t->nsend = count;
  HM_MALLOC(t->scount, P);
  HM_MALLOC(t->rcount, P);
  HM_MALLOC(t->sdispl, P + 1);
  HM_MALLOC(t->rdispl, P + 1);
  int *dest;
  HM_MALLOC(dest, count + 1);
  for (int64_t p = 0; p < count; p++) {
    dest[p] = owner_rank(g, e[p].i, e[p].j);
    t->scount[dest[p]]++;
  }
  for (int r = 0; r < P; r++) t->sdispl[r + 1] = t->sdispl[r] + (MPI_Aint)t->scount[r];
  hm_dense_entry *sorted = malloc(sizeof *sorted * (size_t)(count + 1));
  MPI_Aint *at = malloc(sizeof *at * (size_t)P);
  if (!sorted || !at) { free(sorted); free(at); free(dest); HM_RAISE(HM_ERR_MEMORY, "could not sort %lld entries", (long long)count); }
  memcpy(at, t->sdispl, sizeof *at * (size_t)P);
  for (int64_t p = 0; p < count; p++) sorted[at[dest[p]]++] = e[p];
  free(at);
  free(dest);
  free(e);
  t->send = sorted;
  HM_CALL_MPI(MPI_Alltoall(t->scount, 1, MPI_COUNT, t->rcount, 1, MPI_COUNT, M->ctx->comm));
  for (int r = 0; r < P; r++) t->rdispl[r + 1] = t->rdispl[r] + (MPI_Aint)t->rcount[r];
  t->nrecv = (int64_t)t->rdispl[P];
  return HM_SUCCESS;
}

int hm_dense_transfer_run(const struct hm_matrix_s *M, const hm_dense_grid *g, hm_dense_transfer *t, double *loc) {
  HM_MALLOC(t->recv, t->nrecv + 1);
  MPI_Datatype type;
  HM_CALL(hm_dense_entry_type(&type));
  int st = MPI_Alltoallv_c(t->send, t->scount, t->sdispl, type, t->recv, t->rcount, t->rdispl, type, M->ctx->comm);
  MPI_Type_free(&type);
  HM_CHECK(st == MPI_SUCCESS, HM_ERR_MPI, "MPI_Alltoallv_c of the matrix entries failed");
  for (int64_t p = 0; p < t->nrecv; p++) {
    const hm_dense_entry *e = &t->recv[p];
    size_t at = (size_t)(hm_dense_local_of(e->j, g->nb, g->npcol) * g->lld + hm_dense_local_of(e->i, g->nb, g->nprow));
    if (M->type == HM_REAL) loc[at] = e->re;
    else { loc[2 * at] = e->re; loc[2 * at + 1] = e->im; }
  }
  hm_dense_transfer_free(t);
  return HM_SUCCESS;
}

int hm_dense_vectors_to_rows(const struct hm_matrix_s *A, const hm_dense_grid *g, const double *zloc, struct hm_mvec_s *Z) {
  hm_context *ctx = A->ctx;
  const int P = ctx->size, type = (int)A->type;
  const int64_t n = g->n, f = A->dist.first, l = A->dist.local;
  MPI_Count *sc = NULL, *rc = NULL;
  MPI_Aint *sd = NULL, *rd = NULL;
  double *sbuf = NULL, *rbuf = NULL, *rm = NULL;
  int64_t *rows = NULL, *cols = NULL;
  int st = HM_SUCCESS;
  if (!(sc = calloc((size_t)P, sizeof *sc)) || !(rc = calloc((size_t)P, sizeof *rc)) ||
      !(sd = calloc((size_t)P + 1, sizeof *sd)) || !(rd = calloc((size_t)P + 1, sizeof *rd)) ||
      !(sbuf = hm_alloc_large(sizeof(double) * (size_t)type * (size_t)g->mloc * (size_t)g->nloc + 8)) ||
      !(rbuf = hm_alloc_large(sizeof(double) * (size_t)(type * l * n) + 8)) ||
      !(rm = hm_alloc_large(sizeof(double) * (size_t)(type * l * n) + 8)) ||
      !(rows = malloc(sizeof(int64_t) * (size_t)(l + n + 1))) || !(cols = malloc(sizeof(int64_t) * (size_t)(n + 1)))) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the eigenvector buffers");
    goto done;
  }
  /* Send: to rank r the local rows whose global rows are r's (a contiguous run of local rows),
   * column by column. */
  MPI_Aint at = 0;
  for (int r = 0; r < P; r++) {
    const int64_t fr = A->dist.offsets[r], er = A->dist.offsets[r + 1];
    int64_t lo = 0, hi = 0;
    while (lo < g->mloc && hm_dense_global_of(lo, g->nb, g->myrow, g->nprow) < fr) lo++;
    hi = lo;
    while (hi < g->mloc && hm_dense_global_of(hi, g->nb, g->myrow, g->nprow) < er) hi++;
    sd[r] = at;
    const int64_t run = (hi - lo) * type; /* a column's rows for r, contiguous in zloc */
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < g->nloc; c++)
      if (run) memcpy(sbuf + at + c * run, zloc + (size_t)((c * g->lld + lo) * type), sizeof(double) * (size_t)run);
    at += (MPI_Aint)(run * g->nloc);
    sc[r] = (MPI_Count)(at - sd[r]);
  }
  /* Receive: from grid position (pr, pc) my rows that pr owns times the columns pc owns. */
  at = 0;
  for (int pr = 0; pr < g->nprow; pr++)
    for (int pc = 0; pc < g->npcol; pc++) {
      const int s = g->pnum[pr * g->npcol + pc];
      int64_t nr = 0, ncol = hm_dense_numroc(g->n, g->nb, pc, g->npcol);
      for (int64_t i = f; i < f + l; i++) nr += hm_dense_owner_of(i, g->nb, g->nprow) == pr;
      rd[s] = at;
      rc[s] = (MPI_Count)(nr * ncol * type);
      at += (MPI_Aint)rc[s];
    }
  if (MPI_Alltoallv_c(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, ctx->comm) != MPI_SUCCESS) {
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Alltoallv_c of the eigenvectors failed");
    goto done;
  }
  for (int pr = 0; pr < g->nprow; pr++)
    for (int pc = 0; pc < g->npcol; pc++) {
      const int s = g->pnum[pr * g->npcol + pc];
      int64_t nr = 0, ncol = hm_dense_numroc(g->n, g->nb, pc, g->npcol);
      for (int64_t i = f; i < f + l; i++)
        if (hm_dense_owner_of(i, g->nb, g->nprow) == pr) rows[nr++] = i - f;
      for (int64_t c = 0; c < ncol; c++) cols[c] = hm_dense_global_of(c, g->nb, pc, g->npcol);
      const double *src = rbuf + rd[s]; /* column-major nr x ncol to row-major rows: in tiles, so that
                                          * neither side strides through memory an entry at a time */
      const int64_t tile = 64;
#pragma omp parallel for schedule(static)
      for (int64_t c0 = 0; c0 < ncol; c0 += tile)
        for (int64_t i0 = 0; i0 < nr; i0 += tile)
          for (int64_t i = i0; i < nr && i < i0 + tile; i++)
            for (int64_t c = c0; c < ncol && c < c0 + tile; c++)
              for (int k = 0; k < type; k++) rm[(rows[i] * n + cols[c]) * type + k] = src[(c * nr + i) * type + k];
    }
  HM_CALL_GOTO(st, done, hm_mvec_set(Z, rm));
done:
  free(sc); free(rc); free(sd); free(rd); free(sbuf); free(rbuf); free(rm); free(rows); free(cols);
  return st;
}

