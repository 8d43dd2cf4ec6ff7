/* CPU kernel of multi-shift IDR(s): one pass over the rows updates the newest direction and the
 * iterate of the systems packed in the ncol columns of the blocks, w = a v + sum_l c_l D_l,
 * D_new = w, x += w. The columns are cut into runs of consecutive right-hand sides of one shift
 * (consecutive entries of v); a run's row piece is summed in a small buffer over contiguous loops
 * the compiler vectorises (each D_l's piece read once). Each row reads its seed entries v[i, :] once for all shifts;
 * complex arithmetic is written out in real and imaginary parts (C's complex multiply calls a
 * NaN-handling routine). Rows are split statically over the threads; no sums, so the result does not
 * depend on the thread count, nor on which other systems are listed. */
#include <stdlib.h>
#include "error_macros.h"
#include "kernels_cpu_shift.h"

int hm_idr_shift_update_check(hm_scalar type, int nv, int ns, int ncol, const int *cols, int m) {
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT, "the multi-shift update is complex only (type %d)", (int)type);
  HM_CHECK(m >= 0 && m <= 64, HM_ERR_ARGUMENT, "m = %d directions: must be 0 <= m <= 64", m);
  HM_CHECK(nv >= 1 && ns >= 1, HM_ERR_ARGUMENT, "nv = %d right-hand sides, ns = %d shifts: both must be >= 1", nv, ns);
  const long K = (long)nv * ns;
  HM_CHECK(ncol >= 0 && ncol <= K && (ncol == 0 || cols), HM_ERR_ARGUMENT,
           "ncol = %d systems of K = %ld (cols %s): must be 0 <= ncol <= K with a list", ncol, K,
           cols ? "given" : "NULL");
  for (int p = 0; p < ncol; p++)
    HM_CHECK(cols[p] >= 0 && cols[p] < K && (p == 0 || cols[p] > cols[p - 1]), HM_ERR_ARGUMENT,
             "cols[%d] = %d: the listed systems must ascend within 0 .. %ld", p, cols[p], K - 1);
  return HM_SUCCESS;
}

int hm_cpu_idr_shift_update(hm_scalar type, int64_t n, int nv, int ns, int ncol, const int *cols, int m,
                            const double *v, const double *a, const double *const *D, const double *c, double *Dnew,
                            double *x) {
  HM_CALL(hm_idr_shift_update_check(type, nv, ns, ncol, cols, m));
  if (ncol == 0 || n == 0) return HM_SUCCESS;
  int *first = malloc(sizeof(int) * 2 * (size_t)ncol);
  HM_CHECK(first, HM_ERR_MEMORY, "could not allocate the runs of %d listed systems", ncol);
  int *len = first + ncol, nrun = 0;
  for (int p = 0; p < ncol; p++) {
    if (p > 0 && cols[p] == cols[p - 1] + 1 && cols[p] % nv != 0) { /* the next right-hand side of one shift */
      len[nrun - 1]++;
      continue;
    }
    first[nrun] = p;
    len[nrun++] = 1;
  }
  int failed = 0;
#pragma omp parallel
  {
    double w[2 * 64]; /* one run's row piece (at most nv <= 64 systems) in L1 while each D_l's piece streams in */
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
      const size_t row = 2 * (size_t)i * ncol;
      for (int g = 0; g < nrun; g++) {
        const int p0 = first[g], nr = len[g];
        const double *ap = a + 2 * (size_t)p0, *vj = vi + 2 * (cols[p0] % nv);
        /* per entry the same order as ever: a v, then + c_l D_l for l = 0 .. m-1 */
        for (int j = 0; j < nr; j++) {
          acc[2 * j] = ap[2 * j] * vj[2 * j] - ap[2 * j + 1] * vj[2 * j + 1];
          acc[2 * j + 1] = ap[2 * j] * vj[2 * j + 1] + ap[2 * j + 1] * vj[2 * j];
        }
        for (int l = 0; l < m; l++) {
          const double *cl = c + 2 * ((size_t)l * ncol + p0), *d = D[l] + row + 2 * (size_t)p0;
          for (int j = 0; j < nr; j++) {
            const double cr = cl[2 * j], ci = cl[2 * j + 1], dr = d[2 * j], di = d[2 * j + 1];
            acc[2 * j] += cr * dr - ci * di;
            acc[2 * j + 1] += cr * di + ci * dr;
          }
        }
        double *dn = Dnew + row + 2 * (size_t)p0, *xs = x + row + 2 * (size_t)p0;
        for (int j = 0; j < 2 * nr; j++) {
          dn[j] = acc[j];
          xs[j] += acc[j];
        }
      }
    }
    free(wide);
  }
  free(first);
  HM_CHECK(!failed, HM_ERR_MEMORY, "could not allocate a thread's row scratch of %d columns", nv);
  return HM_SUCCESS;
}
