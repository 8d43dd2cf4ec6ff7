/* Matrix-free lattice operator benchmark: the fused KPM step per vector-step of one of three models,
 *   ti:        the Wilson-Dirac TI (4 orbitals, 7 blocks: hops along x, y, z and the on-site block,
 *              13 hoppings per orbital, disorder per site),
 *   graphene:  the honeycomb lattice (2 orbitals, 5 blocks, 3 hoppings per orbital; use --nz 1),
 *   wannier30: a Wannier-like model (2 orbitals, dense random Hermitian 2 x 2 blocks on R = 0 and
 *              its 18 first and second neighbours: 38 hoppings per orbital),
 * next to the vectors-only floor 48 R N bytes / copy bandwidth measured in the same run (read V,
 * read and write W), on the CPU or the GPU backend; also the build time, the peak device memory
 * and the host bytes per orbital the operator itself holds (nothing of size N).
 *   bench_stencil [--backend cpu|cuda] [--model ti|graphene|wannier30] [--nx 200 --ny 100 --nz 40]
 *                 [--R 2,8,32] [--steps 10] [--kernels site,small,box,staged,staged:generic,...]
 * Prints one line per R: seconds per vector-step, the floor, their ratio. --kernels (CUDA): a line
 * per R and kernel, each measured after setting HAMLET_STENCIL_KERNEL (auto: unset) and, after a
 * colon, HAMLET_STENCIL_STAGED_KINDS (gpu/stencil_staged_cuda.cu), which the library reads at
 * every launch: one lattice (and one setup of N = 10^9) for all of them. Exit 2 on bad options,
 * 77 where cuda is asked for and no device is visible (1 where HAMLET_TEST_REQUIRE names gpu), 1 where
 * the device query or the context fails. */
#define _POSIX_C_SOURCE 200809L /* setenv */
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
#include "testing.h"

static int bad(const char *msg, const char *v) {
  fprintf(stderr, "bench_stencil: %s, got \"%s\"\n", msg, v ? v : "");
  return 2;
}

/* One item of --kernels, KERNEL[:KINDS]: whether it names a kernel (and the staged kernel's arithmetic). */
static int kernel_item_valid(const char *item) {
  static const char *const kernels[] = {"auto", "site", "small", "mma", "staged", "box"};
  static const char *const variants[] = {"generic"}; /* the staged kernel without the TI's kinds */
  const char *colon = strchr(item, ':');
  const size_t len = colon ? (size_t)(colon - item) : strlen(item);
  int known = 0;
  for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
    if (strlen(kernels[i]) == len && !strncmp(item, kernels[i], len)) known = 1;
  if (!known || !colon) return known;
  if (len != 6 || strncmp(item, "staged", 6)) return 0; /* :generic is the staged kernel's */
  for (size_t i = 0; i < sizeof variants / sizeof *variants; i++)
    if (!strcmp(colon + 1, variants[i])) return 1;
  return 0;
}

