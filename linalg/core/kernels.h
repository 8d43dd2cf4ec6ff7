/* The kernel table a backend fills and the solvers call; a solver never branches on the backend.
 * Row lists select which local rows a product touches (interior rows while the halo is in
 * flight, boundary rows after it arrived). Vectors are row-major with k columns. */
#ifndef HAMLET_KERNELS_H
#define HAMLET_KERNELS_H
#include <stdint.h>
#include "hamlet/context.h"

struct hm_csr_view {
  int32_t nrows;
  const int64_t *rowptr;
  const int32_t *col;
  const double *val;
};

typedef struct {
  const char *name;
  /* y[rows] = A x[.] for the listed rows. */
  int (*spmmv)(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
               const double *x, double *y);
  /* KPM step for the listed rows: W = 2 scale (A - shift) V - W, accumulating per column
   * dvv[j] += <V_j|V_j>, dwv[j] += Re<W_j|V_j> (new W) over those rows. */
  int (*kpm_step)(hm_scalar type, const struct hm_csr_view *A, int k, const int32_t *rows, int32_t nrows,
                  double scale, double shift, const double *V, double *W, double *dvv, double *dwv);
  /* Local column-wise dots: dots[j] (+)= sum_i conj(x_ij) y_ij over n rows (type scalars). */
  int (*dot)(hm_scalar type, int64_t n, int k, const double *x, const double *y, double *dots);
  /* y = alpha x + beta y column-wise: alpha[j], beta[j] scalars of type. */
  int (*axpby)(hm_scalar type, int64_t n, int k, const double *alpha, const double *x,
               const double *beta, double *y);
  /* Gather rows into a packed buffer (halo send). */
  int (*pack_rows)(hm_scalar type, int k, const int32_t *rows, int32_t n, const double *x, double *buf);
} hm_kernels;

extern const hm_kernels hm_kernels_cpu;
#endif
