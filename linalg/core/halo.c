/* Halo plan and nonblocking exchange. Remote columns are numbered after the local rows in
 * ascending global order, so the entries from one owner form one contiguous receive. */
#include <limits.h>
#include <string.h>
#include "error_macros.h"
#include "halo.h"
#include "halo_peer.h"
#include "mpi_large.h"
#include "mpi_waitall.h"

static int owner_of(const struct hm_dist_s *d, int nranks, int64_t g) {
  int lo = 0, hi = nranks - 1;
  while (lo < hi) { /* last rank whose first row <= g */
    int mid = (lo + hi + 1) / 2;
    if (d->offsets[mid] <= g) lo = mid; else hi = mid - 1;
  }
  return lo;
}

int hm_halo_check_asked(MPI_Comm comm, const int *give, int nranks) {
  /* give sums the rows every other rank asks of this one (repeats counted): past INT_MAX with a
   * dense column block on many ranks, where one plan's int offsets end. All ranks refuse together. */
  int rank;
  HM_CALL_MPI(MPI_Comm_rank(comm, &rank));
  int64_t asked_total = 0;
  for (int r = 0; r < nranks; r++) asked_total += give[r];
  int too_many = asked_total > INT_MAX, any_too_many = 0;
  HM_CALL_MPI(MPI_Allreduce(&too_many, &any_too_many, 1, MPI_INT, MPI_MAX, comm));
  HM_CHECK(!too_many, HM_ERR_ARGUMENT,
           "halo plan: the other ranks ask rank %d for %lld rows in all, more than the %d one plan indexes",
           rank, (long long)asked_total, INT_MAX);
  HM_CHECK(!any_too_many, HM_ERR_ARGUMENT, "halo plan: another rank is asked for more than %d rows in all", INT_MAX);
  return HM_SUCCESS;
}

int hm_halo_plan(struct hm_matrix_s *A, const int64_t *remote_cols, int32_t nremote) {
  hm_context *ctx = A->ctx;
  hm_halo *h = &A->halo;
  const int P = ctx->size;
  int *need, *give, *need_disp, *give_disp;
  HM_MALLOC(need, P);
  HM_MALLOC(give, P);
  HM_MALLOC(need_disp, P + 1);
  HM_MALLOC(give_disp, P + 1);
  for (int32_t i = 0; i < nremote; i++) need[owner_of(&A->dist, P, remote_cols[i])]++;
  HM_CALL_MPI(MPI_Alltoall(need, 1, MPI_INT, give, 1, MPI_INT, ctx->comm));
  int st = hm_halo_check_asked(ctx->comm, give, P);
  if (st) {
    free(need); free(give); free(need_disp); free(give_disp);
    HM_CALL(st);
  }
  for (int r = 0; r < P; r++) {
    need_disp[r + 1] = need_disp[r] + need[r];
    give_disp[r + 1] = give_disp[r] + give[r];
  }
  int64_t *asked;
  HM_MALLOC(asked, give_disp[P] + 1);
  HM_CALL_MPI(MPI_Alltoallv(remote_cols, need, need_disp, MPI_INT64_T, asked, give, give_disp,
                            MPI_INT64_T, ctx->comm));
  h->nhalo = nremote;
  for (int r = 0; r < P; r++) {
    if (need[r]) h->nrecv_ranks++;
    if (give[r]) h->nsend_ranks++;
  }
  HM_MALLOC(h->recv_rank, h->nrecv_ranks + 1);
  HM_MALLOC(h->recv_start, h->nrecv_ranks + 1);
  HM_MALLOC(h->send_rank, h->nsend_ranks + 1);
  HM_MALLOC(h->send_start, h->nsend_ranks + 1);
  HM_MALLOC(h->send_rows, give_disp[P] + 1);
  HM_MALLOC(h->requests, h->nrecv_ranks + h->nsend_ranks + 1);
  h->request_capacity = h->nrecv_ranks + h->nsend_ranks + 1;
  for (int r = 0, i = 0, j = 0; r < P; r++) {
    if (need[r]) { h->recv_rank[i] = r; h->recv_start[i] = need_disp[r]; h->recv_start[++i] = need_disp[r + 1]; }
    if (give[r]) { h->send_rank[j] = r; h->send_start[j] = give_disp[r]; h->send_start[++j] = give_disp[r + 1]; }
  }
  for (int i = 0; i < give_disp[P]; i++) {
    int64_t row = asked[i] - A->dist.first;
    HM_CHECK(row >= 0 && row < A->dist.local, HM_ERR_INTERNAL, "rank asked for row %lld it does not own", (long long)asked[i]);
    h->send_rows[i] = (int32_t)row;
  }
  free(asked);
  free(need); free(give); free(need_disp); free(give_disp);
  HM_CALL(hm_halo_peer_setup(A));
  return HM_SUCCESS;
}

void hm_halo_free(hm_halo *h, const hm_kernels *K) {
  hm_halo_peer_free(h, K);
  free(h->recv_rank); free(h->recv_start); free(h->send_rank); free(h->send_start);
  free(h->send_rows); free(h->requests);
  if (h->send_buf) K->host_release(h->send_buf);
  if (h->recv_buf) K->host_release(h->recv_buf);
  if (h->pack_buf) K->release(h->pack_buf);
  memset(h, 0, sizeof *h);
}

/* Grow a buffer to at least n doubles with the given allocator (backend or transfer memory). */
static int ensure(double **buf, size_t *len, size_t n, int (*alloc)(size_t, void **), void (*release)(void *)) {
  if (*len >= n) return HM_SUCCESS;
  if (*buf) release(*buf);
  *buf = NULL;
  *len = 0;
  HM_CALL(alloc(n * sizeof(double), (void **)buf));
  *len = n;
  return HM_SUCCESS;
}

