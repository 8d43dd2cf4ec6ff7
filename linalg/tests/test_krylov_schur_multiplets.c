/* Krylov-Schur (krylov_schur.h) finds every copy of every wanted eigenvalue: the FEM pencil
 * K x = E M x of a cube (equal sides: the exact values, sums of three 1D Q1 values, have
 * multiplicities 1, 3, 3, 3, 1, 6 from the bottom), sigma = 0, with nev cutting through the multiplets
 * and covering whole ones. The eigenvalues nearest sigma must be the exact ones with their
 * multiplicities (a missed copy shows as the next distinct value in its place), the Ritz vectors
 * B-orthonormal (so a repeated value stands for as many independent vectors) with true residuals
 * within tol. Registered on 1, 2 and 3 ranks. Arguments: "cuda" runs on the CUDA backend (skipped
 * without a GPU); "noverify" turns the verification off, the single-vector Lanczos of before, to show
 * the copies it misses (it fails there; not registered). */
#include <string.h>
#include "krylov_schur.h"
#include "lobpcg_problems.h"

static int rank0(void) {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r == 0;
}

/* One run of nev on the pencil (K, M) against exact (ascending); returns the column solves. */
static int64_t check_nev(hm_context *ctx, const char *name, hm_matrix *K, hm_matrix *M, const double *exact, int nev,
                         int verify, int64_t *verify_solves) {
  hm_shift_invert *si;
  HM_TEST_OK(hm_shift_invert_create(K, M, 0.0, &si));
  hm_krylov_schur_options opt;
  hm_krylov_schur_options_default(&opt, nev);
  opt.tol = 1e-10;
  opt.verify = verify;
  const hm_dist *dist;
  hm_matrix_dist(K, &dist);
  hm_mvec *X, *KX, *MX;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, nev, &X));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, nev, &KX));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_REAL, nev, &MX));
  double *theta = malloc(sizeof(double) * nev), *lambda = malloc(sizeof(double) * nev);
  double *sorted = malloc(sizeof(double) * nev), *gram = malloc(sizeof(double) * nev * nev);
  double *mn = malloc(sizeof(double) * nev), *rn = malloc(sizeof(double) * nev), *minus = malloc(sizeof(double) * nev);
  double *one = malloc(sizeof(double) * nev);
  hm_krylov_schur_info info;
  HM_TEST_OK(hm_krylov_schur_solve(si, &opt, theta, NULL, X, &info));
  HM_TEST_ASSERT(info.converged == nev, "%s, nev %d: %d converged after %d restarts", name, nev, info.converged,
                 info.restarts);
  HM_TEST_ASSERT(!verify || info.verified, "%s, nev %d: the verification did not end (%d restarts)", name, nev,
                 info.restarts);
  for (int i = 0; i < nev; i++) sorted[i] = lambda[i] = 1.0 / theta[i];
  for (int i = 0; i < nev; i++)
    for (int j = i + 1; j < nev; j++)
      if (sorted[j] < sorted[i]) { double s = sorted[i]; sorted[i] = sorted[j]; sorted[j] = s; }
  int missed = 0, first = -1;
  for (int i = 0; i < nev; i++)
    if (fabs(sorted[i] - exact[i]) > 1e-9 * exact[i]) missed++, first = first < 0 ? i : first;
  HM_TEST_ASSERT(!missed, "%s, nev %d: %d of the values differ from the exact ones with multiplicities, first "
                 "value %d: %.12g (exact %.12g, its copy missed)", name, nev, missed, first,
                 missed ? sorted[first] : 0.0, missed ? exact[first] : 0.0);
  HM_TEST_OK(hm_matrix_apply(K, X, KX));
  HM_TEST_OK(hm_matrix_apply(M, X, MX));
  HM_TEST_OK(hm_mvec_gram(X, MX, gram));
  double worst_gram = 0;
  for (int a = 0; a < nev; a++)
    for (int b = 0; b < nev; b++) worst_gram = fmax(worst_gram, fabs(gram[a * nev + b] - (a == b)));
  HM_TEST_ASSERT(worst_gram <= 1e-8, "%s, nev %d: X^T M X differs from I by %g", name, nev, worst_gram);
  for (int i = 0; i < nev; i++) one[i] = 1.0, minus[i] = -lambda[i];
  HM_TEST_OK(hm_mvec_norms(MX, mn));
  HM_TEST_OK(hm_mvec_axpby(KX, minus, MX, one));
  HM_TEST_OK(hm_mvec_norms(KX, rn));
  for (int i = 0; i < nev; i++)
    HM_TEST_ASSERT(rn[i] <= 1e-8 * lambda[i] * mn[i], "%s, nev %d: true residual[%d] = %g", name, nev, i,
                   rn[i] / (lambda[i] * mn[i]));
  if (rank0())
    printf("%s, nev %2d: %s, %d restarts, %lld column solves (verification %lld), %d copies found by it\n", name,
           nev, missed ? "MISSED" : "all copies", info.restarts, (long long)info.solves,
           (long long)info.verify_solves, info.copies);
  *verify_solves = info.verify_solves;
  int64_t solves = info.solves;
  free(theta), free(lambda), free(sorted), free(gram), free(mn), free(rn), free(minus), free(one);
  hm_mvec_destroy(&X), hm_mvec_destroy(&KX), hm_mvec_destroy(&MX);
  hm_shift_invert_destroy(&si);
  return solves;
}

