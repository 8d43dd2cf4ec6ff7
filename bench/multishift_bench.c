/* Multi-shift IDR(s) benchmark: the TI LDOS problem (z_e - H) x = e_(i,o) at NE energies
 * z_e = E_e + i eta over [emin, emax], 4 orbitals x sites right-hand sides (k columns), solved
 *   1. by one multi-shift IDR(s) (all energies), with the solver's profile: seed steps, operator
 *      applications of the seed and of the true-residual checks, shift columns updated, reductions,
 *      seconds per part;
 *   2. by the per-energy batches (one IDR(s) of k columns per energy, what `multishift = no` runs);
 * both in this run, with the largest relative difference of G_ii between them, and the traffic
 * bound of the multi-shift steps (bench/README.md, "Multi-shift IDR(s)"):
 *   bytes per seed step = 16 n [ Ka (s + 3) + k (s + 12) ] + 20 nnz,
 * Ka the shift columns the step updates (K = k NE while none has converged; the profile counts them),
 * at the copy bandwidth measured here (or --bw).
 * --rhs-per-solve w solves the k columns in groups of w (each column keeps (s + 1) x NE vectors: the
 * 3.2e6-orbital TI at 101 energies needs w <= 2 on an 80 GB GPU); --per-energy-every m solves every
 * m-th energy only in the per-energy batches and scales their time by NE / (energies solved).
 *   bench_multishift [--backend cpu|cuda] [--ti 16 16 10] [--energies 101] [--emin -3] [--emax 3]
 *                    [--eta 0.05] [--tol 1e-8] [--s 4] [--sites 2] [--rhs-per-solve 0] [--per-energy 1]
 *                    [--per-energy-every 1] [--bw GB/s] [--copy-mib 256] [--polish-columns 0]
 *                    [--detail]
 * --polish-columns c: the most columns of one batched polish solve (0: the solver's choice by memory).
 * --detail: per energy, the iterations of each system in both methods. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hamlet.h"
#include "bench_copy.h"
#include "idr_multishift_internal.h"

#define CHECK(expr)                                                              \
  do {                                                                           \
    int st_ = (expr);                                                            \
    if (st_) {                                                                   \
      fprintf(stderr, "%s failed (%d):\n%s\n", #expr, st_, hm_error_message()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                              \
    }                                                                            \
  } while (0)

/* A solve that did not converge is reported (its numbers stay in the table), anything else aborts. */
static void tolerate(int st, const char *what, int rank) {
  if (st && st != HM_ERR_NOT_CONVERGED && st != HM_ERR_BREAKDOWN) CHECK(st);
  if (st && rank == 0) fprintf(stderr, "note (%s): %s\n", what, hm_error_message());
  hm_error_clear();
}