/* Room for the requests of one exchange of rows of row_len doubles: a message longer than an int
 * count travels in pieces (mpi_large.h), one request each. */
static int ensure_requests(hm_halo *h, size_t row_len) {
  size_t n = 0;
  for (int i = 0; i < h->nrecv_ranks; i++) n += hm_mpi_pieces((size_t)(h->recv_start[i + 1] - h->recv_start[i]) * row_len);
  for (int i = 0; i < h->nsend_ranks; i++) n += hm_mpi_pieces((size_t)(h->send_start[i + 1] - h->send_start[i]) * row_len);
  HM_CHECK(n <= INT_MAX, HM_ERR_ARGUMENT, "a halo exchange of %zu messages exceeds MPI's int request count", n);
  if ((int)n > h->request_capacity) {
    MPI_Request *r = realloc(h->requests, sizeof *r * n);
    HM_CHECK(r, HM_ERR_MEMORY, "could not allocate %zu MPI requests", n);
    h->requests = r;
    h->request_capacity = (int)n;
  }
  h->nrequests = (int)n;
  return HM_SUCCESS;
}

int hm_halo_begin(struct hm_matrix_s *A, struct hm_mvec_s *x) {
  hm_halo *h = &A->halo;
  if (h->nrecv_ranks == 0 && h->nsend_ranks == 0) return HM_SUCCESS;
  HM_CALL(hm_mvec_reserve_halo(x, h->nhalo));
  const hm_kernels *K = A->ctx->kernels;
  const int staged = K->device_memory;
  const size_t row_len = (size_t)x->k * (size_t)x->type; /* doubles per row */
  const size_t nsend = (size_t)h->send_start[h->nsend_ranks];
  if (h->peer) { /* device to device: pack_buf is read by the receivers themselves */
    HM_CALL(hm_halo_peer_wait_read(h));
    /* Whole 2 MiB units: CUDA may carve smaller allocations out of a shared block, and a peer
     * would map that block from its start, not our buffer. */
    const size_t unit = ((size_t)2 << 20) / sizeof(double);
    HM_CALL(ensure(&h->pack_buf, &h->pack_buf_len, (nsend * row_len + unit) / unit * unit, K->alloc, K->release));
    HM_CALL(hm_halo_peer_begin(A, x, row_len));
    return HM_SUCCESS;
  }
  HM_CALL(ensure(&h->send_buf, &h->send_buf_len, nsend * row_len + 1, K->host_alloc, K->host_release));
  if (staged) {
    HM_CALL(ensure(&h->pack_buf, &h->pack_buf_len, nsend * row_len + 1, K->alloc, K->release));
    HM_CALL(ensure(&h->recv_buf, &h->recv_buf_len, (size_t)h->nhalo * row_len + 1, K->host_alloc, K->host_release));
  }
  /* Received rows land in the block's halo rows, or in a host buffer uploaded by hm_halo_end. */
  double *recv_base = staged ? h->recv_buf : x->data + (size_t)x->dist.local * row_len;
  h->receiving = x;
  MPI_Comm comm = A->ctx->comm;
  HM_CALL(ensure_requests(h, row_len));
  size_t q = 0;
  for (int i = 0; i < h->nrecv_ranks; i++) {
    const size_t count = (size_t)(h->recv_start[i + 1] - h->recv_start[i]) * row_len;
    HM_CALL(hm_mpi_irecv_large(recv_base + (size_t)h->recv_start[i] * row_len, count, MPI_DOUBLE, h->recv_rank[i],
                               17, comm, &h->requests[q]));
    q += hm_mpi_pieces(count);
  }
  /* Device blocks: one kernel packs the rows to send, then a blocking copy to the page-locked
   * host buffer (no copy stream yet: the product does not overlap this copy on GPUs). */
  if (staged) {
    HM_CALL(K->pack_rows(x->type, x->k, A->exec_send_rows, (int32_t)nsend, x->data, h->pack_buf));
    HM_CALL(K->download(h->send_buf, h->pack_buf, nsend * row_len * sizeof(double)));
  } else {
    HM_CALL(K->pack_rows(x->type, x->k, h->send_rows, (int32_t)nsend, x->data, h->send_buf));
  }
  for (int i = 0; i < h->nsend_ranks; i++) {
    double *src = h->send_buf + (size_t)h->send_start[i] * row_len;
    const size_t count = (size_t)(h->send_start[i + 1] - h->send_start[i]) * row_len;
    HM_CALL(hm_mpi_isend_large(src, count, MPI_DOUBLE, h->send_rank[i], 17, comm, &h->requests[q]));
    q += hm_mpi_pieces(count);
  }
  return HM_SUCCESS;
}

int hm_halo_end(struct hm_matrix_s *A) {
  hm_halo *h = &A->halo;
  int n = h->nrecv_ranks + h->nsend_ranks;
  if (n == 0) return HM_SUCCESS;
  if (h->peer) {
    HM_CALL(hm_halo_peer_end(A));
    return HM_SUCCESS;
  }
  HM_CALL_MPI(hm_mpi_waitall(h->nrequests, h->requests));
  const hm_kernels *K = A->ctx->kernels;
  struct hm_mvec_s *x = h->receiving;
  if (K->device_memory && h->nhalo) {
    const size_t row_len = (size_t)x->k * (size_t)x->type;
    HM_CALL(K->upload(x->data + (size_t)x->dist.local * row_len, h->recv_buf, (size_t)h->nhalo * row_len * sizeof(double)));
  }
  h->receiving = NULL;
  return HM_SUCCESS;
}
