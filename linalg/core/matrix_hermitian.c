/* The Hermitian defect of an assembled matrix, max |a_ij - conj(a_ji)|, and the refusal of a
 * matrix that is not Hermitian by the solvers that need one. An entry whose partner row lives on
 * another rank is sent there (over the halo's neighbours: the ranks owning my remote columns are
 * exactly those I receive halo rows from), so the answer does not depend on the rank count. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "error_macros.h"
#include "objects.h"
#include "hermitian_worst.h"
#include "matrix_hermitian.h"
#include "mpi_large.h"
#include "mpi_waitall.h"

/* An entry a_ij sent to the owner of row j, which compares it with its a_ji. */
typedef struct { int64_t row, col; double re, im; } far_entry;

static int64_t global_col(const struct hm_matrix_s *M, const int64_t *remote, int32_t c) {
  return c < M->csr.nrows ? M->dist.first + c : remote[c - M->csr.nrows];
}

/* Position of global column g in local row r (entries sorted by global column), -1 if absent. */
static int64_t find_entry(const struct hm_matrix_s *M, const int64_t *remote, int32_t r, int64_t g) {
  int64_t lo = M->csr.rowptr[r], hi = M->csr.rowptr[r + 1] - 1;
  while (lo <= hi) {
    const int64_t mid = lo + (hi - lo) / 2, at = global_col(M, remote, M->csr.col[mid]);
    if (at == g) return mid;
    if (at < g) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

static double complex value_at(const struct hm_matrix_s *M, int64_t p) {
  if (p < 0) return 0;
  const double *v = M->csr.val + (size_t)M->type * (size_t)p;
  return M->type == HM_COMPLEX ? v[0] + I * v[1] : v[0];
}

/* a_ij (row gi, column gj) against a_ji in my local row gj - first. */
static double defect_of(const struct hm_matrix_s *M, const int64_t *remote, int64_t gi, int64_t gj, double complex a) {
  const double complex b = value_at(M, find_entry(M, remote, (int32_t)(gj - M->dist.first), gi));
  return cabs(a - conj(b));
}

/* Pairs whose partner is on this rank; the largest |a| too. */
static void local_pairs(const struct hm_matrix_s *M, const int64_t *remote, hm_hermitian_worst *out, double *largest) {
  const hm_csr *c = &M->csr;
  hm_hermitian_worst w = {0, 0, 0};
  double big = 0;
#pragma omp parallel
  {
    hm_hermitian_worst mine = {0, 0, 0};
    double my_big = 0;
#pragma omp for schedule(dynamic, 4096)
    for (int32_t r = 0; r < c->nrows; r++) {
      const int64_t gi = M->dist.first + r;
      for (int64_t p = c->rowptr[r]; p < c->rowptr[r + 1]; p++) {
        const double complex a = value_at(M, p);
        my_big = fmax(my_big, cabs(a));
        if (c->col[p] >= c->nrows) continue; /* partner elsewhere: far_pairs */
        hm_hermitian_keep_worse(&mine, defect_of(M, remote, gi, M->dist.first + c->col[p], a), gi, M->dist.first + c->col[p]);
      }
    }
#pragma omp critical
    {
      hm_hermitian_keep_worse(&w, mine.defect, mine.row, mine.col);
      big = fmax(big, my_big);
    }
  }
  *out = w;
  *largest = big;
}

/* Entries with a remote column, grouped by the halo peer that owns it (recv_start gives the slots). */
static int pack_far(const struct hm_matrix_s *M, const int64_t *remote, far_entry **out, int64_t **out_start) {
  const hm_csr *c = &M->csr;
  const hm_halo *h = &M->halo;
  int64_t *start;
  HM_MALLOC(start, h->nrecv_ranks + 1);
  int64_t *fill = calloc((size_t)h->nrecv_ranks + 1, sizeof *fill);
  far_entry *e = NULL;
  int64_t total = 0;
  if (!fill) {
    free(start);
    HM_RAISE(HM_ERR_MEMORY, "could not allocate %d peer counters", h->nrecv_ranks);
  }
  /* Peer of halo slot s: the i with recv_start[i] <= s < recv_start[i + 1]. */
  for (int pass = 0; pass < 2; pass++) {
    for (int32_t r = 0; r < c->nrows; r++)
      for (int64_t p = c->rowptr[r]; p < c->rowptr[r + 1]; p++) {
        if (c->col[p] < c->nrows) continue;
        const int32_t s = c->col[p] - c->nrows;
        int lo = 0, hi = h->nrecv_ranks - 1;
        while (lo < hi) {
          const int mid = (lo + hi + 1) / 2;
          if (h->recv_start[mid] <= s) lo = mid; else hi = mid - 1;
        }
        if (pass == 0) { fill[lo]++; continue; }
        const double complex a = value_at(M, p);
        e[start[lo] + fill[lo]++] = (far_entry){remote[s], M->dist.first + r, creal(a), cimag(a)};
      }
    if (pass == 0) {
      start[0] = 0;
      for (int i = 0; i < h->nrecv_ranks; i++) start[i + 1] = start[i] + fill[i];
      total = start[h->nrecv_ranks];
      memset(fill, 0, sizeof *fill * ((size_t)h->nrecv_ranks + 1));
      e = malloc(sizeof *e * (size_t)(total + 1));
      if (!e) {
        free(fill);
        free(start);
        HM_RAISE(HM_ERR_MEMORY, "could not allocate %lld off-rank entries", (long long)total);
      }
    }
  }
  free(fill);
  *out = e;
  *out_start = start;
  return HM_SUCCESS;
}

/* Sends my far entries to their partners' owners and compares the entries others send me. */
static int far_pairs(const struct hm_matrix_s *M, const int64_t *remote, hm_hermitian_worst *w) {
  const hm_halo *h = &M->halo;
  const int nout = h->nrecv_ranks, nin = h->nsend_ranks;
  MPI_Comm comm = M->ctx->comm;
  far_entry *out = NULL, *in = NULL;
  int64_t *out_start = NULL, *in_count = NULL, *in_start = NULL;
  MPI_Request *req = NULL;
  int st = HM_SUCCESS;
  HM_CALL(pack_far(M, remote, &out, &out_start));
  in_count = calloc((size_t)nin + 1, sizeof *in_count);
  in_start = calloc((size_t)nin + 1, sizeof *in_start);
  req = malloc(sizeof *req * ((size_t)nin + (size_t)nout + 1));
  if (!in_count || !in_start || !req) {
    st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate the exchange of %d peers",
                        nin + nout);
    goto done;
  }
  int64_t *out_count = malloc(sizeof *out_count * ((size_t)nout + 1));
  if (!out_count) { st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %d counts", nout); goto done; }
  for (int i = 0; i < nout; i++) out_count[i] = out_start[i + 1] - out_start[i];
  int q = 0;
  for (int i = 0; i < nin && !st; i++) st = MPI_Irecv(&in_count[i], 1, MPI_INT64_T, h->send_rank[i], 23, comm, &req[q++]);
  for (int i = 0; i < nout && !st; i++) st = MPI_Isend(&out_count[i], 1, MPI_INT64_T, h->recv_rank[i], 23, comm, &req[q++]);
  if (!st) st = hm_mpi_waitall(q, req);
  free(out_count);
  if (st) { st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI error %d exchanging entry counts", st); goto done; }
  for (int i = 0; i < nin; i++) in_start[i + 1] = in_start[i] + in_count[i];
  in = malloc(sizeof *in * (size_t)(in_start[nin] + 1));
  size_t pieces = 0;
  for (int i = 0; i < nin; i++) pieces += hm_mpi_pieces(sizeof *in * (size_t)in_count[i]);
  for (int i = 0; i < nout; i++) pieces += hm_mpi_pieces(sizeof *out * (size_t)(out_start[i + 1] - out_start[i]));
  MPI_Request *r = realloc(req, sizeof *r * (pieces + 1));
  if (!in || !r) { st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "could not allocate %lld received entries", (long long)in_start[nin]); goto done; }
  req = r;
  size_t p = 0;
  for (int i = 0; i < nin && !st; i++) {
    const size_t bytes = sizeof *in * (size_t)in_count[i];
    st = hm_mpi_irecv_large(in + in_start[i], bytes, MPI_BYTE, h->send_rank[i], 24, comm, req + p);
    p += hm_mpi_pieces(bytes);
  }
  for (int i = 0; i < nout && !st; i++) {
    const size_t bytes = sizeof *out * (size_t)(out_start[i + 1] - out_start[i]);
    st = hm_mpi_isend_large(out + out_start[i], bytes, MPI_BYTE, h->recv_rank[i], 24, comm, req + p);
    p += hm_mpi_pieces(bytes);
  }
  if (st) goto done;
  if (hm_mpi_waitall((int)p, req)) {
    st = hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "MPI error exchanging off-rank entries");
    goto done;
  }
  for (int64_t e = 0; e < in_start[nin]; e++) {
    const far_entry *f = &in[e]; /* a_{f->col, f->row} of the sender; my row is f->row */
    hm_hermitian_keep_worse(w, defect_of(M, remote, f->col, f->row, f->re + I * f->im), f->col, f->row);
  }
done:
  free(out);
  free(out_start);
  free(in);
  free(in_count);
  free(in_start);
  free(req);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}

int hm_matrix_measure_hermitian(struct hm_matrix_s *M, const int64_t *remote) {
  hm_hermitian_worst w;
  double largest;
  local_pairs(M, remote, &w, &largest);
  HM_CALL(far_pairs(M, remote, &w));
  /* Every rank's worst pair (row and column fit a double exactly: below 2^50), then the worst of all. */
  const int P = M->ctx->size;
  double mine[4] = {w.defect, (double)w.row, (double)w.col, largest}, *all;
  HM_MALLOC(all, 4 * (size_t)P);
  const int st = MPI_Allgather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, M->ctx->comm);
  if (st) {
    free(all);
    HM_RAISE(HM_ERR_MPI, "MPI error %d gathering the Hermitian defect", st);
  }
  hm_hermitian_worst g = {0, 0, 0};
  double big = 0;
  for (int r = 0; r < P; r++) {
    hm_hermitian_keep_worse(&g, all[4 * r], (int64_t)all[4 * r + 1], (int64_t)all[4 * r + 2]);
    big = fmax(big, all[4 * r + 3]);
  }
  free(all);
  M->hermitian_defect = g.defect;
  M->defect_row = g.row;
  M->defect_col = g.col;
  M->largest_entry = big;
  return HM_SUCCESS;
}

int hm_matrix_require_hermitian(const hm_matrix *A, const char *who) {
  HM_CHECK(A, HM_ERR_ARGUMENT, "A is NULL");
  if (A->hermitian_defect <= HM_HERMITIAN_RTOL * A->largest_entry) return HM_SUCCESS;
  const char *what = A->type == HM_COMPLEX ? "Hermitian" : "symmetric";
  HM_RAISE(HM_ERR_INPUT,
           "%s needs a %s matrix, but %s%s%sis not: the largest |a_ij - conj(a_ji)| is %.6g at (i, j) = (%lld, %lld) "
           "(1-based), above %g x the largest |a_ij| (%.6g); IDR accepts non-symmetric matrices",
           who, what, A->source[0] ? "the matrix of " : "the matrix ", A->source, A->source[0] ? " " : "",
           A->hermitian_defect, (long long)A->defect_row + 1, (long long)A->defect_col + 1, HM_HERMITIAN_RTOL,
           A->largest_entry);
}

void hm_matrix_set_source(hm_matrix *A, const char *path) {
  if (A) snprintf(A->source, sizeof A->source, "%s", path ? path : "");
}