static void box(hm_context *ctx, const char *name, double lx, double ly, double lz, int e, const int *nevs, int count,
                int verify) {
  hm_matrix *K, *M;
  double *exact = lp_fem_box(ctx, lx, ly, lz, e, &K, &M);
  int64_t total = 0, extra = 0;
  for (int c = 0; c < count; c++) {
    int64_t v;
    total += check_nev(ctx, name, K, M, exact, nevs[c], verify, &v);
    extra += v;
  }
  if (rank0()) printf("%s: %lld column solves in all, %lld of them verification\n", name, (long long)total,
                      (long long)extra);
  free(exact);
  hm_matrix_destroy(&K), hm_matrix_destroy(&M);
}

/* Arguments: [cuda] [noverify] [ranks] ("ranks": 3 ranks, oversubscribed on small machines, where each
 * reduction waits for a time slice: the cube at two nev that end inside multiplets only). */
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int cuda = 0, verify = 1, ranks = 0;
  for (int a = 1; a < argc; a++)
    cuda |= !strcmp(argv[a], "cuda"), verify &= !!strcmp(argv[a], "noverify"), ranks |= !strcmp(argv[a], "ranks");
  if (cuda) HM_TEST_NEED_GPU();
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, cuda ? HM_BACKEND_CUDA : HM_BACKEND_CPU, &ctx));
  /* multiplicities from the bottom: 1 | 3 | 3 | 3 | 1 | 6: nev through (3, 6, 13) and at the ends
   * (4, 7, 11, 17) of the multiplets */
  const int nevs[] = {3, 4, 6, 7, 10, 11, 13, 17}, ranks_nevs[] = {6, 13};
  const int count = (int)(sizeof nevs / sizeof nevs[0]);
  box(ctx, "cube 2 x 2 x 2, 7^3 elements", 2, 2, 2, 7, ranks ? ranks_nevs : nevs, ranks ? 2 : count, verify);
  if (!ranks) {
    const int fine_nevs[] = {4, 17};
    box(ctx, "cube 1 x 1 x 1, 10^3 elements", 1, 1, 1, 10, fine_nevs, 2, verify);
    const int box_nevs[] = {4, 11}; /* unequal sides: no multiplets, the verification's cost alone */
    box(ctx, "box 1 x 1.3 x 0.8, 8^3 elements", 1.0, 1.3, 0.8, 8, box_nevs, 2, verify);
  }
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
