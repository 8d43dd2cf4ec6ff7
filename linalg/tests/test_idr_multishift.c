/* Multi-shift IDR(s) against LAPACK's dense solves (zgesv per shift) on a small random Hermitian
 * sparse matrix: G-like solutions (H - z_q) x = b_j for 24 energies z_q = E_q + i eta over and
 * beyond the spectrum, 2 right-hand sides, s = 1, 2, 4; every shift's true residual below tol and
 * its solution within 1e-8 of LAPACK's. Also: a checkpoint taken between outer iterations (early, and
 * late, after the solver has packed converged systems out of its blocks) and restored on a new solver
 * continues to the bitwise same result; polish forced on every shift (each
 * stalls at 1e-3) finishes all 48 systems in batched solves (one of 48 columns, groups by memory,
 * one column each: every solution within 1e-8 of LAPACK's, and the groupings' solutions equal, as
 * the batched IDR's columns are independent systems); the seed's omega chosen for the shifts, with a
 * fixed seed, sends no system to polish; a real operator, a preconditioner, bad shifts
 * and bad polish settings are refused with messages. Runs on 1, 2 and 3 ranks (the reference is the same). */
#include <lapacke.h>
#include <string.h>
#include "idr_multishift_internal.h"
#include "idr_testlib.h"

enum { N = 150, KB = 2, NS = 24 };

/* Hermitian: bonds at distances 1, 7 and 23 with complex hash values, a real diagonal in [-1, 1). */
static int hermitian_row(int64_t i, int64_t *cols, double complex *vals, const void *par) {
  (void)par;
  static const int64_t dist[3] = {1, 7, 23};
  int c = 0;
  cols[c] = i;
  vals[c++] = idr_test_hash(3, (uint64_t)i, (uint64_t)i);
  for (int d = 0; d < 3; d++)
    for (int sign = -1; sign <= 1; sign += 2) {
      const int64_t j = i + sign * dist[d];
      if (j < 0 || j >= N) continue;
      const int64_t lo = i < j ? i : j, hi = i < j ? j : i;
      const double complex h = idr_test_hash(1, (uint64_t)lo, (uint64_t)hi) + I * idr_test_hash(2, (uint64_t)lo, (uint64_t)hi);
      cols[c] = j;
      vals[c++] = i < j ? h : conj(h);
    }
  return c;
}

static double complex shift_of(int q) { /* sigma = -z: (H + sigma) x = b is (H - z) x = b */
  const double E = -4.5 + 9.0 * q / (NS - 1);
  const double eta = q % 3 == 0 ? 0.05 : 0.1;
  return -(E + I * eta);
}

typedef struct {
  int at;                  /* checkpoint at this outer iteration, then stop the solve */
  int calls;               /* checkpoints offered so far */
  long repacks;            /* the solver's repacks before that checkpoint */
  int nb, nsc;
  double complex **blocks; /* host copies */
  double *scalars;
  int64_t local;
} saved_state;

