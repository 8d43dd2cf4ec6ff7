/* Matrix-free lattice operator benchmark: the fused KPM step of a TI-shaped lattice (4 orbitals, 7
 * blocks: Wilson-Dirac hops along x, y, z and the on-site block) per vector-step, next to the
 * vectors-only floor 48 R N bytes / copy bandwidth measured in the same run (read V, read and
 * write W), on the CPU or the GPU backend; also the build time and the peak device memory.
 *   bench_stencil [--backend cpu|cuda] [--nx 200 --ny 100 --nz 40] [--R 2,8,32] [--steps 10]
 * Prints one line per R: seconds per vector-step, the floor, their ratio. Exit 2 on bad options,
 * 77 where cuda is asked for and no device is visible. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_copy.h"
#include "device_memory.h"
#include "hamlet.h"
#include "hamlet/stencil.h"
#include "objects.h"
#include "stencil_free.h"

static int bad(const char *msg, const char *v) {
  fprintf(stderr, "bench_stencil: %s, got \"%s\"\n", msg, v ? v : "");
  return 2;
}

/* Gamma matrices of the 4-orbital Wilson-Dirac model: tau_z sigma_0 (mass) and tau_x sigma_a. */
static void gammas(double complex g[4][4][4]) {
  const double complex s[4][2][2] = {{{1, 0}, {0, 1}}, {{0, 1}, {1, 0}}, {{0, -I}, {I, 0}}, {{1, 0}, {0, -1}}};
  memset(g, 0, sizeof(double complex) * 64);
  for (int a = 0; a < 4; a++)
    for (int t1 = 0; t1 < 2; t1++)
      for (int t2 = 0; t2 < 2; t2++)
        for (int s1 = 0; s1 < 2; s1++)
          for (int s2 = 0; s2 < 2; s2++) {
            /* a = 0: tau_z x sigma_0; a = 1..3: tau_x x sigma_a */
            const double complex tau = a == 0 ? (t1 == t2 ? (t1 == 0 ? 1 : -1) : 0) : (t1 != t2 ? 1 : 0);
            g[a][2 * t1 + s1][2 * t2 + s2] = tau * s[a == 0 ? 0 : a][s1][s2];
          }
}

