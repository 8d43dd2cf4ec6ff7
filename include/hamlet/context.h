/* hm_context: the MPI communicator, backend and log level every hamlet object is made in. */
#ifndef HAMLET_CONTEXT_H
#define HAMLET_CONTEXT_H
#include "export.h"
#include <mpi.h>

/* MIXED: each rank takes CUDA where it sees a device (and CUDA is built), else the CPU; with
 * hm_context_set_weight, GPU ranks get more rows than CPU ranks. */
typedef enum { HM_BACKEND_AUTO = 0, HM_BACKEND_CPU = 1, HM_BACKEND_CUDA = 2, HM_BACKEND_MIXED = 3 } hm_backend;
typedef enum { HM_REAL = 1, HM_COMPLEX = 2 } hm_scalar; /* value = doubles per scalar */

typedef struct hm_context_s hm_context;

#ifdef __cplusplus
extern "C" {
#endif

/* Duplicates comm. AUTO picks CUDA where the CUDA backend is built, complete and a device is
 * visible, else CPU. Asking for CUDA where it is not available is an HM_ERR_BACKEND error. */
HM_API int hm_context_create(MPI_Comm comm, hm_backend backend, hm_context **ctx);
/* The same from a Fortran MPI communicator handle (MPI_Comm_c2f / mpi_f08 %MPI_VAL). */
HM_API int hm_context_create_f(MPI_Fint comm, int backend, hm_context **ctx);
/* A CUDA context on the given device of this node (0 .. visible count - 1; each rank names its
 * own), instead of the one hm_context_create picks from the rank's place on its node. Collective.
 * A device number that is not visible is an HM_ERR_ARGUMENT error naming the visible count (on
 * every rank: the ranks agree first); a hamlet built without CUDA answers HM_ERR_BACKEND. Several
 * contexts may share a device; the GPU state kept for a device is freed with its last context.
 * Each call for an object makes its context's device current on the calling thread and leaves it
 * current: a caller who calls cudaSetDevice between hamlet calls sets back the device it found. */
HM_API int hm_context_create_on_device(MPI_Comm comm, int device, hm_context **ctx);
HM_API int hm_context_create_on_device_f(MPI_Fint comm, int device, hm_context **ctx);
HM_API int hm_context_destroy(hm_context **ctx); /* also sets *ctx = NULL */
HM_API int hm_context_rank(const hm_context *ctx, int *rank, int *size);
HM_API int hm_context_backend(const hm_context *ctx, hm_backend *backend); /* the resolved backend */
/* The context's own communicator (a duplicate of the one given; valid until destroy): for the
 * caller's collectives among the same ranks. From Fortran use hm_context_comm_f (a Fortran handle). */
HM_API int hm_context_comm(const hm_context *ctx, MPI_Comm *comm);
HM_API int hm_context_comm_f(const hm_context *ctx, MPI_Fint *comm);
/* This rank's weight (default 1): hm_dist_create multiplies its weight argument by it, so the
 * Hamiltonian builders give this rank a share of the rows proportional to it (e.g. 4 on a GPU rank
 * next to 1 on CPU ranks). Not collective; set it before building. weight finite and > 0. */
HM_API int hm_context_set_weight(hm_context *ctx, double weight);
HM_API int hm_context_weight(const hm_context *ctx, double *weight);

#ifdef __cplusplus
}
#endif
#endif