static int save(hm_idr_multishift *ms, void *user) {
  saved_state *sv = user;
  if (++sv->calls != sv->at) return 0;
  hm_idr_multishift_profile prof;
  HM_TEST_OK(hm_idr_multishift_get_profile(ms, &prof));
  sv->repacks = prof.repacks;
  HM_TEST_OK(hm_idr_multishift_state_size(ms, &sv->nb, &sv->nsc));
  sv->scalars = malloc(sizeof(double) * (size_t)sv->nsc);
  HM_TEST_OK(hm_idr_multishift_state_get(ms, sv->scalars));
  sv->blocks = calloc((size_t)sv->nb, sizeof *sv->blocks);
  for (int i = 0; i < sv->nb; i++) {
    hm_mvec *blk;
    int k;
    HM_TEST_OK(hm_idr_multishift_state_block(ms, i, &blk));
    HM_TEST_OK(hm_mvec_size(blk, NULL, &k));
    sv->blocks[i] = malloc(sizeof(double complex) * (size_t)(sv->local * k + 1));
    HM_TEST_OK(hm_mvec_get(blk, sv->blocks[i]));
  }
  return HM_ERR_STOPPED; /* a checkpoint followed by a stop, as a killed run */
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  /* "quick" (2 ranks): s = 4 only; "ranks" (3 ranks, oversubscribed on small machines: each reduction
   * waits for a time slice): also one polish grouping and one checkpoint */
  const int ranks = argc > 1 && !strcmp(argv[1], "ranks");
  const int quick = ranks || (argc > 1 && !strcmp(argv[1], "quick"));
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_matrix *H;
  HM_TEST_OK(idr_test_matrix(ctx, N, HM_COMPLEX, hermitian_row, NULL, 8, &H));
  double complex *dense;
  int64_t n;
  HM_TEST_OK(hm_test_dense(H, &dense, &n));
  const hm_dist *dist;
  hm_matrix_dist(H, &dist);
  int64_t local;
  hm_dist_range(dist, NULL, &local, NULL);
  hm_mvec *b, *x;
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, KB, &b));
  HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, KB * NS, &x));
  HM_TEST_OK(idr_test_fill(b, idr_test_random_entry, NULL));
  double complex shifts[NS];
  for (int q = 0; q < NS; q++) shifts[q] = shift_of(q);

  /* references: (H + sigma_q) X = B by zgesv, stored like x (row-major, column q KB + j) */
  double complex *bfull = malloc(sizeof(double complex) * N * KB), *ref = malloc(sizeof(double complex) * N * KB * NS);
  double complex *got = malloc(sizeof(double complex) * N * KB * NS), *A = malloc(sizeof(double complex) * N * N);
  double complex *rhs = malloc(sizeof(double complex) * N * KB);
  HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, b, bfull));
  for (int q = 0; q < NS; q++) {
    memcpy(A, dense, sizeof(double complex) * N * N);
    for (int i = 0; i < N; i++) A[i * N + i] += shifts[q]; /* column-major, like dense */
    for (int i = 0; i < N; i++)
      for (int j = 0; j < KB; j++) rhs[j * N + i] = bfull[i * KB + j];
    lapack_int ipiv[N];
    HM_TEST_ASSERT(LAPACKE_zgesv(LAPACK_COL_MAJOR, N, KB, A, N, ipiv, rhs, N) == 0, "zgesv failed at shift %d", q);
    for (int i = 0; i < N; i++)
      for (int j = 0; j < KB; j++) ref[(size_t)i * KB * NS + q * KB + j] = rhs[(size_t)j * N + i];
  }

  hm_operator *op;
  HM_TEST_OK(hm_operator_create_matrix(H, &op));
  const int svals[3] = {1, 2, 4}; /* s = 1 (shifted BiCGStab-like) needs the per-shift polish most */
  for (int si = quick ? 2 : 0; si < 3; si++) {
    hm_idr_options opt;
    hm_idr_options_default(&opt);
    opt.s = svals[si];
    opt.tol = 1e-9;
    opt.maxit = 2000;
    hm_idr_multishift *ms;
    HM_TEST_OK(hm_idr_multishift_create(op, &opt, NS, shifts, &ms));
    HM_TEST_OK(hm_idr_multishift_solve(ms, b, x));
    hm_idr_multishift_profile prof;
    HM_TEST_OK(hm_idr_multishift_get_profile(ms, &prof));
    int k, seed, status, its[KB * NS], conv[KB * NS];
    double est[KB * NS], tru[KB * NS];
    HM_TEST_OK(hm_idr_multishift_info(ms, &k, &seed, &status));
    HM_TEST_ASSERT(k == KB && status == HM_SUCCESS && seed >= 0 && seed < NS, "info: k %d seed %d status %d",
                   k, seed, status);
    HM_TEST_OK(hm_idr_multishift_results(ms, its, conv, est, tru));
    HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, x, got));
    int most = 0;
    double worst = 0;
    for (int q = 0; q < NS; q++)
      for (int j = 0; j < KB; j++) {
        const int c = q * KB + j;
        double num = 0, den = 0;
        for (int i = 0; i < N; i++) {
          const double complex d = got[(size_t)i * KB * NS + c] - ref[(size_t)i * KB * NS + c];
          num += creal(d * conj(d));
          den += creal(ref[(size_t)i * KB * NS + c] * conj(ref[(size_t)i * KB * NS + c]));
        }
        const double err = sqrt(num / den);
        HM_TEST_ASSERT(conv[c] && tru[c] <= opt.tol && err < 1e-8,
                       "s = %d shift %d (%g%+gi) rhs %d: converged %d after %d, true residual %.3e (tol %.1e), "
                       "estimate %.3e, |x - x_lapack| / |x_lapack| = %.3e", svals[si], q, creal(shifts[q]),
                       cimag(shifts[q]), j, conv[c], its[c], tru[c], opt.tol, est[c], err);
        most = its[c] > most ? its[c] : most;
        worst = fmax(worst, err);
      }
    /* the family's omega keeps every shift's recurrence close to its true residual here (the seed's own
     * omega with a seed moved to the laggard stalled 2 to 4 systems per s) */
    HM_TEST_ASSERT(prof.stalled_columns == 0 && prof.maxit_columns == 0 && prof.polish_columns == 0,
                   "s = %d, omega for the shifts: %ld systems stalled, %ld at maxit; expected none", svals[si],
                   prof.stalled_columns, prof.maxit_columns);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      printf("s = %d: %d shifts x %d right-hand sides: largest |x - x_lapack| / |x_lapack| %.2e, at most %d "
             "seed iterations, %ld seed steps, %ld shift columns updated, %ld systems stalled, %ld at maxit\n",
             svals[si], NS, KB, worst,
             most, prof.seed_steps, prof.shift_columns, prof.stalled_columns, prof.maxit_columns);
    hm_idr_multishift_destroy(&ms);
  }

  /* polish of every shift at once: each claims at 1e-3 and is declared stalled, so all KB x NS systems
   * are finished by the batched polish: in one solve (max 48 columns), in groups by memory (0), one
   * column per solve (1; on one rank: its 48 solves' reductions are slow on oversubscribed ranks). */
  {
    const int caps[3] = {KB * NS, 0, 1}, ncaps = ranks ? 1 : quick ? 2 : 3; /* one column per solve: one rank only */
    double complex *first = malloc(sizeof(double complex) * N * KB * NS);
    double apart = 0;
    for (int ci = 0; ci < ncaps; ci++) {
      hm_idr_options opt;
      hm_idr_options_default(&opt);
      opt.s = 4;
      opt.tol = 1e-9;
      opt.maxit = 2000;
      hm_idr_multishift *ms;
      HM_TEST_OK(hm_idr_multishift_create(op, &opt, NS, shifts, &ms));
      HM_TEST_OK(hm_idr_multishift_set_polish(ms, caps[ci], 1e-3));
      HM_TEST_OK(hm_idr_multishift_solve(ms, b, x));
      hm_idr_multishift_profile prof;
      HM_TEST_OK(hm_idr_multishift_get_profile(ms, &prof));
      const long want_solves = caps[ci] ? (KB * NS + caps[ci] - 1) / caps[ci] : -1;
      HM_TEST_ASSERT(prof.polish_columns == KB * NS && prof.stalled_columns == KB * NS && prof.maxit_columns == 0 &&
                     prof.polish_iterations > 0 &&
                     (want_solves < 0 ? prof.polish_solves >= 1 && prof.polish_solves < KB * NS
                                      : prof.polish_solves == want_solves),
                     "cap %d: polish solved %ld columns (%ld stalled, %ld at maxit) in %ld solves (%ld iterations); "
                     "expected all %d columns, stalled, in %ld solves", caps[ci], prof.polish_columns,
                     prof.stalled_columns, prof.maxit_columns, prof.polish_solves, prof.polish_iterations, KB * NS,
                     want_solves);
      int its[KB * NS], conv[KB * NS];
      double tru[KB * NS];
      HM_TEST_OK(hm_idr_multishift_results(ms, its, conv, NULL, tru));
      HM_TEST_OK(idr_test_gather(MPI_COMM_WORLD, x, got));
      double worst = 0;
      for (int c = 0; c < KB * NS; c++) {
        double num = 0, den = 0, dif = 0;
        for (int i = 0; i < N; i++) {
          const size_t at = (size_t)i * KB * NS + c;
          const double complex d = got[at] - ref[at], e = got[at] - first[at];
          num += creal(d * conj(d));
          den += creal(ref[at] * conj(ref[at]));
          dif += creal(e * conj(e));
        }
        const double err = sqrt(num / den);
        HM_TEST_ASSERT(conv[c] && tru[c] <= opt.tol && err < 1e-8,
                       "polish cap %d, shift %d rhs %d: converged %d after %d, true residual %.3e (tol %.1e), "
                       "|x - x_lapack| / |x_lapack| = %.3e", caps[ci], c / KB, c % KB, conv[c], its[c], tru[c],
                       opt.tol, err);
        worst = fmax(worst, err);
        if (ci) apart = fmax(apart, sqrt(dif / den));
      }
      if (ci == 0) memcpy(first, got, sizeof(double complex) * N * KB * NS);
      int rank;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0)
        printf("polish of all shifts, at most %d columns per solve: %ld solves, %ld iterations, largest "
               "|x - x_lapack| / |x_lapack| %.2e\n", caps[ci], prof.polish_solves, prof.polish_iterations, worst);
      hm_idr_multishift_destroy(&ms);
    }
    /* the batched IDR's columns are independent: its grouping changes no solution beyond rounding */
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("polish groupings: solutions apart by %.2e (relative)\n", apart);
    HM_TEST_ASSERT(apart < 1e-12, "the polish groupings' solutions differ by %.3e (relative): the batched IDR(s) "
                   "couples its columns", apart);
    free(first);
  }

  /* checkpoint after outer iteration 3, and after three quarters of the outer iterations (the blocks
   * repacked by then: systems packed out, their x in the caller's block), restore on a new solver:
   * bitwise the uninterrupted result */
  {
    hm_idr_options opt;
    hm_idr_options_default(&opt);
    opt.s = 2;
    opt.tol = 1e-9;
    hm_idr_multishift *ms;
    HM_TEST_OK(hm_idr_multishift_create(op, &opt, NS, shifts, &ms));
    HM_TEST_OK(hm_idr_multishift_solve(ms, b, x));
    double complex *whole = malloc(sizeof(double complex) * (size_t)(local * KB * NS + 1));
    HM_TEST_OK(hm_mvec_get(x, whole));
    hm_idr_multishift_profile prof;
    HM_TEST_OK(hm_idr_multishift_get_profile(ms, &prof));
    hm_idr_multishift_destroy(&ms);
    HM_TEST_ASSERT(prof.repacks > 0, "the solve never repacked its blocks (%ld seed steps)", prof.seed_steps);
    const int outers = (int)((prof.seed_steps - opt.s) / (opt.s + 1)) + 1, late = 3 * outers / 4;
    for (int at = ranks ? late : 3; at <= late; at = at == 3 ? late : late + 1) {
      saved_state sv = {.at = at, .local = local};
      opt.checkpoint_every = 1;
      HM_TEST_OK(hm_idr_multishift_create(op, &opt, NS, shifts, &ms));
      HM_TEST_OK(hm_idr_multishift_set_checkpoint(ms, save, &sv));
      HM_TEST_ASSERT(hm_idr_multishift_solve(ms, b, x) == HM_ERR_STOPPED, "the checkpoint's stop was not returned");
      hm_error_clear();
      hm_idr_multishift_destroy(&ms);
      HM_TEST_ASSERT(at == 3 || sv.repacks > 0, "no repack before the checkpoint at outer iteration %d of %d", at,
                     outers);
      opt.checkpoint_every = 0;
      HM_TEST_OK(hm_idr_multishift_create(op, &opt, NS, shifts, &ms));
      HM_TEST_OK(hm_idr_multishift_restore(ms, KB, sv.scalars));
      for (int i = 0; i < sv.nb; i++) {
        hm_mvec *blk;
        HM_TEST_OK(hm_idr_multishift_state_block(ms, i, &blk));
        HM_TEST_OK(hm_mvec_set(blk, sv.blocks[i]));
        free(sv.blocks[i]);
      }
      HM_TEST_OK(hm_idr_multishift_solve(ms, b, x));
      double complex *again = malloc(sizeof(double complex) * (size_t)(local * KB * NS + 1));
      HM_TEST_OK(hm_mvec_get(x, again));
      HM_TEST_ASSERT(memcmp(whole, again, sizeof(double complex) * (size_t)(local * KB * NS)) == 0,
                     "the solve restored after outer iteration %d (%ld repacks before) differs from the uninterrupted "
                     "one", at, sv.repacks);
      hm_idr_multishift_destroy(&ms);
      free(again);
      free(sv.blocks);
      free(sv.scalars);
    }
    free(whole);
  }

  /* refused: a preconditioner, a bad shift count, a non-finite shift, a real operator */
  {
    hm_idr_options opt;
    hm_idr_options_default(&opt);
    hm_idr_multishift *ms = NULL;
    opt.precond = HM_IDR_PRECOND_JACOBI;
    HM_TEST_FAILS(hm_idr_multishift_create(op, &opt, NS, shifts, &ms), HM_ERR_ARGUMENT, "not shift-invariant");
    opt.precond = HM_IDR_PRECOND_NONE;
    HM_TEST_FAILS(hm_idr_multishift_create(op, &opt, 0, shifts, &ms), HM_ERR_ARGUMENT, "1 <= nshifts <= 1000");
    double complex bad[2] = {1, NAN};
    HM_TEST_FAILS(hm_idr_multishift_create(op, &opt, 2, bad, &ms), HM_ERR_ARGUMENT, "shift 1 is not finite");
    idr_test_random par = {N, 3, 3.5, 0, 5};
    hm_matrix *R;
    hm_operator *rop;
    HM_TEST_OK(idr_test_matrix(ctx, N, HM_REAL, idr_test_random_row, &par, 6, &R));
    HM_TEST_OK(hm_operator_create_matrix(R, &rop));
    HM_TEST_FAILS(hm_idr_multishift_create(rop, &opt, NS, shifts, &ms), HM_ERR_ARGUMENT, "complex operator");
    HM_TEST_OK(hm_idr_multishift_create(op, &opt, NS, shifts, &ms));
    hm_mvec *xs;
    HM_TEST_OK(hm_mvec_create(ctx, dist, HM_COMPLEX, KB, &xs));
    HM_TEST_FAILS(hm_idr_multishift_solve(ms, b, xs), HM_ERR_ARGUMENT, "k x nshifts");
    HM_TEST_FAILS(hm_idr_multishift_set_polish(ms, -1, 0), HM_ERR_ARGUMENT, "max_columns = -1: must be >= 0");
    HM_TEST_FAILS(hm_idr_multishift_set_polish(ms, 0, 1), HM_ERR_ARGUMENT, "stall_at = 1: must be 0 (off)");
    hm_mvec_destroy(&xs);
    hm_idr_multishift_destroy(&ms);
    hm_operator_destroy(&rop);
    hm_matrix_destroy(&R);
  }
  free(bfull);
  free(ref);
  free(got);
  free(A);
  free(rhs);
  free(dense);
  hm_operator_destroy(&op);
  hm_mvec_destroy(&b);
  hm_mvec_destroy(&x);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
