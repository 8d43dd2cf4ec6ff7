/* CPU kernel of multi-shift IDR(s): one pass over the rows updates the newest direction and the
 * iterate of every active shift, w = a v + sum_l c_l D_l, D_new = w, x += w; converged shifts'
 * columns are skipped (their cache lines are not read). Each row reads its seed entries v[i, :]
 * once for all shifts; complex arithmetic is written out in real and imaginary parts (C's complex
 * multiply calls a NaN-handling routine). Rows are split statically over the threads; no sums, so
 * the result does not depend on the thread count. */
#include "error_macros.h"
#include "kernels_cpu_shift.h"

int hm_cpu_idr_shift_update(hm_scalar type, int64_t n, int nv, int ns, int nact, const int *act, int m,
                            const double *v, const double *a, const double *const *D, const double *c, double *Dnew,
                            double *x) {
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT, "the multi-shift update is complex only (type %d)", (int)type);
  HM_CHECK(m >= 0 && m <= 64, HM_ERR_ARGUMENT, "m = %d directions: must be 0 <= m <= 64", m);
  HM_CHECK(nact >= 0 && nact <= ns && (nact == 0 || act), HM_ERR_ARGUMENT,
           "nact = %d active shifts of ns = %d (act %s): must be 0 <= nact <= ns with a list", nact, ns,
           act ? "given" : "NULL");
  for (int i = 0; i < nact; i++)
    HM_CHECK(act[i] >= 0 && act[i] < ns && (i == 0 || act[i] > act[i - 1]), HM_ERR_ARGUMENT,
             "act[%d] = %d: the active shifts must ascend within 0 .. %d", i, act[i], ns - 1);
  const int K = nv * ns, Ka = nv * nact;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    const double *vi = v + 2 * i * nv;
    for (int s = 0; s < nact; s++) {
      const size_t base = 2 * ((size_t)i * K + (size_t)act[s] * nv);
      for (int j = 0; j < nv; j++) {
        const int p = s * nv + j;
        const size_t e = base + 2 * (size_t)j;
        double wr = a[2 * p] * vi[2 * j] - a[2 * p + 1] * vi[2 * j + 1];
        double wi = a[2 * p] * vi[2 * j + 1] + a[2 * p + 1] * vi[2 * j];
        for (int l = 0; l < m; l++) {
          const double cr = c[2 * ((size_t)l * Ka + p)], ci = c[2 * ((size_t)l * Ka + p) + 1];
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
  }
  return HM_SUCCESS;
}
