/* ChebFD (method = interior) on a disordered TI slab (open in z; --sides open: open on every face): the
 * eigenpairs in a window around E = 0, the filter's seconds per vector-step next to the vectors-only
 * floor measured in the same run, and the share of orthonormalization, Rayleigh-Ritz and locking next
 * to the filter.
 *   bench_interior [--backend cpu|cuda] [--nx 40 --ny 40 --nz 20] [--sides periodic|open] [--disorder 0.5]
 *                  [--window 0.1] [--degree 0] [--search 0]
 * The floor counts the vectors one filter step streams as implemented: the fused Chebyshev step
 * reads V and reads and writes W, the series adds W into Y (reads W, reads and writes Y): six
 * vectors of 16 bytes (complex) per row, 96 N bytes / copy bandwidth per vector-step (the matrix is
 * not counted: matrix-free operators hold none). HAMLET_BENCH_VERBOSE set in the environment prints a
 * line per filter pass. Exit 2 on bad options, 77 where cuda is asked for and no device is visible. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_copy.h"
#include "hamlet.h"
#include "testing.h"

static int bad(const char *msg, const char *v) {
  fprintf(stderr, "bench_interior: %s '%s'\n"
                  "usage: bench_interior [--backend cpu|cuda] [--nx n --ny n --nz n] [--sides periodic|open] "
                  "[--disorder w] [--window half] [--degree n] [--search n]\n",
          msg, v ? v : "");
  return 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t nx = 40, ny = 40, nz = 20;
  double disorder = 0.5, half = 0.1;
  int fixed_degree = 0, fixed_search = 0; /* 0: the solver's own choice */
  hm_backend backend = HM_BACKEND_CPU;
  hm_boundary sides = HM_BC_PERIODIC; /* x and y */
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    if (!v) return MPI_Finalize(), bad("missing value after", argv[i]);
    if (!strcmp(argv[i], "--backend")) {
      if (!strcmp(v, "cpu")) backend = HM_BACKEND_CPU;
      else if (!strcmp(v, "cuda")) backend = HM_BACKEND_CUDA;
      else return MPI_Finalize(), bad("backend must be cpu or cuda, not", v);
    } else if (!strcmp(argv[i], "--sides")) {
      if (!strcmp(v, "periodic")) sides = HM_BC_PERIODIC;
      else if (!strcmp(v, "open")) sides = HM_BC_OPEN;
      else return MPI_Finalize(), bad("sides must be periodic or open, not", v);
    } else if (!strcmp(argv[i], "--nx") || !strcmp(argv[i], "--ny") || !strcmp(argv[i], "--nz")) {
      long long n = strtoll(v, &end, 10);
      if (*end || n < 1) return MPI_Finalize(), bad("sites must be a positive integer, not", v);
      *(argv[i][3] == 'x' ? &nx : argv[i][3] == 'y' ? &ny : &nz) = n;
    } else if (!strcmp(argv[i], "--degree") || !strcmp(argv[i], "--search")) {
      long d = strtol(v, &end, 10);
      if (*end || d < 0 || d > 1000000) return MPI_Finalize(), bad("must be an integer in [0, 10^6], not", v);
      *(argv[i][2] == 'd' ? &fixed_degree : &fixed_search) = (int)d;
    } else if (!strcmp(argv[i], "--disorder") || !strcmp(argv[i], "--window")) {
      double x = strtod(v, &end);
      if (*end || !(x >= 0) || !isfinite(x)) return MPI_Finalize(), bad("must be a number >= 0, not", v);
      *(argv[i][2] == 'd' ? &disorder : &half) = x;
    } else {
      return MPI_Finalize(), bad("unknown option", argv[i]);
    }
    i++;
  }
  if (!(half > 0)) return MPI_Finalize(), bad("--window must be > 0", "");
  hm_context *ctx;
  if (backend == HM_BACKEND_CUDA) HM_TEST_NEED_GPU(); /* the suite's rule: only "no GPU visible" skips */
  if (hm_context_create(MPI_COMM_WORLD, backend, &ctx)) {
    fprintf(stderr, "bench_interior: %s", hm_error_message());
    MPI_Finalize();
    return 1;
  }
  int rank;
  hm_context_rank(ctx, &rank, NULL);
  hm_ti_params p;
  hm_ti_params_default(&p);
  p.nx = nx; p.ny = ny; p.nz = nz;
  p.boundary[0] = p.boundary[1] = sides;
  p.boundary[2] = HM_BC_OPEN;
  p.disorder_w = disorder;
  hm_matrix *H;
  int st = hm_ti_build(ctx, &p, &H);
  double bw = 0;
  int64_t N = 0;
  if (!st) st = hm_matrix_info(H, &N, NULL, NULL);
  if (!st) st = bench_copy_bandwidth(ctx, (size_t)fmin(1 << 30, fmax(64 << 20, 64.0 * N)), &bw);
  hm_interior_options opt;
  hm_interior_options_default(&opt);
  opt.emin = -half;
  opt.emax = half;
  opt.degree = fixed_degree;
  opt.search = fixed_search;
  opt.verbosity = getenv("HAMLET_BENCH_VERBOSE") ? 1 : 0;
  hm_interior *in = NULL;
  const double t0 = MPI_Wtime();
  if (!st) st = hm_interior_create(H, &opt, &in);
  if (!st) st = hm_interior_run(in);
  const double total = MPI_Wtime() - t0;
  if (st) {
    fprintf(stderr, "bench_interior: %s", hm_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int found, degree, search, passes, converged;
  double estimate, filter, other, steps;
  hm_interior_info(in, &found, &estimate, &degree, &search, &passes, &converged);
  hm_interior_timing(in, &filter, &other, &steps);
  /* the slowest rank sets the pace */
  MPI_Allreduce(MPI_IN_PLACE, &filter, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &other, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    const double per = filter / steps, floor = 96.0 * (double)N / (bw * size);
    printf("TI %s %lld x %lld x %lld (N = %lld), disorder %g, window [%g, %g], %s, %d ranks\n",
           sides == HM_BC_OPEN ? "box" : "slab", (long long)nx,
           (long long)ny, (long long)nz, (long long)N, disorder, -half, half,
           backend == HM_BACKEND_CUDA ? "cuda" : "cpu", size);
    printf("found %d (KPM estimate %.1f)%s, degree %d, search %d, passes %d, vector-steps %.4g, total %.3f s\n", found,
           estimate, converged ? "" : " NOT converged", degree, search, passes, steps, total);
    printf("filter %.3f s: %.4g s per vector-step, floor 96 N / bandwidth %.4g s (copy %.1f GB/s per rank), "
           "ratio %.2f\n",
           filter, per, floor, bw / 1e9, per / floor);
    printf("orthonormalization + Rayleigh-Ritz + locking %.3f s: %.0f%% of the filter's time\n", other,
           100 * other / fmax(filter, 1e-300));
  }
  hm_interior_destroy(&in);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  MPI_Finalize();
  return converged ? 0 : 1;
}