/* H = m G0 + sum_a [ (G0 (-1/2) - i/2 Ga) hop(+a) + h.c. ]: 7 blocks. */
static void ti_description(hm_stencil *s, int64_t nx, int64_t ny, int64_t nz, int32_t *shift, double *block) {
  double complex g[4][4][4];
  gammas(g);
  memset(s, 0, sizeof *s);
  s->cells[0] = nx;
  s->cells[1] = ny;
  s->cells[2] = nz;
  s->orbitals = 4;
  s->nblocks = 7;
  memset(shift, 0, sizeof(int32_t) * 21);
  for (int a = 0; a < 3; a++) {
    shift[3 * (1 + 2 * a) + a] = 1;
    shift[3 * (2 + 2 * a) + a] = -1;
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      double complex b[7];
      b[0] = 1.0 * g[0][i][j];
      for (int a = 0; a < 3; a++) {
        b[1 + 2 * a] = -0.5 * g[0][i][j] - 0.5 * I * g[1 + a][i][j];
        b[2 + 2 * a] = -0.5 * g[0][i][j] + 0.5 * I * g[1 + a][i][j]; /* the conjugate transpose (Hermitian G) */
      }
      for (int k = 0; k < 7; k++) {
        block[2 * (16 * k + 4 * i + j)] = creal(b[k]);
        block[2 * (16 * k + 4 * i + j) + 1] = cimag(b[k]);
      }
    }
  s->shift = shift;
  s->block = block;
  s->disorder_w = 1.0; /* the TI's Anderson disorder, per site */
  s->disorder_seed = 1;
  s->disorder_per_site = 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t n[3] = {200, 100, 40};
  int steps = 10, nR = 0, Rs[16];
  hm_backend backend = HM_BACKEND_CPU;
  const char *Rlist = "2,8,32";
  for (int a = 1; a < argc; a++) {
    const char *v = a + 1 < argc ? argv[a + 1] : NULL;
    if (!v) return bad("an option is missing its value", argv[a]);
    if (!strcmp(argv[a], "--backend")) {
      if (!strcmp(v, "cpu")) backend = HM_BACKEND_CPU;
      else if (!strcmp(v, "cuda")) backend = HM_BACKEND_CUDA;
      else return bad("--backend needs cpu or cuda", v);
    } else if (!strcmp(argv[a], "--nx") || !strcmp(argv[a], "--ny") || !strcmp(argv[a], "--nz")) {
      const long long x = atoll(v);
      if (x < 1 || x > 1000000) return bad("--nx, --ny, --nz need an integer in [1, 1000000]", v);
      n[argv[a][3] - 'x'] = x;
    } else if (!strcmp(argv[a], "--steps")) {
      steps = atoi(v);
      if (steps < 1 || steps > 100000) return bad("--steps needs an integer in [1, 100000]", v);
    } else if (!strcmp(argv[a], "--R")) {
      Rlist = v;
    } else {
      return bad("unknown option", argv[a]);
    }
    a++;
  }
  for (const char *p = Rlist; *p && nR < 16; nR++) {
    Rs[nR] = atoi(p);
    if (Rs[nR] < 1 || Rs[nR] > 256) return bad("--R needs integers in [1, 256], comma-separated", Rlist);
    p = strchr(p, ',');
    if (!p) { nR++; break; }
    p++;
  }
  hm_context *ctx = NULL;
  if (hm_context_create(MPI_COMM_WORLD, backend, &ctx)) {
    fprintf(stderr, "%s", hm_error_message());
    MPI_Finalize();
    return backend == HM_BACKEND_CUDA ? 77 : 1;
  }
  hm_stencil s;
  int32_t shift[21];
  double block[7 * 16 * 2];
  ti_description(&s, n[0], n[1], n[2], shift, block);
  double t0 = MPI_Wtime();
  hm_matrix *H = NULL;
  if (hm_stencil_matrix_free_create(ctx, &s, &H)) {
    fprintf(stderr, "%s", hm_error_message());
    MPI_Finalize();
    return 1;
  }
  const double build = MPI_Wtime() - t0;
  const double N = (double)n[0] * n[1] * n[2] * 4;
  double bw = 0;
  const double copy_bytes = fmin(1 << 30, fmax(64 << 20, 64 * N)); /* beyond the caches, within small tests */
  bench_copy_bandwidth(ctx, (size_t)copy_bytes, &bw);
  printf("lattice %lld x %lld x %lld, N = %.4g orbitals, backend %s, build %.3f s, copy bandwidth %.1f GB/s\n",
         (long long)n[0], (long long)n[1], (long long)n[2], N, backend == HM_BACKEND_CUDA ? "cuda" : "cpu", build,
         bw / 1e9);
  const hm_kernels *K = ctx->kernels;
  const struct hm_csr_view A = H->exec;
  for (int r = 0; r < nR; r++) {
    const int R = Rs[r];
    const hm_dist *dist;
    hm_matrix_dist(H, &dist);
    hm_mvec *V = NULL, *W = NULL;
    double *dots = NULL;
    if (hm_mvec_create(ctx, dist, HM_COMPLEX, R, &V) || hm_mvec_create(ctx, dist, HM_COMPLEX, R, &W) ||
        K->alloc(sizeof(double) * 2 * R, (void **)&dots)) {
      fprintf(stderr, "R = %d: %s", R, hm_error_message());
      hm_error_clear();
      hm_mvec_destroy(&V);
      hm_mvec_destroy(&W);
      continue;
    }
    hm_mvec_random_phase(V, 3);
    int st = K->kpm_step(HM_COMPLEX, &A, R, H->exec_interior, H->n_interior, 0.1, 0, V->data, W->data, dots);
    if (K->synchronize) st |= K->synchronize();
    t0 = MPI_Wtime();
    for (int q = 0; q < steps && !st; q++) {
      st = K->kpm_step(HM_COMPLEX, &A, R, H->exec_interior, H->n_interior, 0.1, 0, V->data, W->data, dots);
      hm_mvec *t = V; /* the recurrence's swap, as hm_kpm_run does */
      V = W;
      W = t;
    }
    if (K->synchronize) st |= K->synchronize();
    const double per = (MPI_Wtime() - t0) / steps / R, floor = 48.0 * N / bw;
    if (st) fprintf(stderr, "R = %d: %s", R, hm_error_message());
    else
      printf("R = %3d: %.4g s per vector-step, floor 48 N / bandwidth %.4g s, ratio %.2f\n", R, per, floor,
             per / floor);
    hm_mvec_destroy(&V);
    hm_mvec_destroy(&W);
    K->release(dots);
  }
  printf("peak device memory %.3f GB\n", (double)hm_device_memory_peak() / 1e9);
  hm_matrix_destroy(&H);
  hm_context_destroy(&ctx);
  MPI_Finalize();
  return 0;
}
