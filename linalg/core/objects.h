/* Internal layout of the core objects, shared by linalg/ and the backends. */
#ifndef HAMLET_OBJECTS_H
#define HAMLET_OBJECTS_H
/* physics/ and io/ sit above linalg: they reach these objects through the public accessors
 * (the headers of include/hamlet); cmake/Layering.cmake defines HAMLET_ABOVE_LINALG for their sources. */
#ifdef HAMLET_ABOVE_LINALG
#error "physics/ and io/ must not include linalg's objects.h: use the accessors of the public headers"
#endif
#include <stdint.h>
#include <stdlib.h>
#include <mpi.h>
#include "hamlet/context.h"
#include "hamlet/dist.h"
#include "hamlet/matrix.h"
#include "kernels.h"

struct hm_context_s {
  MPI_Comm comm;
  int rank, size;
  hm_backend backend;         /* resolved: CPU or CUDA */
  int device;                 /* CUDA device of this rank, -1 on the CPU backend */
  const hm_kernels *kernels;  /* the backend's table */
  double weight;              /* this rank's share multiplier for hm_dist_create (1) */
};

struct hm_dist_s {
  hm_context *ctx;
  int64_t n_global;
  int64_t *offsets; /* size+1 entries: rank r owns [offsets[r], offsets[r+1]) */
  int64_t first, local;
};

/* Local CSR; columns < local rows address owned entries, the rest the halo (local + h). */
typedef struct {
  int32_t nrows, ncols;
  int64_t *rowptr;
  int32_t *col;
  double *val; /* 1 or 2 doubles per entry */
} hm_csr;

/* Which remote entries a rank receives (sorted by owner) and which own rows it sends. */
typedef struct {
  int nrecv_ranks, nsend_ranks;
  int *recv_rank, *recv_start; /* recv_start[i]..recv_start[i+1]: halo slots from recv_rank[i] */
  int *send_rank, *send_start;
  int32_t *send_rows;          /* local rows to pack, grouped by send_rank */
  int32_t nhalo;
  double *send_buf;            /* packed rows (host), resized to the block width in use */
  size_t send_buf_len;
  /* Device backends without peer mode stage through host buffers: rows packed in device memory,
   * halo received on the host and uploaded into the block after the wait. */
  double *pack_buf, *recv_buf;
  size_t pack_buf_len, recv_buf_len;
  struct hm_mvec_s *receiving; /* block whose halo is in flight */
  MPI_Request *requests;
  /* Set where every rank is a device rank of one node: receivers read the rows straight from the
   * senders' pack_buf (halo_peer.c); NULL otherwise. */
  struct hm_halo_peer *peer;
  /* requests holds request_capacity; the exchange in flight uses nrequests (long messages take
   * several, mpi_large.h). */
  int request_capacity, nrequests;
} hm_halo;

struct hm_matrix_s {
  hm_context *ctx;
  struct hm_dist_s dist;   /* own copy */
  hm_scalar type;
  hm_csr csr;
  int64_t nnz_global;
  hm_halo halo;
  int32_t n_interior, n_boundary;
  int32_t *interior_rows, *boundary_rows; /* rows without / with halo columns */
  /* The same arrays in the backend's memory (aliases of the host ones on the CPU backend). */
  struct hm_csr_view exec;
  const int32_t *exec_interior, *exec_boundary, *exec_send_rows;
  hm_format format; /* hm_matrix_set_format: the format asked for, and SELL's sigma (0 = per matrix) */
  int sell_sigma;
  /* Measured while assembling (matrix_hermitian.c): the largest |a_ij - conj(a_ji)| over all
   * entries and where (global, 0-based), and the largest |a_ij|; solvers that need a Hermitian
   * matrix compare the two. source names the file the entries came from ("" if none). */
  double hermitian_defect, largest_entry;
  int64_t defect_row, defect_col;
  char source[256];
  /* Matrix-free lattice operator (stencil_free.h): no CSR, no row lists; NULL for stored matrices. */
  struct hm_stencil_part *stencil;
};

struct hm_mvec_s {
  hm_context *ctx;
  struct hm_dist_s dist;   /* own copy */
  hm_scalar type;
  int k;
  int32_t halo_capacity;   /* extra rows after the local ones, for a matrix's halo */
  double *data;            /* (local + halo_capacity) * k * type doubles, row-major */
};

int hm_dist_copy(const hm_dist *src, struct hm_dist_s *dst);
void hm_dist_free(struct hm_dist_s *d);
/* hm_mvec_create with room for nhalo halo rows after the local rows from the start: a block as
 * large as the device memory allows must not be copied to a larger one at its first product. */
int hm_mvec_create_with_halo(hm_context *ctx, const hm_dist *dist, hm_scalar type, int k, int32_t nhalo,
                             struct hm_mvec_s **v);
/* Make room for nhalo halo rows after the local rows (keeps the local values). */
int hm_mvec_reserve_halo(struct hm_mvec_s *v, int32_t nhalo);
#endif