/* Set the environment for --kernels item `item` (NULL: leave it as it is). */
static void choose_kernel(const char *item) {
  if (!item) return;
  char kernel[16] = {0};
  const char *colon = strchr(item, ':');
  snprintf(kernel, sizeof kernel, "%.*s", colon ? (int)(colon - item) : (int)strlen(item), item);
  if (!strcmp(kernel, "auto")) unsetenv("HAMLET_STENCIL_KERNEL");
  else setenv("HAMLET_STENCIL_KERNEL", kernel, 1);
  if (colon) setenv("HAMLET_STENCIL_STAGED_KINDS", colon + 1, 1);
  else unsetenv("HAMLET_STENCIL_STAGED_KINDS");
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

/* Graphene: A(c) to B(c), B(c - a1), B(c - a2) with t = -1, and the conjugates (5 blocks). */
static void graphene_description(hm_stencil *s, int32_t *shift, double *block) {
  static const int32_t R[5][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
  s->orbitals = 2;
  s->nblocks = 5;
  memcpy(shift, R, sizeof R);
  memset(block, 0, sizeof(double) * 5 * 4 * 2);
  block[2 * (0 * 4 + 1)] = block[2 * (0 * 4 + 2)] = -1; /* R = 0: A-B and B-A */
  block[2 * (1 * 4 + 1)] = -1;                          /* R = -a1: A to B */
  block[2 * (2 * 4 + 2)] = -1;                          /* R = +a1: B to A */
  block[2 * (3 * 4 + 1)] = -1;
  block[2 * (4 * 4 + 2)] = -1;
  s->shift = shift;
  s->block = block;
}

/* A Wannier-like model: 2 orbitals, R = 0 and the 18 R with |R|^2 = 1 or 2, dense 2 x 2 blocks of
 * fixed pseudo-random amplitudes decaying with |R|, H(-R) = H(R)^dagger: 38 hoppings per orbital. */
static void wannier30_description(hm_stencil *s, int32_t *shift, double *block) {
  int nb = 0;
  uint64_t state = 12345;
  for (int z = -1; z <= 1; z++)
    for (int y = -1; y <= 1; y++)
      for (int x = -1; x <= 1; x++) {
        const int r2 = x * x + y * y + z * z;
        if (r2 > 2) continue;
        shift[3 * nb] = x;
        shift[3 * nb + 1] = y;
        shift[3 * nb + 2] = z;
        nb++;
      }
  for (int b = 0; b < nb; b++) {
    int q = 0; /* the partner block, -R */
    while (shift[3 * q] != -shift[3 * b] || shift[3 * q + 1] != -shift[3 * b + 1] || shift[3 * q + 2] != -shift[3 * b + 2]) q++;
    if (q < b) continue;
    const int r2 = shift[3 * b] * shift[3 * b] + shift[3 * b + 1] * shift[3 * b + 1] + shift[3 * b + 2] * shift[3 * b + 2];
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) {
        if (q == b && j < i) continue;
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const double re = ((double)(state >> 11) * 0x1.0p-53 - 0.5) / (1 + r2);
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const double im = q == b && i == j ? 0 : ((double)(state >> 11) * 0x1.0p-53 - 0.5) / (1 + r2);
        block[2 * (4 * b + 2 * i + j)] = re; /* H(R)_ij and H(-R)_ji = its conjugate */
        block[2 * (4 * b + 2 * i + j) + 1] = im;
        block[2 * (4 * q + 2 * j + i)] = re;
        block[2 * (4 * q + 2 * j + i) + 1] = -im;
      }
  }
  s->orbitals = 2;
  s->nblocks = nb;
  s->shift = shift;
  s->block = block;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int64_t n[3] = {200, 100, 40};
  int steps = 10, nR = 0, Rs[16];
  hm_backend backend = HM_BACKEND_CPU;
  const char *Rlist = "2,8,32", *model = "ti";
  char kernel_list[256] = {0};
  const char *kernels[8] = {NULL}; /* --kernels items; none: one run as the environment says */
  int nkernels = 0;
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
    } else if (!strcmp(argv[a], "--model")) {
      if (strcmp(v, "ti") && strcmp(v, "graphene") && strcmp(v, "wannier30"))
        return bad("--model needs ti, graphene or wannier30", v);
      model = v;
    } else if (!strcmp(argv[a], "--R")) {
      Rlist = v;
    } else if (!strcmp(argv[a], "--kernels")) {
      if (strlen(v) >= sizeof kernel_list) return bad("--kernels is too long (255 characters at most)", v);
      strcpy(kernel_list, v);
      nkernels = 0;
      for (char *item = strtok(kernel_list, ","); item; item = strtok(NULL, ",")) {
        if (nkernels == 8) return bad("--kernels takes 8 items at most", v);
        if (!kernel_item_valid(item))
          return bad("--kernels needs items auto, site, small, mma, staged or box, staged with or without :generic, "
                     "comma-separated",
                     item);
        kernels[nkernels++] = item;
      }
      if (nkernels == 0) return bad("--kernels needs at least one item", v);
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
  /* Only "no GPU visible" skips (the unit tests' probe); a failing device query or context fails. */
  if (backend == HM_BACKEND_CUDA) HM_TEST_NEED_GPU();
  hm_context *ctx = NULL;
  if (hm_context_create(MPI_COMM_WORLD, backend, &ctx)) {
    fprintf(stderr, "%s", hm_error_message());
    MPI_Finalize();
    return 1;
  }
  hm_stencil s;
  int32_t shift[27 * 3];
  double block[27 * 16 * 2];
  ti_description(&s, n[0], n[1], n[2], shift, block); /* sizes and boundaries; the model's blocks next */
  if (!strcmp(model, "graphene")) {
    s.disorder_w = 0;
    graphene_description(&s, shift, block);
  } else if (!strcmp(model, "wannier30")) {
    s.disorder_w = 0;
    wannier30_description(&s, shift, block);
  }
  double t0 = MPI_Wtime();
  hm_matrix *H = NULL;
  if (hm_stencil_matrix_free_create(ctx, &s, &H)) {
    fprintf(stderr, "%s", hm_error_message());
    MPI_Finalize();
    return 1;
  }
  const double build = MPI_Wtime() - t0;
  const double N = (double)n[0] * n[1] * n[2] * s.orbitals;
  double bw = 0;
  const double copy_bytes = fmin(1 << 30, fmax(64 << 20, 64 * N)); /* beyond the caches, within small tests */
  bench_copy_bandwidth(ctx, (size_t)copy_bytes, &bw);
  printf("model %s (%d orbitals, %d hoppings per orbital), lattice %lld x %lld x %lld, N = %.4g orbitals, backend %s, "
         "build %.3f s, copy bandwidth %.1f GB/s\n",
         model, s.orbitals, H->stencil->exec.nhops / s.orbitals, (long long)n[0], (long long)n[1], (long long)n[2], N,
         backend == HM_BACKEND_CUDA ? "cuda" : "cpu", build, bw / 1e9);
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
    for (int k = 0; k < (nkernels ? nkernels : 1); k++) {
      char label[32] = "";
      if (nkernels) snprintf(label, sizeof label, ", %s", kernels[k]);
      choose_kernel(kernels[k]);
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
      if (st) {
        fprintf(stderr, "R = %d%s: %s", R, label, hm_error_message());
        hm_error_clear();
      } else {
        printf("R = %3d%s: %.4g s per vector-step, floor 48 N / bandwidth %.4g s, ratio %.2f\n", R, label, per, floor,
               per / floor);
      }
    }
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
