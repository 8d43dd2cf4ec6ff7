/* Lattice models through hm_matrix_create_stencil (assembled), against exact references: a ring with
 * twist theta has the spectrum 2t cos((2 pi k + theta)/L); the square lattice at flux p/q per
 * plaquette has the union over the supercell's k-points of the q x q Harper matrix's eigenvalues;
 * around every plaquette of the assembled matrix (the seams included), square and oblique cells, the
 * product of hoppings is exp(-2 pi i flux); an incommensurate field names the nearest allowed ones. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testing.h"
#include "lattice_test_util.h"

static char path[256];

static void model_file(const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Assembled dense matrix of L with p, checked against the definition written in the test. */
static double complex *assembled(hm_context *ctx, const hm_lattice *L, const hm_lattice_params *p, int64_t *n) {
  hm_lattice_stencil s;
  HM_TEST_OK(hm_lattice_make_stencil(L, p, &s));
  hm_matrix *H = NULL;
  HM_TEST_OK(hm_matrix_create_stencil(ctx, &s.stencil, HM_STENCIL_ASSEMBLED, &H));
  double complex *dense = NULL;
  HM_TEST_OK(hm_test_dense(H, &dense, n));
  int64_t N;
  double complex *ref = lattice_dense(&s.stencil, &N);
  double diff = 0;
  for (int64_t e = 0; e < N * N && N == *n; e++) diff = fmax(diff, cabs(ref[e] - dense[e]));
  HM_TEST_ASSERT(N == *n && diff < 1e-13, "assembled matrix differs from the stencil formula by %g", diff);
  free(ref);
  hm_matrix_destroy(&H);
  hm_lattice_stencil_free(&s);
  return dense;
}

static void ring(hm_context *ctx) {
  model_file("orbital 0 0 0\nhop 1 0 0 0 0 1\n");
  hm_lattice L;
  HM_TEST_OK(hm_lattice_read(path, HM_LATTICE_HAMLET, NULL, NULL, &L));
  hm_lattice_params p;
  hm_lattice_params_default(&p);
  const int len = 7;
  p.cells[0] = len;
  p.boundary[0] = HM_BC_TWISTED;
  p.twist[0] = 0.7;
  int64_t n;
  double complex *H = assembled(ctx, &L, &p, &n);
  double w[16], ref[16];
  HM_TEST_OK(hm_test_eigh(n, H, w, NULL));
  for (int k = 0; k < len; k++) ref[k] = 2 * cos((2 * M_PI * k + p.twist[0]) / len);
  qsort(ref, len, sizeof *ref, cmp);
  for (int k = 0; k < len; k++) HM_TEST_ASSERT(fabs(w[k] - ref[k]) < 1e-13, "ring eigenvalue %d: %.15g, expected %.15g", k, w[k], ref[k]);
  free(H);
  hm_lattice_free(&L);
}

/* Harper: q x q, H[x][x] = -2 cos(ky + 2 pi B x), -1 between neighbours, -exp(i kx q) across the corner. */
static void harper(hm_context *ctx, int p_flux, int q) {
  model_file("orbital 0 0 0\nhop 1 0 0 0 0 -1\nhop 0 1 0 0 0 -1\n");
  hm_lattice L;
  HM_TEST_OK(hm_lattice_read(path, HM_LATTICE_HAMLET, NULL, NULL, &L));
  hm_lattice_params p;
  hm_lattice_params_default(&p);
  const int nx = 2 * q, ny = 5;
  p.cells[0] = nx, p.cells[1] = ny;
  p.field[2] = (double)p_flux / q;
  int64_t n;
  double complex *H = assembled(ctx, &L, &p, &n);
  double *w = malloc(sizeof *w * (size_t)n), *ref = malloc(sizeof *ref * (size_t)n), *wh = malloc(sizeof *wh * (size_t)q);
  double complex *h = malloc(sizeof *h * (size_t)(q * q));
  HM_TEST_OK(hm_test_eigh(n, H, w, NULL));
  int count = 0;
  for (int mx = 0; mx < nx / q; mx++)
    for (int my = 0; my < ny; my++) {
      const double ky = 2 * M_PI * my / ny, kxq = 2 * M_PI * mx * q / nx;
      memset(h, 0, sizeof *h * (size_t)(q * q));
      for (int x = 0; x < q; x++) {
        h[x * q + x] = -2 * cos(ky + 2 * M_PI * p.field[2] * x);
        if (x + 1 < q) h[x * q + x + 1] = h[(x + 1) * q + x] = -1;
      }
      h[(q - 1) * q + 0] += -cexp(I * kxq);
      h[0 * q + q - 1] += -cexp(-I * kxq);
      HM_TEST_OK(hm_test_eigh(q, h, wh, NULL));
      for (int k = 0; k < q; k++) ref[count++] = wh[k];
    }
  qsort(ref, (size_t)count, sizeof *ref, cmp);
  double diff = 0;
  for (int k = 0; k < count && count == n; k++) diff = fmax(diff, fabs(ref[k] - w[k]));
  HM_TEST_ASSERT(count == n && diff < 1e-12, "Harper spectrum at flux %d/%d differs by %g", p_flux, q, diff);
  free(w), free(ref), free(wh), free(h), free(H);
  hm_lattice_free(&L);
}

