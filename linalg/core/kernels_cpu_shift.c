/* CPU kernel of multi-shift IDR(s): one pass over the rows updates the newest direction and the
 * iterate of every active shift, w = a v + sum_l c_l D_l, D_new = w, x += w; converged shifts'
 * columns are skipped (their cache lines are not read). A shift's row piece (nv complex) is summed
 * in a small buffer over contiguous loops the compiler vectorises (each D_l's piece read once). Each row reads its seed entries v[i, :]
 * once for all shifts; complex arithmetic is written out in real and imaginary parts (C's complex
 * multiply calls a NaN-handling routine). Rows are split statically over the threads; no sums, so
 * the result does not depend on the thread count. */
#include <stdlib.h>
#include "error_macros.h"
#include "kernels_cpu_shift.h"

int hm_idr_shift_update_check(hm_scalar type, int ns, int nact, const int *act, int m) {
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT, "the multi-shift update is complex only (type %d)", (int)type);
  HM_CHECK(m >= 0 && m <= 64, HM_ERR_ARGUMENT, "m = %d directions: must be 0 <= m <= 64", m);
  HM_CHECK(nact >= 0 && nact <= ns && (nact == 0 || act), HM_ERR_ARGUMENT,
           "nact = %d active shifts of ns = %d (act %s): must be 0 <= nact <= ns with a list", nact, ns,
           act ? "given" : "NULL");
  for (int i = 0; i < nact; i++)
    HM_CHECK(act[i] >= 0 && act[i] < ns && (i == 0 || act[i] > act[i - 1]), HM_ERR_ARGUMENT,
             "act[%d] = %d: the active shifts must ascend within 0 .. %d", i, act[i], ns - 1);
  return HM_SUCCESS;
}

int hm_cpu_idr_shift_update(hm_scalar type, int64_t n, int nv, int ns, int nact, const int *act, int m,
                            const double *v, const double *a, const double *const *D, const double *c, double *Dnew,
                            double *x) {
  HM_CALL(hm_idr_shift_update_check(type, ns, nact, act, m));
  const int K = nv * ns, Ka = nv * nact;
  const double *const *Dl = D;
  int failed = 0;
#pragma omp parallel
  {
    double w[2 * 64]; /* one shift's row (nv <= 64 columns) in L1 while each D_l's piece streams in */
    double *wide = nv > 64 ? malloc(sizeof(double) * 2 * (size_t)nv) : NULL;
    double *acc = nv > 64 ? wide : w;
    if (!acc) {
#pragma omp atomic write
      failed = 1;
    }
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; i++) {
      if (!acc) continue; /* no scratch (allocation failed): reported after the loop */
      const double *vi = v + 2 * i * nv;
      for (int s = 0; s < nact; s++) {
        const size_t base = 2 * ((size_t)i * K + (size_t)act[s] * nv);
        const double *ap = a + 2 * (size_t)s * nv;
        /* per entry the same order as ever: a v, then + c_l D_l for l = 0 .. m-1 */
        for (int j = 0; j < nv; j++) {
          acc[2 * j] = ap[2 * j] * vi[2 * j] - ap[2 * j + 1] * vi[2 * j + 1];
          acc[2 * j + 1] = ap[2 * j] * vi[2 * j + 1] + ap[2 * j + 1] * vi[2 * j];
        }
        for (int l = 0; l < m; l++) {
          const double *cl = c + 2 * ((size_t)l * Ka + (size_t)s * nv), *d = Dl[l] + base;
          for (int j = 0; j < nv; j++) {
            const double cr = cl[2 * j], ci = cl[2 * j + 1], dr = d[2 * j], di = d[2 * j + 1];
            acc[2 * j] += cr * dr - ci * di;
            acc[2 * j + 1] += cr * di + ci * dr;
          }
        }
        double *dn = Dnew + base, *xs = x + base;
        for (int j = 0; j < 2 * nv; j++) {
          dn[j] = acc[j];
          xs[j] += acc[j];
        }
      }
    }
    free(wide);
  }
  HM_CHECK(!failed, HM_ERR_MEMORY, "could not allocate a thread's row scratch of %d columns", nv);
  return HM_SUCCESS;
}
