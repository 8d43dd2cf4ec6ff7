/* Status codes and error messages of the hamlet C API.
 * Every public function returns an int status: 0 (HM_SUCCESS) or one of the codes below.
 * The text of the last failure, with a traceback line per frame it passed, is kept per thread. */
#ifndef HAMLET_ERROR_H
#define HAMLET_ERROR_H
#include "export.h"

/* X(name, value, short description): the one list of codes. */
#define HM_ERROR_LIST(X)                                            \
  X(HM_SUCCESS, 0, "success")                                       \
  X(HM_ERR_ARGUMENT, 1, "invalid argument")                         \
  X(HM_ERR_MEMORY, 2, "out of memory")                              \
  X(HM_ERR_MPI, 3, "MPI failure")                                   \
  X(HM_ERR_HDF5, 4, "HDF5 failure")                                 \
  X(HM_ERR_CUDA, 5, "CUDA failure")                                 \
  X(HM_ERR_BACKEND, 6, "backend not available")                     \
  X(HM_ERR_DECK, 7, "invalid input deck")                           \
  X(HM_ERR_IO, 8, "file input/output failure")                      \
  X(HM_ERR_LAPACK, 9, "LAPACK failure")                             \
  X(HM_ERR_FFTW, 10, "FFTW failure")                                \
  X(HM_ERR_NUMERIC, 11, "numerical failure")                        \
  X(HM_ERR_MISMATCH, 12, "results differ beyond tolerance")         \
  X(HM_ERR_INTERNAL, 13, "internal error")                         \
  X(HM_ERR_NOT_CONVERGED, 14, "iterative solver did not converge")  \
  X(HM_ERR_BREAKDOWN, 15, "iterative solver broke down")             \
  X(HM_ERR_STOPPED, 16, "stopped on request (signal or walltime)")  \
  X(HM_ERR_INPUT, 17, "invalid input file")

#define HM_ERROR_ENUM_(name, value, text) name = value,
typedef enum { HM_ERROR_LIST(HM_ERROR_ENUM_) } hm_status;
#undef HM_ERROR_ENUM_

#ifdef __cplusplus
extern "C" {
#endif

/* Whole text of the last error raised on this thread ("" if none): message + traceback. */
HM_API const char *hm_error_message(void);
/* Short description of a status code. */
HM_API const char *hm_status_string(int status);
/* Forget the last error (a caller that handled a failure and goes on). */
HM_API void hm_error_clear(void);

#ifdef __cplusplus
}
#endif
#endif
