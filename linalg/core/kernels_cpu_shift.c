/* CPU kernel of multi-shift IDR(s): one pass over the rows updates the newest direction and the
 * iterate of every listed (shift, right-hand side) system, w = a v + sum_l c_l D_l, D_new = w,
 * x += w; converged systems are not read or written. The list is cut into runs of systems of one
 * shift that sit in consecutive columns of x and of every D_l; a run's row piece is summed in a
 * small buffer over contiguous loops the compiler vectorises (each D_l's piece read once) and is
 * written only after all of it is read, so a D_l packed in place into D_new (its columns at or above
 * the run's) is safe, runs going up. Each row reads its seed entries v[i, :] once for all shifts;
 * complex arithmetic is written out in real and imaginary parts (C's complex multiply calls a
 * NaN-handling routine). Rows are split statically over the threads; no sums, so the result does not
 * depend on the thread count, nor on which other systems are listed. */
#include <stdlib.h>
#include "error_macros.h"
#include "kernels_cpu_shift.h"

int hm_idr_shift_update_check(hm_scalar type, int nv, int ns, int ncol, const int *cols, int m, const int *pos) {
  HM_CHECK(type == HM_COMPLEX, HM_ERR_ARGUMENT, "the multi-shift update is complex only (type %d)", (int)type);
  HM_CHECK(m >= 0 && m <= 64, HM_ERR_ARGUMENT, "m = %d directions: must be 0 <= m <= 64", m);
  HM_CHECK(nv >= 1 && ns >= 1, HM_ERR_ARGUMENT, "nv = %d right-hand sides, ns = %d shifts: both must be >= 1", nv, ns);
  const long K = (long)nv * ns;
  HM_CHECK(ncol >= 0 && ncol <= K && (ncol == 0 || (cols && (m == 0 || pos))), HM_ERR_ARGUMENT,
           "ncol = %d systems of K = %ld (cols %s, pos %s): must be 0 <= ncol <= K with both lists", ncol, K,
           cols ? "given" : "NULL", pos || m == 0 ? "given" : "NULL");
  for (int p = 0; p < ncol; p++)
    HM_CHECK(cols[p] >= 0 && cols[p] < K && (p == 0 || cols[p] > cols[p - 1]), HM_ERR_ARGUMENT,
             "cols[%d] = %d: the listed systems must ascend within 0 .. %ld", p, cols[p], K - 1);
  for (int l = 0; l < m; l++)
    for (int p = 0; p < ncol; p++) {
      const int at = pos[(size_t)l * ncol + p];
      HM_CHECK(at >= 0 && at < K && (p == 0 || at > pos[(size_t)l * ncol + p - 1]), HM_ERR_ARGUMENT,
               "pos[%d][%d] = %d: direction %d's columns must ascend within 0 .. %ld", l, p, at, l, K - 1);
    }
  return HM_SUCCESS;
}

/* Whether listed system p continues p - 1's run: the same shift, the next column of x and of every D_l. */
static int continues(int nv, int ncol, const int *cols, int m, const int *pos, int p) {
  if (cols[p] != cols[p - 1] + 1 || cols[p] % nv == 0) return 0;
  for (int l = 0; l < m; l++)
    if (pos[(size_t)l * ncol + p] != pos[(size_t)l * ncol + p - 1] + 1) return 0;
  return 1;
}

int hm_cpu_idr_shift_update(hm_scalar type, int64_t n, int nv, int ns, int ncol, const int *cols, int m,
                            const int *pos, const double *v, const double *a, const double *const *D, const double *c,
                            double *Dnew, double *x) {
  HM_CALL(hm_idr_shift_update_check(type, nv, ns, ncol, cols, m, pos));
  if (ncol == 0 || n == 0) return HM_SUCCESS;
  const int K = nv * ns;
  int *first = malloc(sizeof(int) * 2 * (size_t)ncol);
  HM_CHECK(first, HM_ERR_MEMORY, "could not allocate the runs of %d listed systems", ncol);
  int *len = first + ncol, nrun = 0;
  for (int p = 0; p < ncol; p++) {
    if (p > 0 && continues(nv, ncol, cols, m, pos, p)) {
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
      const size_t row = 2 * (size_t)i * K;
      for (int g = 0; g < nrun; g++) {
        const int p0 = first[g], nr = len[g];
        const double *ap = a + 2 * (size_t)p0, *vj = vi + 2 * (cols[p0] % nv);
        /* per entry the same order as ever: a v, then + c_l D_l for l = 0 .. m-1 */
        for (int j = 0; j < nr; j++) {
          acc[2 * j] = ap[2 * j] * vj[2 * j] - ap[2 * j + 1] * vj[2 * j + 1];
          acc[2 * j + 1] = ap[2 * j] * vj[2 * j + 1] + ap[2 * j + 1] * vj[2 * j];
        }
        for (int l = 0; l < m; l++) {
          const double *cl = c + 2 * ((size_t)l * ncol + p0), *d = D[l] + row + 2 * (size_t)pos[(size_t)l * ncol + p0];
          for (int j = 0; j < nr; j++) {
            const double cr = cl[2 * j], ci = cl[2 * j + 1], dr = d[2 * j], di = d[2 * j + 1];
            acc[2 * j] += cr * dr - ci * di;
            acc[2 * j + 1] += cr * di + ci * dr;
          }
        }
        double *dn = Dnew + row + 2 * (size_t)p0, *xs = x + row + 2 * (size_t)cols[p0];
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