/* Every plaquette (c, c + a1, c + a1 + a2, c + a2) of a one-orbital lattice with nearest hops t = -1. */
static void plaquettes(hm_context *ctx, const char *text, double area, int nx, int ny, double B, int twisted) {
  model_file(text);
  hm_lattice L;
  HM_TEST_OK(hm_lattice_read(path, HM_LATTICE_HAMLET, NULL, NULL, &L));
  hm_lattice_params p;
  hm_lattice_params_default(&p);
  p.cells[0] = nx, p.cells[1] = ny;
  p.field[2] = B;
  if (twisted) p.boundary[0] = HM_BC_TWISTED, p.twist[0] = 0.3;
  int64_t n;
  double complex *H = assembled(ctx, &L, &p, &n);
  const double complex want = cexp(-2 * M_PI * I * B * area);
  double worst = 0;
  for (int x = 0; x < nx; x++)
    for (int y = 0; y < ny; y++) {
      int r[4] = {x + nx * y, (x + 1) % nx + nx * y, (x + 1) % nx + nx * ((y + 1) % ny), x + nx * ((y + 1) % ny)};
      double complex prod = 1;
      for (int k = 0; k < 4; k++) prod *= H[(int64_t)r[(k + 1) % 4] * n + r[k]]; /* H[r_k][r_k+1], column-major */
      worst = fmax(worst, cabs(prod - want));
    }
  HM_TEST_ASSERT(worst < 1e-12, "plaquette products differ from exp(-2 pi i B area) by %g (%dx%d, B = %g)", worst, nx, ny, B);
  free(H);
  hm_lattice_free(&L);
}

static void incommensurate(void) {
  model_file("orbital 0 0 0\nhop 1 0 0 0 0 -1\nhop 0 1 0 0 0 -1\n");
  hm_lattice L;
  HM_TEST_OK(hm_lattice_read(path, HM_LATTICE_HAMLET, NULL, NULL, &L));
  hm_lattice_params p;
  hm_lattice_params_default(&p);
  p.cells[0] = 4, p.cells[1] = 5;
  p.field[2] = 0.11; /* 2.2 quanta through the 4 x 5 face */
  hm_lattice_stencil s;
  HM_TEST_FAILS(hm_lattice_make_stencil(&L, &p, &s), HM_ERR_DECK,
                "the nearest allowed fields are field = 0 0 0.1 (2 quanta) and field = 0 0 0.15 (3 quanta)");
  p.boundary[1] = HM_BC_OPEN; /* no face wraps both ways: any field */
  HM_TEST_OK(hm_lattice_make_stencil(&L, &p, &s));
  hm_lattice_stencil_free(&s);
  hm_lattice_free(&L);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(path, sizeof path, "/tmp/hamlet_lattice_field_%d_%d.lattice", (int)getpid(), rank);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  ring(ctx);
  harper(ctx, 1, 3);
  harper(ctx, 2, 5);
  const char *square = "orbital 0 0 0\nhop 1 0 0 0 0 -1\nhop 0 1 0 0 0 -1\n";
  const char *oblique = "a2 0.4 1 0\norbital 0.1 0.2 0\nhop 1 0 0 0 0 -1\nhop 0 1 0 0 0 -1\n";
  plaquettes(ctx, square, 1.0, 6, 5, 1.0 / 3, 0);
  plaquettes(ctx, square, 1.0, 4, 5, 0.15, 1);
  plaquettes(ctx, oblique, 1.0, 6, 4, 1.0 / 8, 0);
  incommensurate();
  unlink(path);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
