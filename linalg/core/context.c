/* hm_context: communicator, resolved backend, kernel table. */
#include <math.h>
#include <stdlib.h>
#include "error_macros.h"
#include "objects.h"
#include "gpu_probe.h"

/* The rank's index among the ranks of its node: ranks of one node share its GPUs round-robin. */
static int node_rank(MPI_Comm comm, int *rank) {
  MPI_Comm node;
  HM_CALL_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_Comm_rank(node, rank);
  MPI_Comm_free(&node);
  return HM_SUCCESS;
}

/* Collective (every rank must agree on auto): cuda where it is built and every rank sees a device;
 * mixed: cuda on the ranks that see one, cpu on the others. */
static int resolve_backend(MPI_Comm comm, hm_backend asked, hm_backend *resolved, int *device) {
  HM_CHECK(asked == HM_BACKEND_AUTO || asked == HM_BACKEND_CPU || asked == HM_BACKEND_CUDA ||
               asked == HM_BACKEND_MIXED,
           HM_ERR_ARGUMENT, "backend %d is not one of auto (0), cpu (1), cuda (2), mixed (3)", (int)asked);
  *resolved = HM_BACKEND_CPU;
  *device = -1;
  if (asked == HM_BACKEND_CPU) return HM_SUCCESS;
  int devices = 0, fewest = 0, local = 0;
  if (hm_gpu_compiled()) HM_CALL(hm_gpu_device_count(&devices));
  HM_CALL_MPI(MPI_Allreduce(&devices, &fewest, 1, MPI_INT, MPI_MIN, comm));
  if (asked == HM_BACKEND_AUTO && fewest == 0) return HM_SUCCESS;
  HM_CALL(node_rank(comm, &local)); /* collective: before any rank of a mixed run goes its own way */
  if (asked == HM_BACKEND_MIXED && devices == 0) return HM_SUCCESS; /* this rank computes on the CPU */
  HM_CHECK(hm_gpu_compiled(), HM_ERR_BACKEND,
           "backend = cuda asked, but this hamlet was built without CUDA (configure with nvcc "
           "present and -DHAMLET_CUDA=ON); allowed here: auto, cpu");
  HM_CHECK(devices > 0, HM_ERR_BACKEND,
           "backend = cuda asked, but no CUDA device is visible on this node; use backend = cpu or auto");
  HM_CHECK(fewest > 0 || asked == HM_BACKEND_MIXED, HM_ERR_BACKEND, "backend = cuda asked, but some rank sees no CUDA device; use backend = cpu or auto");
  HM_CALL(hm_gpu_select(local, device));
  *resolved = HM_BACKEND_CUDA;
  return HM_SUCCESS;
}

/* The context of a resolved backend and device (-1 on the CPU). */
static int make_context(MPI_Comm comm, hm_backend resolved, int device, hm_context **ctx) {
  hm_context *c;
  HM_MALLOC(c, 1);
  int st = MPI_Comm_dup(comm, &c->comm);
  if (st != MPI_SUCCESS) {
    free(c);
    HM_RAISE(HM_ERR_MPI, "MPI_Comm_dup of the given communicator failed");
  }
  /* MPI failures on the library's own communicator come back as statuses (HM_CALL_MPI), so callers
   * get an error on every rank instead of an abort; the caller's communicator keeps its handler */
  MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(c->comm, &c->rank);
  MPI_Comm_size(c->comm, &c->size);
  c->backend = resolved;
  c->device = device;
  /* a CUDA context's table makes its device current before each call */
  c->kernels = resolved == HM_BACKEND_CUDA ? hm_kernels_cuda_on(device) : &hm_kernels_cpu;
  c->weight = 1.0;
  if (resolved == HM_BACKEND_CUDA) {
    st = c->kernels ? hm_gpu_context_opened(device)
                    : hm_error_raise(HM_ERR_BACKEND, __FILE__, __LINE__, __func__,
                                     "CUDA device %d has no kernel table", device);
    if (st != HM_SUCCESS) {
      MPI_Comm_free(&c->comm);
      free(c);
      return hm_error_trace(st, __FILE__, __LINE__, __func__);
    }
  }
  *ctx = c;
  return HM_SUCCESS;
}

static int check_mpi_initialized(void) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  HM_CHECK(initialized, HM_ERR_MPI, "MPI is not initialized; call MPI_Init first");
  return HM_SUCCESS;
}

