/* Internal error discipline (PETSc-like): raise with HM_CHECK, propagate with HM_CALL, which
 * appends a "file:line in func()" traceback line; foreign codes keep their own message. */
#ifndef HAMLET_ERROR_MACROS_H
#define HAMLET_ERROR_MACROS_H
#include <stdarg.h>
#include <stdlib.h>
#include "hamlet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
int hm_error_raise(int code, const char *file, int line, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int hm_error_trace(int code, const char *file, int line, const char *func);
int hm_error_raise_hdf5(const char *expr, const char *file, int line, const char *func);
#ifdef __cplusplus
}
#endif

#define HM_RAISE(code, ...) return hm_error_raise((code), __FILE__, __LINE__, __func__, __VA_ARGS__)

#define HM_CHECK(cond, code, ...)                                             \
  do {                                                                        \
    if (!(cond)) return hm_error_raise((code), __FILE__, __LINE__, __func__, __VA_ARGS__); \
  } while (0)

#define HM_CALL(expr)                                                         \
  do {                                                                        \
    int hm_status_ = (expr);                                                  \
    if (hm_status_) return hm_error_trace(hm_status_, __FILE__, __LINE__, __func__); \
  } while (0)

/* For cleanup paths: record the failure in `st` and jump to `label`. */
#define HM_CALL_GOTO(st, label, expr)                                         \
  do {                                                                        \
    (st) = (expr);                                                            \
    if (st) { (st) = hm_error_trace((st), __FILE__, __LINE__, __func__); goto label; } \
  } while (0)

#define HM_CALL_MPI(expr)                                                     \
  do {                                                                        \
    int hm_mpi_ = (expr);                                                     \
    if (hm_mpi_ != MPI_SUCCESS) {                                             \
      char hm_msg_[MPI_MAX_ERROR_STRING]; int hm_len_ = 0;                    \
      MPI_Error_string(hm_mpi_, hm_msg_, &hm_len_);                           \
      return hm_error_raise(HM_ERR_MPI, __FILE__, __LINE__, __func__, "%s failed: %s", #expr, hm_msg_); \
    }                                                                         \
  } while (0)

/* HDF5 calls return a negative value on failure; the innermost message of HDF5's stack is kept. */
#define HM_CALL_HDF5(expr)                                                    \
  do {                                                                        \
    if ((expr) < 0) return hm_error_raise_hdf5(#expr, __FILE__, __LINE__, __func__); \
  } while (0)

#define HM_MALLOC(ptr, count)                                                 \
  do {                                                                        \
    size_t hm_n_ = (size_t)(count);                                           \
    (ptr) = hm_n_ ? calloc(hm_n_, sizeof(*(ptr))) : NULL;                     \
    if (hm_n_ && !(ptr))                                                      \
      return hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__,     \
                            "could not allocate %zu bytes for %s", hm_n_ * sizeof(*(ptr)), #ptr); \
  } while (0)

#endif
