/* CPU kernel of multi-shift IDR(s): one pass over the rows updates every shift's newest direction
 * and iterate, w = a v + sum_l c_l D_l, D_new = w, x += w. Each row reads its seed entries v[i, :]
 * once for all ns shifts; complex arithmetic is written out in real and imaginary parts (C's
 * complex multiply calls a NaN-handling routine). Rows are split statically over the threads; no
 * sums, so the result does not depend on the thread count. */
#include "error_macros.h"
#include "kernels_cpu_shift.h"

int hm_cpu_idr_shift_update(hm_scalar type, int64_t n, int nv, int ns, int m, const double *v, const double *a,
                            const double *const *D, const double *c, double *Dnew, double *x) {
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT, "the multi-shift update is complex only (type %d)", (int)type);
  HM_CHECK(m >= 0 && m <= 64, HM_ERR_ARGUMENT, "m = %d directions: must be 0 <= m <= 64", m);
  const int K = nv * ns;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const double *vi = v + 2 * i * nv;
    for (int col = 0; col < K; col++) {
      const int j = col % nv;
      const size_t e = 2 * ((size_t)i * K + col);
      double wr = a[2 * col] * vi[2 * j] - a[2 * col + 1] * vi[2 * j + 1];
      double wi = a[2 * col] * vi[2 * j + 1] + a[2 * col + 1] * vi[2 * j];
      for (int l = 0; l < m; l++) {
        const double cr = c[2 * ((size_t)l * K + col)], ci = c[2 * ((size_t)l * K + col) + 1];
        const double dr = D[l][e], di = D[l][e + 1];
        wr += cr * dr - ci * di;
        wi += cr * di + ci * dr;
      }
      Dnew[e] = wr;
      Dnew[e + 1] = wi;
      x[e] += wr;
      x[e + 1] += wi;
    }
  }
  return HM_SUCCESS;
}
