/* Halo exchange between device ranks of one node without host staging. Each sender packs its rows
 * into its device pack_buf and sends each receiver a small token (the buffer's peer handle and
 * where that receiver's rows lie in it); the receiver maps the buffer (once per handle) and reads
 * its rows device to device, then sends back an acknowledgement. A sender repacks only after
 * every receiver acknowledged the previous exchange, so a buffer is never overwritten while read.
 * MPI carries only the tokens; the rows never touch host memory. Messages of one kind match in
 * order per (rank, tag), as every rank runs its exchanges in the same order. */
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "halo_peer.h"
#include "mpi_waitall.h"

enum { tag_ready = 18, tag_read = 19 };

typedef struct {
  unsigned char handle[HM_PEER_HANDLE_BYTES];
  uint64_t offset; /* bytes into the sender's pack_buf */
  uint64_t bytes;
} peer_token;

struct hm_halo_peer {
  peer_token *out;              /* per send rank */
  peer_token *in;               /* per recv rank */
  void **mapped;                /* per recv rank: the sender's pack_buf mapped here (NULL: none yet) */
  unsigned char (*mapped_handle)[HM_PEER_HANDLE_BYTES];
  const double *exported;       /* the pack_buf handle names, and its length: a regrown buffer may */
  size_t exported_len;          /* come back at the old address, yet needs a new handle */
  unsigned char handle[HM_PEER_HANDLE_BYTES];
  int *ack_in, ack_out;         /* acknowledgement payloads (contents unused); ack_in per send rank */
  MPI_Request *ready;           /* nrecv token receives, then nsend token sends */
  MPI_Request *read;            /* nsend acknowledgement receives, then nrecv acknowledgement sends */
  int read_pending;             /* read[] holds requests of the last exchange */
};

/* Every rank a device rank that can share memory, all on one node: the same answer on every rank
 * (one reduction). HAMLET_HALO_PEER=0 switches it off, =1 makes it required (an error where a
 * context of several device ranks cannot use it: a test knows which path it ran); unset: used
 * where possible. */
static int peer_possible(const hm_context *ctx, int *yes) {
  const hm_kernels *K = ctx->kernels;
  const char *env = getenv("HAMLET_HALO_PEER");
  const int off = env && strcmp(env, "0") == 0, required = env && strcmp(env, "1") == 0;
  HM_CHECK(!env || off || required || !*env, HM_ERR_ARGUMENT,
           "HAMLET_HALO_PEER is '%s'; allowed: 0 (off), 1 (required) or unset", env);
  const int capable =
      K->device_memory && K->peer_export && K->peer_open && K->peer_close && K->peer_read && K->synchronize;
  MPI_Comm node;
  HM_CALL_MPI(MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL, &node));
  int node_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  int mine[3] = {capable, node_size == ctx->size, K->device_memory}, all[3];
  HM_CALL_MPI(MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MIN, ctx->comm));
  HM_CHECK(!required || ctx->size == 1 || !all[2] || (all[0] && all[1]), HM_ERR_BACKEND,
           "HAMLET_HALO_PEER=1 asks for the device-to-device halo exchange, but %s",
           !all[0] ? "not every rank runs on a device backend with peer memory (CUDA)"
                   : "the ranks are not all on one node");
  *yes = all[0] && all[1] && !off;
  return HM_SUCCESS;
}

int hm_halo_peer_setup(struct hm_matrix_s *A) {
  hm_halo *h = &A->halo;
  int yes = 0;
  HM_CALL(peer_possible(A->ctx, &yes));
  if (!yes || A->ctx->size == 1) return HM_SUCCESS;
  struct hm_halo_peer *p = calloc(1, sizeof *p);
  HM_CHECK(p, HM_ERR_MEMORY, "no memory for the halo's peer state");
  h->peer = p;
  const int nr = h->nrecv_ranks, ns = h->nsend_ranks;
  HM_MALLOC(p->out, ns + 1);
  HM_MALLOC(p->in, nr + 1);
  HM_MALLOC(p->mapped, nr + 1);
  HM_MALLOC(p->mapped_handle, nr + 1);
  HM_MALLOC(p->ready, nr + ns + 1);
  HM_MALLOC(p->read, nr + ns + 1);
  HM_MALLOC(p->ack_in, ns + 1);
  for (int i = 0; i < nr + ns; i++) p->ready[i] = p->read[i] = MPI_REQUEST_NULL;
  return HM_SUCCESS;
}