/* B = e_(i,o) for the sites (1,1,0), (2,2,1), (3,3,2), ... (the rows of the app's site vectors). */
static void site_vectors(const hm_ti_params *tp, const hm_dist *dist, int sites, hm_mvec *B) {
  int64_t first, local;
  CHECK(hm_dist_range(dist, &first, &local, NULL));
  const int k = 4 * sites;
  double complex *e = calloc((size_t)(local * k) + 1, sizeof(double complex));
  for (int i = 0; i < sites; i++)
    for (int o = 0; o < 4; o++) {
      const int64_t row = 4 * ((1 + i) % tp->nx + tp->nx * ((1 + i) % tp->ny + tp->ny * (i % tp->nz))) + o;
      if (row >= first && row < first + local) e[(row - first) * k + 4 * i + o] = 1;
    }
  CHECK(hm_mvec_set(B, e));
  free(e);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  setvbuf(stdout, NULL, _IOLBF, 0); /* each result line out as it comes (a run cut by a time limit keeps them) */
  hm_backend backend = HM_BACKEND_CPU;
  int64_t ti[3] = {16, 16, 10};
  int ne = 101, s = 4, sites = 2, per_energy = 1, per_solve = 0, every = 1, polish_columns = 0, detail = 0;
  double emin = -3, emax = 3, eta = 0.05, tol = 1e-8, bw = 0;
  size_t copy_mib = 256;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
      i++;
      backend = !strcmp(argv[i], "cuda") ? HM_BACKEND_CUDA : !strcmp(argv[i], "auto") ? HM_BACKEND_AUTO : HM_BACKEND_CPU;
    } else if (!strcmp(argv[i], "--ti") && i + 3 < argc) {
      for (int d = 0; d < 3; d++) ti[d] = atoll(argv[++i]);
    } else if (!strcmp(argv[i], "--energies") && i + 1 < argc) ne = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--emin") && i + 1 < argc) emin = atof(argv[++i]);
    else if (!strcmp(argv[i], "--emax") && i + 1 < argc) emax = atof(argv[++i]);
    else if (!strcmp(argv[i], "--eta") && i + 1 < argc) eta = atof(argv[++i]);
    else if (!strcmp(argv[i], "--tol") && i + 1 < argc) tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--s") && i + 1 < argc) s = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--sites") && i + 1 < argc) sites = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--per-energy") && i + 1 < argc) per_energy = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--per-energy-every") && i + 1 < argc) every = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rhs-per-solve") && i + 1 < argc) per_solve = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--bw") && i + 1 < argc) bw = atof(argv[++i]) * 1e9;
    else if (!strcmp(argv[i], "--copy-mib") && i + 1 < argc) copy_mib = (size_t)atol(argv[++i]);
    else if (!strcmp(argv[i], "--polish-columns") && i + 1 < argc) polish_columns = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--detail")) detail = 1;
    else {
      fprintf(stderr, "unknown or incomplete option %s\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (ne < 1 || ne > 1000 || s < 1 || s > 64 || sites < 1 || sites > 16 || per_solve < 0 || every < 1 ||
      polish_columns < 0) {
    fprintf(stderr, "--energies must be 1..1000, --s 1..64, --sites 1..16, --rhs-per-solve >= 0, "
            "--per-energy-every >= 1, --polish-columns >= 0\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  hm_context *ctx;
  CHECK(hm_context_create(MPI_COMM_WORLD, backend, &ctx));
  int rank, size;
  hm_context_rank(ctx, &rank, &size);
  hm_context_backend(ctx, &backend);
  const int measured = bw <= 0;
  if (measured) {
    CHECK(bench_copy_bandwidth(ctx, copy_mib << 20, &bw));
    bw *= size; /* all ranks stream at once */
  }
  hm_ti_params tp;
  hm_ti_params_default(&tp);
  tp.nx = ti[0];
  tp.ny = ti[1];
  tp.nz = ti[2];
  tp.boundary[2] = HM_BC_OPEN;
  hm_matrix *H;
  CHECK(hm_ti_build(ctx, &tp, &H));
  int64_t n, nnz;
  CHECK(hm_matrix_info(H, &n, &nnz, NULL));
  const hm_dist *dist;
  CHECK(hm_matrix_dist(H, &dist));
  const int k = 4 * sites, K = k * ne, kg = per_solve > 0 && per_solve < k ? per_solve : k;
  if (rank == 0)
    printf("multi-shift IDR(%d) benchmark: backend %s, %d ranks, TI %lld x %lld x %lld (n = %lld, nnz = %lld), "
           "%d energies in [%g, %g], eta %g, tol %g, %d right-hand sides; bandwidth %.1f GB/s (%s)\n",
           s, backend == HM_BACKEND_CUDA ? "cuda" : "cpu", size, (long long)ti[0], (long long)ti[1], (long long)ti[2],
           (long long)n, (long long)nnz, ne, emin, emax, eta, tol, k, bw / 1e9,
           measured ? "copy measured in this run, read + write" : "--bw");
  double complex *z = malloc(sizeof(double complex) * (size_t)ne);
  for (int e = 0; e < ne; e++) z[e] = CMPLX(ne > 1 ? emin + (emax - emin) * e / (ne - 1) : emin, eta);
  hm_mvec *B, *Xe;
  CHECK(hm_mvec_create(ctx, dist, HM_COMPLEX, k, &B));
  CHECK(hm_mvec_create(ctx, dist, HM_COMPLEX, k, &Xe));
  site_vectors(&tp, dist, sites, B);
  hm_idr_options opt;
  CHECK(hm_idr_options_default(&opt));
  opt.s = s;
  opt.tol = tol;
  opt.maxit = 20000;
  opt.history = 0;

  /* 1. multi-shift: (-H + z_e) x = e, the columns in groups of kg (the profile summed over them) */
  const double complex zero = 0;
  hm_operator *A;
  CHECK(hm_operator_create_shifted(H, 1, &zero, &A));
  hm_idr_multishift_profile p = {0};
  int *its = malloc(sizeof(int) * (size_t)K), *conv = malloc(sizeof(int) * (size_t)K);
  double *tru = malloc(sizeof(double) * (size_t)K);
  double complex *G_ms = malloc(sizeof(double complex) * (size_t)K), *G_pe = calloc((size_t)K, sizeof(double complex));
  double t_ms = 0;
  for (int c0 = 0; c0 < k; c0 += kg) {
    const int w = kg < k - c0 ? kg : k - c0;
    hm_mvec *Bg, *X, *Xg;
    CHECK(hm_mvec_create(ctx, dist, HM_COMPLEX, w, &Bg));
    CHECK(hm_mvec_create(ctx, dist, HM_COMPLEX, w * ne, &X));
    CHECK(hm_mvec_create(ctx, dist, HM_COMPLEX, w, &Xg));
    CHECK(hm_mvec_copy_columns(B, c0, Bg, 0, w));
    hm_idr_multishift *ms;
    CHECK(hm_idr_multishift_create(A, &opt, ne, z, &ms));
    CHECK(hm_idr_multishift_set_polish(ms, polish_columns, 0));
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    tolerate(hm_idr_multishift_solve(ms, Bg, X), "multi-shift", rank);
    t_ms += MPI_Wtime() - t;
    hm_idr_multishift_profile pg;
    CHECK(hm_idr_multishift_get_profile(ms, &pg));
    p.seed_steps += pg.seed_steps;
    p.seed_products += pg.seed_products;
    p.check_products += pg.check_products;
    p.shift_columns += pg.shift_columns;
    p.running_columns += pg.running_columns;
    p.repacks += pg.repacks;
    p.t_host_coef += pg.t_host_coef;
    p.t_host_omega += pg.t_host_omega;
    p.reductions += pg.reductions;
    p.polish_solves += pg.polish_solves;
    p.polish_columns += pg.polish_columns;
    p.stalled_columns += pg.stalled_columns;
    p.maxit_columns += pg.maxit_columns;
    p.polish_iterations += pg.polish_iterations;
    p.t_seed += pg.t_seed;
    p.t_shift += pg.t_shift;
    p.t_check += pg.t_check;
    p.t_polish += pg.t_polish;
    p.t_total += pg.t_total;
    int *gi = malloc(sizeof(int) * (size_t)(w * ne)), *gc = malloc(sizeof(int) * (size_t)(w * ne));
    double *gt = malloc(sizeof(double) * (size_t)(w * ne));
    double complex dots[64];
    CHECK(hm_idr_multishift_results(ms, gi, gc, NULL, gt));
    for (int e = 0; e < ne; e++) {
      CHECK(hm_mvec_copy_columns(X, e * w, Xg, 0, w));
      CHECK(hm_mvec_dot(Bg, Xg, dots));
      for (int j = 0; j < w; j++) {
        const size_t c = (size_t)e * k + c0 + j, q = (size_t)e * w + j;
        G_ms[c] = dots[j];
        its[c] = gi[q];
        conv[c] = gc[q];
        tru[c] = gt[q];
      }
    }
    free(gi);
    free(gc);
    free(gt);
    hm_idr_multishift_destroy(&ms);
    hm_mvec_destroy(&Bg);
    hm_mvec_destroy(&X);
    hm_mvec_destroy(&Xg);
  }
  long sum_its = 0;
  int nconv = 0;
  double worst = 0;
  for (int c = 0; c < K; c++) {
    sum_its += its[c];
    nconv += conv[c];
    worst = fmax(worst, tru[c]);
  }
  const double steps = (double)p.seed_steps, Ka = steps > 0 ? (double)p.shift_columns / steps : 0;
  const double step_bytes = 16.0 * (double)n * (Ka * (s + 3) + kg * (s + 12)) + 20.0 * (double)nnz;
  const double full_bytes = 16.0 * (double)n * ((double)kg * ne * (s + 3) + kg * (s + 12)) + 20.0 * (double)nnz;
  const double Kr = steps > 0 ? (double)p.running_columns / steps : 0; /* the systems still moving */
  const double run_bytes = 16.0 * (double)n * (Kr * (s + 3) + kg * (s + 12)) + 20.0 * (double)nnz;
  if (rank == 0) {
    printf("\nmulti-shift (%d right-hand sides per solve): %.3f s, %d of %d systems converged, largest true residual "
           "%.2e, iterations summed %ld\n", kg, t_ms, nconv, K, worst, sum_its);
    printf("  seed steps %ld (outer iterations %.1f); per seed step: products %.2f columns (seed %d), true-residual "
           "products %.2f columns, shift columns updated %.1f of %d, reductions %.2f\n",
           p.seed_steps, steps / (s + 1), steps > 0 ? (double)(p.seed_products + p.check_products) / steps : 0, kg,
           steps > 0 ? (double)p.check_products / steps : 0, Ka, kg * ne, steps > 0 ? (double)p.reductions / steps : 0);
    printf("  seconds: seed %.3f, shift updates %.3f, true-residual checks %.3f, polish %.3f "
           "(%ld batched solves of %ld columns, %ld iterations summed over the columns; includes their checks), "
           "total %.3f\n", p.t_seed, p.t_shift, p.t_check, p.t_polish, p.polish_solves, p.polish_columns,
           p.polish_iterations, p.t_total);
    printf("  sent to polish: %ld systems whose true residual stalled above tol, %ld still running when the seed "
           "reached maxit = %d\n", p.stalled_columns, p.maxit_columns, opt.maxit);
    printf("  bound: %.0f seed steps x %.3g GB (%.3g GB with all K columns) at %.1f GB/s = %.3f s (%.3f s): "
           "%.0f%% of the bound (%.0f%% of the all-columns bound)\n",
           steps, step_bytes / 1e9, full_bytes / 1e9, bw / 1e9, steps * step_bytes / bw, steps * full_bytes / bw,
           100 * steps * step_bytes / bw / t_ms, 100 * steps * full_bytes / bw / t_ms);
    printf("  bound of the running systems' columns (%.1f per step; the others stopped, packed until the next "
           "repack; %ld repacks): %.3f s, %.0f%%; host work while the device waits: coefficients %.3f s, omega choice "
           "%.3f s\n", Kr, p.repacks, steps * run_bytes / bw, 100 * steps * run_bytes / bw / t_ms, p.t_host_coef,
           p.t_host_omega);
  }
  hm_operator_destroy(&A);

  /* 2. the per-energy batches: (z_e - H) x = e, k columns per solve */
  if (per_energy) {
    double t_pe = 0;
    long pe_its = 0, pe_steps = 0;
    int pe_conv = 0;
    int solved = 0;
    for (int e = 0; e < ne; e += every, solved++) {
      hm_operator *Ae;
      hm_idr *idr;
      CHECK(hm_operator_create_shifted(H, 1, &z[e], &Ae));
      CHECK(hm_idr_create(Ae, &opt, &idr));
      double complex zeros[64] = {0};
      CHECK(hm_mvec_axpby(Xe, zeros, B, zeros));
      MPI_Barrier(MPI_COMM_WORLD);
      double t = MPI_Wtime();
      tolerate(hm_idr_solve(idr, B, Xe), "per-energy", rank);
      t_pe += MPI_Wtime() - t;
      CHECK(hm_mvec_dot(B, Xe, G_pe + (size_t)e * k));
      int it[64], cv[64];
      CHECK(hm_idr_systems(idr, it, cv, NULL));
      int most = 0;
      if (detail && rank == 0) {
        printf("energy %3d (%+.3f): per-energy iterations", e, creal(z[e]));
        for (int j = 0; j < k; j++) printf(" %d", it[j]);
        printf("; multi-shift");
        for (int j = 0; j < k; j++) printf(" %d%s", its[(size_t)e * k + j], conv[(size_t)e * k + j] ? "" : "!");
        printf("\n");
      }
      for (int j = 0; j < k; j++) {
        pe_its += it[j];
        pe_conv += cv[j];
        most = it[j] > most ? it[j] : most;
      }
      pe_steps += most;
      hm_idr_destroy(&idr);
      hm_operator_destroy(&Ae);
    }
    double diff = 0, scale = 0;
    for (int c = 0; c < K; c++) {
      if ((c / k) % every) continue;
      diff = fmax(diff, cabs(G_ms[c] - G_pe[c]));
      scale = fmax(scale, cabs(G_pe[c]));
    }
    const double pe_step = 16.0 * (double)n * k * (3 * s + 14) + 20.0 * (double)nnz;
    const double scale_up = (double)ne / solved;
    if (rank == 0) {
      if (every > 1)
        printf("\nper-energy batches at %d of the %d energies (every %d-th): %.3f s; times below scaled by %.2f\n",
               solved, ne, every, t_pe, scale_up);
      t_pe *= scale_up;
      printf("\nper-energy batches: %.3f s, %d of %d systems converged, iterations summed %ld, batch steps %ld "
             "(their bound %.3f s)\n", t_pe, pe_conv, solved * k, pe_its, pe_steps,
             (double)pe_steps * scale_up * pe_step / bw);
      printf("multi-shift / per-energy time: %.3f (%.2fx faster); largest |G_ms - G_per| / max |G| = %.2e\n",
             t_ms / t_pe, t_pe / t_ms, scale > 0 ? diff / scale : diff);
    }
  }
  free(z);
  free(its);
  free(conv);
  free(tru);
  free(G_ms);
  free(G_pe);
  hm_mvec_destroy(&B);
  hm_mvec_destroy(&Xe);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  MPI_Finalize();
  return 0;
}
