/* A state on one site of a clean chain with hopping 1 spreads ballistically: its amplitudes are
 * i^n J_n(2t) at distance n, so <X^2> - <X>^2 = sum_n n^2 J_n(2t)^2 = 2 t^2 exactly, until the front
 * (n ~ 2t) reaches the ends. X^2 is computed from the propagated state's site amplitudes. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include "testing.h"

enum { L = 401 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_dist *dist;
  HM_TEST_OK(hm_dist_create(ctx, L, 1, 1.0, &dist));
  int64_t first, local;
  hm_dist_range(dist, &first, &local, NULL);
  int64_t *rowptr = calloc((size_t)local + 1, sizeof *rowptr), *cols = malloc(sizeof *cols * 2 * (size_t)(local + 1));
  double *vals = malloc(sizeof *vals * 2 * (size_t)(local + 1));
  for (int64_t i = 0; i < local; i++) {
    int64_t g = first + i, m = rowptr[i];
    if (g > 0) { cols[m] = g - 1; vals[m++] = -1; }
    if (g < L - 1) { cols[m] = g + 1; vals[m++] = -1; }
    rowptr[i + 1] = m;
  }
  hm_matrix *H;
  HM_TEST_OK(hm_matrix_create_csr(ctx, dist, HM_REAL, rowptr, cols, vals, &H));
  hm_mvec *psi;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, 1, &psi));
  const int64_t centre = L / 2;
  double complex *amp = calloc((size_t)local + 1, sizeof *amp);
  if (centre >= first && centre < first + local) amp[centre - first] = 1;
  HM_TEST_OK(hm_mvec_set(psi, amp));
  hm_evolution_options opt;
  hm_evolution_options_default(&opt);
  opt.dt = 0.5;
  hm_evolution *ev;
  HM_TEST_OK(hm_evolution_create(H, 1, &opt, &ev));
  HM_TEST_OK(hm_evolution_set_state(ev, psi));
  double worst = 0, worst_t = 0;
  for (int s = 1; s <= 150; s++) { /* t up to 75: the front at 150 < 200 sites from the centre */
    HM_TEST_OK(hm_evolution_step(ev, 1));
    HM_TEST_OK(hm_evolution_get_state(ev, psi));
    HM_TEST_OK(hm_mvec_get(psi, amp));
    double m[3] = {0, 0, 0}; /* sum |a|^2, sum x |a|^2, sum x^2 |a|^2 */
    for (int64_t i = 0; i < local; i++) {
      double p = creal(amp[i] * conj(amp[i])), x = (double)(first + i - centre);
      m[0] += p; m[1] += x * p; m[2] += x * x * p;
    }
    MPI_Allreduce(MPI_IN_PLACE, m, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double t = s * opt.dt, spread = m[2] / m[0] - (m[1] / m[0]) * (m[1] / m[0]);
    double rel = fabs(spread - 2 * t * t) / (2 * t * t);
    if (rel > worst) { worst = rel; worst_t = t; }
  }
  HM_TEST_ASSERT(worst < 1e-11, "<X^2> - <X>^2 off 2 t^2 by %g (relative) at t = %g", worst, worst_t);
  hm_evolution_destroy(&ev);
  hm_mvec_destroy(&psi);
  hm_matrix_destroy(&H);
  hm_dist_destroy(&dist);
  free(rowptr); free(cols); free(vals); free(amp);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