void hm_halo_peer_free(hm_halo *h, const hm_kernels *K) {
  struct hm_halo_peer *p = h->peer;
  if (!p) return;
  /* The receivers acknowledge in their hm_halo_end, which comes before their destroy. */
  if (p->read_pending) hm_mpi_waitall(h->nrecv_ranks + h->nsend_ranks, p->read);
  for (int i = 0; i < h->nrecv_ranks; i++)
    if (p->mapped[i]) K->peer_close(p->mapped[i]);
  free(p->out); free(p->in); free(p->mapped); free(p->mapped_handle); free(p->ready); free(p->read);
  free(p->ack_in);
  free(p);
  h->peer = NULL;
}

int hm_halo_peer_wait_read(hm_halo *h) {
  struct hm_halo_peer *p = h->peer;
  if (p->read_pending) HM_CALL_MPI(hm_mpi_waitall(h->nrecv_ranks + h->nsend_ranks, p->read));
  p->read_pending = 0;
  return HM_SUCCESS;
}

int hm_halo_peer_begin(struct hm_matrix_s *A, struct hm_mvec_s *x, size_t row_len) {
  hm_halo *h = &A->halo;
  struct hm_halo_peer *p = h->peer;
  const hm_kernels *K = A->ctx->kernels;
  MPI_Comm comm = A->ctx->comm;
  const int nr = h->nrecv_ranks, ns = h->nsend_ranks;
  HM_CHECK(!p->read_pending, HM_ERR_INTERNAL, "the previous halo exchange was not yet read by every receiver");
  const size_t nsend = (size_t)h->send_start[ns];
  if (ns > 0) {
    HM_CALL(K->pack_rows(x->type, x->k, A->exec_send_rows, (int32_t)nsend, x->data, h->pack_buf));
    HM_CALL(K->synchronize()); /* the rows are in pack_buf before anyone is told to read them */
    if (p->exported != h->pack_buf || p->exported_len != h->pack_buf_len) { /* a new buffer: a new handle */
      HM_CALL(K->peer_export(h->pack_buf, p->handle));
      p->exported = h->pack_buf;
      p->exported_len = h->pack_buf_len;
    }
  }
  for (int i = 0; i < nr; i++)
    HM_CALL_MPI(MPI_Irecv(&p->in[i], (int)sizeof(peer_token), MPI_BYTE, h->recv_rank[i], tag_ready, comm, &p->ready[i]));
  for (int i = 0; i < ns; i++) {
    peer_token *t = &p->out[i];
    memcpy(t->handle, p->handle, sizeof t->handle);
    t->offset = (uint64_t)h->send_start[i] * row_len * sizeof(double);
    t->bytes = (uint64_t)(h->send_start[i + 1] - h->send_start[i]) * row_len * sizeof(double);
    HM_CALL_MPI(MPI_Isend(t, (int)sizeof *t, MPI_BYTE, h->send_rank[i], tag_ready, comm, &p->ready[nr + i]));
    HM_CALL_MPI(MPI_Irecv(&p->ack_in[i], 1, MPI_INT, h->send_rank[i], tag_read, comm, &p->read[i]));
  }
  p->read_pending = 1;
  h->receiving = x;
  return HM_SUCCESS;
}

int hm_halo_peer_end(struct hm_matrix_s *A) {
  hm_halo *h = &A->halo;
  struct hm_halo_peer *p = h->peer;
  const hm_kernels *K = A->ctx->kernels;
  struct hm_mvec_s *x = h->receiving;
  const int nr = h->nrecv_ranks, ns = h->nsend_ranks;
  const size_t row_len = (size_t)x->k * (size_t)x->type;
  HM_CALL_MPI(hm_mpi_waitall(nr + ns, p->ready));
  for (int i = 0; i < nr; i++) {
    const peer_token *t = &p->in[i];
    const uint64_t expected = (uint64_t)(h->recv_start[i + 1] - h->recv_start[i]) * row_len * sizeof(double);
    HM_CHECK(t->bytes == expected, HM_ERR_INTERNAL, "rank %d offers %llu halo bytes, %llu expected", h->recv_rank[i],
             (unsigned long long)t->bytes, (unsigned long long)expected);
    if (!p->mapped[i] || memcmp(p->mapped_handle[i], t->handle, sizeof t->handle) != 0) {
      if (p->mapped[i]) K->peer_close(p->mapped[i]);
      p->mapped[i] = NULL;
      HM_CALL(K->peer_open(t->handle, &p->mapped[i]));
      memcpy(p->mapped_handle[i], t->handle, sizeof t->handle);
    }
    double *dst = x->data + ((size_t)x->dist.local + (size_t)h->recv_start[i]) * row_len;
    HM_CALL(K->peer_read(dst, (const char *)p->mapped[i] + t->offset, t->bytes));
  }
  for (int i = 0; i < nr; i++)
    HM_CALL_MPI(MPI_Isend(&p->ack_out, 1, MPI_INT, h->recv_rank[i], tag_read, A->ctx->comm, &p->read[ns + i]));
  h->receiving = NULL;
  return HM_SUCCESS;
}