int hm_context_create(MPI_Comm comm, hm_backend backend, hm_context **ctx) {
  HM_CHECK(ctx, HM_ERR_ARGUMENT, "ctx is NULL");
  *ctx = NULL;
  HM_CALL(check_mpi_initialized());
  hm_backend resolved;
  int device;
  HM_CALL(resolve_backend(comm, backend, &resolved, &device));
  HM_CALL(make_context(comm, resolved, device, ctx));
  return HM_SUCCESS;
}

int hm_context_create_on_device(MPI_Comm comm, int device, hm_context **ctx) {
  HM_CHECK(ctx, HM_ERR_ARGUMENT, "ctx is NULL");
  *ctx = NULL;
  HM_CALL(check_mpi_initialized());
  /* each rank checks its own device, then the ranks agree before the collective MPI_Comm_dup, so
   * that a rank with a bad device number fails on every rank instead of leaving the others waiting */
  const int st = device >= 0 ? hm_gpu_bind(device)
                             : hm_error_raise(HM_ERR_ARGUMENT, __FILE__, __LINE__, __func__,
                                              "CUDA device %d asked: a device number is >= 0", device);
  int failed = st != HM_SUCCESS, any_failed = 0;
  HM_CALL_MPI(MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm));
  if (st != HM_SUCCESS) return hm_error_trace(st, __FILE__, __LINE__, __func__);
  HM_CHECK(!any_failed, HM_ERR_ARGUMENT, "another rank's CUDA device could not be used (its message says why)");
  HM_CALL(make_context(comm, HM_BACKEND_CUDA, device, ctx));
  return HM_SUCCESS;
}

int hm_context_create_f(MPI_Fint comm, int backend, hm_context **ctx) {
  HM_CALL(hm_context_create(MPI_Comm_f2c(comm), (hm_backend)backend, ctx));
  return HM_SUCCESS;
}

int hm_context_create_on_device_f(MPI_Fint comm, int device, hm_context **ctx) {
  HM_CALL(hm_context_create_on_device(MPI_Comm_f2c(comm), device, ctx));
  return HM_SUCCESS;
}

int hm_context_destroy(hm_context **ctx) {
  if (!ctx || !*ctx) return HM_SUCCESS;
  MPI_Comm_free(&(*ctx)->comm);
  /* the last on its device frees the GPU state kept for that device */
  if ((*ctx)->backend == HM_BACKEND_CUDA) hm_gpu_context_closed((*ctx)->device);
  free(*ctx);
  *ctx = NULL;
  return HM_SUCCESS;
}

int hm_context_rank(const hm_context *ctx, int *rank, int *size) {
  HM_CHECK(ctx, HM_ERR_ARGUMENT, "ctx is NULL");
  if (rank) *rank = ctx->rank;
  if (size) *size = ctx->size;
  return HM_SUCCESS;
}

int hm_context_backend(const hm_context *ctx, hm_backend *backend) {
  HM_CHECK(ctx && backend, HM_ERR_ARGUMENT, "ctx or backend is NULL");
  *backend = ctx->backend;
  return HM_SUCCESS;
}

int hm_context_comm(const hm_context *ctx, MPI_Comm *comm) {
  HM_CHECK(ctx && comm, HM_ERR_ARGUMENT, "ctx or comm is NULL");
  *comm = ctx->comm;
  return HM_SUCCESS;
}

int hm_context_comm_f(const hm_context *ctx, MPI_Fint *comm) {
  HM_CHECK(ctx && comm, HM_ERR_ARGUMENT, "ctx or comm is NULL");
  *comm = MPI_Comm_c2f(ctx->comm);
  return HM_SUCCESS;
}

int hm_context_set_weight(hm_context *ctx, double weight) {
  HM_CHECK(ctx, HM_ERR_ARGUMENT, "ctx is NULL");
  HM_CHECK(weight > 0 && isfinite(weight), HM_ERR_ARGUMENT, "weight = %g: must be finite and > 0", weight);
  ctx->weight = weight;
  return HM_SUCCESS;
}

int hm_context_weight(const hm_context *ctx, double *weight) {
  HM_CHECK(ctx && weight, HM_ERR_ARGUMENT, "ctx or weight is NULL");
  *weight = ctx->weight;
  return HM_SUCCESS;
}
