/* Lattice model files: inputs/lattices/ti.lattice gives exactly the matrix of model = ti (hm_ti_build,
 * periodic and open, 1 and 3 ranks); the same model written by this test as a Wannier90 _hr.dat (with
 * degeneracy weights) and _tb.dat (with centres) reads back into the same blocks; the other example
 * models are Hermitian and give their known Bloch spectra; malformed files each fail with
 * HM_ERR_INPUT and a message naming file, line and what is allowed. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testing.h"
#include "lattice_test_util.h"

static char tmpdir[256];

static const char *temp_path(const char *name) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  return path;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* ti.lattice against hm_ti_build entry by entry. */
static void ti_equal(hm_context *ctx, const hm_lattice *L, int64_t nx, int64_t ny, int64_t nz, int bx, int by, int bz) {
  hm_ti_params tp;
  hm_ti_params_default(&tp);
  tp.nx = nx, tp.ny = ny, tp.nz = nz;
  tp.boundary[0] = bx, tp.boundary[1] = by, tp.boundary[2] = bz;
  hm_matrix *H = NULL;
  HM_TEST_OK(hm_ti_build(ctx, &tp, &H));
  double complex *ref = NULL;
  int64_t n = 0, N = 0;
  HM_TEST_OK(hm_test_dense(H, &ref, &n));
  hm_lattice_params p;
  hm_lattice_params_default(&p);
  p.cells[0] = nx, p.cells[1] = ny, p.cells[2] = nz;
  p.boundary[0] = bx, p.boundary[1] = by, p.boundary[2] = bz;
  hm_lattice_stencil s;
  HM_TEST_OK(hm_lattice_make_stencil(L, &p, &s));
  double complex *got = lattice_dense(&s.stencil, &N);
  HM_TEST_ASSERT(N == n, "N = %lld, TI has %lld", (long long)N, (long long)n);
  double diff = 0;
  for (int64_t e = 0; e < n * n && N == n; e++) diff = fmax(diff, cabs(got[e] - ref[e]));
  HM_TEST_ASSERT(diff == 0, "ti.lattice %lldx%lldx%lld differs from model = ti by %g", (long long)nx, (long long)ny,
                 (long long)nz, diff);
  free(got);
  free(ref);
  hm_lattice_stencil_free(&s);
  hm_matrix_destroy(&H);
}

static int find_block(const hm_lattice *L, const int32_t *R) {
  for (int b = 0; b < L->nblocks; b++)
    if (!memcmp(L->shift + 3 * b, R, 3 * sizeof *R)) return b;
  return -1;
}

/* Same blocks (any order) and positions. */
static void same_model(const hm_lattice *A, const hm_lattice *B, const char *what) {
  HM_TEST_ASSERT(A->orbitals == B->orbitals && A->nblocks == B->nblocks, "%s: %d/%d orbitals, %d/%d blocks", what,
                 A->orbitals, B->orbitals, A->nblocks, B->nblocks);
  if (A->orbitals != B->orbitals || A->nblocks != B->nblocks) return;
  const int n = A->orbitals;
  double diff = 0;
  for (int b = 0; b < A->nblocks; b++) {
    int c = find_block(B, A->shift + 3 * b);
    HM_TEST_ASSERT(c >= 0, "%s: block R = (%d, %d, %d) missing", what, A->shift[3 * b], A->shift[3 * b + 1], A->shift[3 * b + 2]);
    if (c < 0) continue;
    for (int e = 0; e < n * n; e++) diff = fmax(diff, cabs(A->block[b * n * n + e] - B->block[c * n * n + e]));
  }
  HM_TEST_ASSERT(diff <= 1e-14, "%s: blocks differ by %g", what, diff);
}

/* Wannier90's layouts of L: weights 1, 2, 3, ... cycling, values multiplied by them. */
static void write_wannier(const hm_lattice *L, const char *hr, const char *tb, const char *centres) {
  const int n = L->orbitals;
  FILE *f[2] = {fopen(hr, "w"), fopen(tb, "w")};
  fprintf(f[0], " written on 27Nov2026 at 12:00:00\n%12d\n%12d\n", n, L->nblocks);
  fprintf(f[1], " written on 27Nov2026 at 12:00:00\n");
  for (int a = 0; a < 3; a++) fprintf(f[1], "  %.17g %.17g %.17g\n", L->cell[a][0], L->cell[a][1], L->cell[a][2]);
  fprintf(f[1], "%12d\n%12d\n", n, L->nblocks);
  for (int k = 0; k < 2; k++) {
    for (int b = 0; b < L->nblocks; b++) fprintf(f[k], "%5d%s", 1 + b % 3, (b + 1) % 15 == 0 || b + 1 == L->nblocks ? "\n" : "");
  }
  for (int b = 0; b < L->nblocks; b++) {
    const int32_t *R = L->shift + 3 * b;
    double w = 1 + b % 3;
    fprintf(f[1], "\n%5d%5d%5d\n", R[0], R[1], R[2]);
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double complex v = w * L->block[(b * n + i) * n + j];
        fprintf(f[0], "%5d%5d%5d%5d%5d %.17g %.17g\n", R[0], R[1], R[2], i + 1, j + 1, creal(v), cimag(v));
        fprintf(f[1], "%5d%5d   %.17g %.17g\n", i + 1, j + 1, creal(v), cimag(v));
      }
  }
  for (int b = 0; b < L->nblocks; b++) {
    const int32_t *R = L->shift + 3 * b;
    double w = 1 + b % 3, zero = !R[0] && !R[1] && !R[2];
    fprintf(f[1], "\n%5d%5d%5d\n", R[0], R[1], R[2]);
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        const double *x = L->position + 3 * i;
        double d = zero && i == j ? w : 0;
        fprintf(f[1], "%5d%5d   %.17g 0 %.17g 0 %.17g 0\n", i + 1, j + 1, d * x[0], d * x[1], d * x[2]);
      }
  }
  fclose(f[0]);
  fclose(f[1]);
  FILE *c = fopen(centres, "w");
  fprintf(c, "%d\n Wannier centres\n", n + 1);
  for (int i = 0; i < n; i++) fprintf(c, "X %.17g %.17g %.17g\n", L->position[3 * i], L->position[3 * i + 1], L->position[3 * i + 2]);
  fprintf(c, "Bi 0 0 0\n");
  fclose(c);
}

/* Smallest gap of the two bands of a 2-orbital model at k. */
static double gap_at(const hm_lattice *L, double k0, double k1) {
  double complex Hk[4];
  const double k[3] = {k0, k1, 0};
  lattice_bloch(L, k, Hk);
  double complex d = 0.5 * (Hk[0] - Hk[3]);
  return 2 * sqrt(creal(d) * creal(d) + cabs(Hk[1]) * cabs(Hk[1]));
}

static void examples(void) {
  hm_lattice L;
  /* Haldane (t2 = 0.1, phi = pi/2, M = 0.2): gap at K (k = (1/3, 2/3)) and K' (2/3, 1/3) is 2 |M -+ 3 sqrt(3) t2| */
  HM_TEST_OK(hm_lattice_read(LATTICE_DIR "/haldane.lattice", HM_LATTICE_AUTO, NULL, NULL, &L));
  const double m = 3 * sqrt(3) * 0.1;
  double gK = gap_at(&L, 1.0 / 3, 2.0 / 3), gK2 = gap_at(&L, 2.0 / 3, 1.0 / 3);
  HM_TEST_ASSERT(fabs(fmin(gK, gK2) - 2 * fabs(0.2 - m)) < 1e-12 && fabs(fmax(gK, gK2) - 2 * (0.2 + m)) < 1e-12,
                 "Haldane gaps at K, K' = %.15g, %.15g, expected 2|M -+ 3 sqrt3 t2|", gK, gK2);
  /* at M = 3 sqrt(3) t2 sin(phi) the gap closes */
  L.block[0] += m - 0.2;
  L.block[3] -= m - 0.2;
  gK = gap_at(&L, 1.0 / 3, 2.0 / 3), gK2 = gap_at(&L, 2.0 / 3, 1.0 / 3);
  HM_TEST_ASSERT(fmin(gK, gK2) < 1e-12, "Haldane gap at M = 3 sqrt3 t2 is %g, expected 0", fmin(gK, gK2));
  hm_lattice_free(&L);
  /* graphene: Dirac points at K, bandwidth 6 at Gamma */
  HM_TEST_OK(hm_lattice_read(LATTICE_DIR "/graphene.lattice", HM_LATTICE_AUTO, NULL, NULL, &L));
  HM_TEST_ASSERT(gap_at(&L, 1.0 / 3, 2.0 / 3) < 1e-12 && fabs(gap_at(&L, 0, 0) - 6) < 1e-12, "graphene spectrum");
  hm_lattice_free(&L);
  /* QWZ (u = -1): E = +-sqrt(sin^2 kx + sin^2 ky + (u + cos kx + cos ky)^2) */
  HM_TEST_OK(hm_lattice_read(LATTICE_DIR "/qwz.lattice", HM_LATTICE_AUTO, NULL, NULL, &L));
  for (double kx = 0; kx < 1; kx += 0.13)
    for (double ky = 0; ky < 1; ky += 0.17) {
      double sx = sin(2 * M_PI * kx), sy = sin(2 * M_PI * ky), dz = -1 + cos(2 * M_PI * kx) + cos(2 * M_PI * ky);
      double e = sqrt(sx * sx + sy * sy + dz * dz);
      HM_TEST_ASSERT(fabs(gap_at(&L, kx, ky) - 2 * e) < 1e-12, "QWZ gap at (%g, %g)", kx, ky);
    }
  hm_lattice_free(&L);
}

typedef struct {
  const char *name, *text;
  int line;
  const char *message;
} bad_file;

static const bad_file bad_files[] = {
    {"empty.lattice", "", 0, "is empty (0 bytes)"},
    {"blank_hr.dat", " \n\t\n", 0, "holds only blanks: the file is empty"},
    {"no_orbital.lattice", "a1 1 0 0\n", 1, "no 'orbital' line: a model needs at least one orbital"},
    {"hop_first.lattice", "hop 1 0 0 0 0 1\n", 1, "'hop' before any 'orbital' line"},
    {"range.lattice", "orbital 0 0 0\norbital 0 0 0\nhop 1 0 0 0 2 1\n", 3, "orbital index j '2' is not an integer in 0..1"},
    {"fields.lattice", "orbital 0 0 0\nhop 1 0 0 0 0\n", 2, "expected 'hop R1 R2 R3 i j re [im]', found 6 fields"},
    {"twice.lattice", "orbital 0 0 0\nhop 1 0 0 0 0 1\nhop 1 0 0 0 0 2\n", 3, "is given twice (first on line 2)"},
    {"h0.lattice", "orbital 0 0 0\norbital 0 0 0\nhop 0 0 0 0 1 1\nhop 0 0 0 1 0 2\n", 4,
     "non-Hermitian H(0): the hopping R = (0, 0, 0), i = 1, j = 0 on line 4 is 2+0i, but its partner"},
    {"onsite.lattice", "orbital 0 0 0\nhop 0 0 0 0 0 1 0.5\n", 2, "non-Hermitian H(0)"},
    {"partner.lattice", "orbital 0 0 0\nhop 1 0 0 0 0 1\nhop -1 0 0 0 0 0.5\n", 3, "must be Hermitian"},
    {"word.lattice", "orbital 0 0 0\nhopping 1 0 0 0 0 1\n", 2, "unknown statement 'hopping': allowed are a1, a2, a3, orbital, onsite, hop"},
    {"spin.lattice", "orbital 0 0 0 left\n", 1, "spin label 'left' is not allowed: up or down"},
    {"value.lattice", "orbital 0 0 0\nhop 1 0 0 0 0 x\n", 2, "real part 'x' is not a number"},
    {"flat.lattice", "a3 1 0 0\norbital 0 0 0\n", 0, "not linearly independent"},
    {"w_missing_hr.dat", "header\n1\n2\n1 1\n0 0 0 1 1 1 0\n", 5, "the file ends after 1 of the 2 hopping lines"},
    {"w_extra_hr.dat", "header\n1\n1\n1\n0 0 0 1 1 1 0\n0 0 0 1 1 1 0\n", 6, "more lines than the 1 hopping lines"},
    {"w_range_hr.dat", "header\n1\n1\n1\n0 0 0 1 2 1 0\n", 5, "orbital index n '2' is not an integer in 1..1"},
    {"w_deg_few_hr.dat", "header\n1\n3\n1 1\n0 0 0 1 1 1.0 0.0\n", 5, "found 2 degeneracy weights before this line, which is not a line of integer weights: the count does not match nrpts = 3"},
    {"w_deg_many_hr.dat", "header\n1\n1\n1 1\n0 0 0 1 1 1 0\n", 4, "more degeneracy weights than nrpts = 1"},
    {"w_herm_hr.dat", "header\n1\n1\n1\n0 0 0 1 1 1 1\n", 5,
     "non-Hermitian H(0): the hopping R = (0, 0, 0), m = 1, n = 1 on line 5 is 1+1i: a diagonal entry"},
    /* the file's own numbers: 1-based m, n and the values before dividing by the weight */
    {"w_herm_raw_hr.dat", "header\n2\n1\n2\n0 0 0 1 1 2 0\n0 0 0 2 1 1 0.5\n0 0 0 1 2 3 0\n0 0 0 2 2 2 0\n", 6,
     "m = 2, n = 1 on line 6 is 1+0.5i (degeneracy weight 2), but its partner R = (0, 0, 0), m = 1, n = 2 on line 7 "
     "is 3+0i (degeneracy weight 2): the model must be Hermitian"},
    {"w_block_hr.dat", "header\n2\n2\n1 1\n0 0 0 1 1 1 0\n0 0 0 2 1 0 0\n1 0 0 1 2 0 0\n0 0 0 2 2 1 0\n"
                       "0 0 -1 1 1 0 0\n0 0 -1 2 1 0 0\n0 0 -1 1 2 0 0\n0 0 -1 2 2 0 0\n", 7, "where the block of R = (0, 0, 0) continues"},
    {"w_tb_missing_tb.dat", "header\n1 0 0\n0 1 0\n0 0 1\n2\n1\n1\n\n0 0 0\n1 1 1 0\n2 1 0 0\n1 2 0 0\n\n0 0 0\n", 14,
     "expected 4 fields 'm n Re Im', found 3"},
};

/* A chain whose R = +-1 hoppings Wannier90 spreads over R and R -+ 2 (a 2-cell mesh): the images of
 * R = 1 at -1 and of R = -1 at 1 add up to one real hopping on each; H(k) equals Wannier90's formula.
 * A wsvec file written with use_ws_distance = false (every T = 0) leaves the model as it was. */
static void wsvec_spreading(void) {
  char hr[512], ws[512];
  snprintf(hr, sizeof hr, "%s", temp_path("chain_hr.dat"));
  snprintf(ws, sizeof ws, "%s", temp_path("chain_wsvec.dat"));
  write_file(hr, "header\n1\n3\n1 1 1\n-1 0 0 1 1 0.3 -0.2\n0 0 0 1 1 0.5 0\n1 0 0 1 1 0.3 0.2\n");
  write_file(ws, "## written with use_ws_distance=.true.\n 0 0 0 1 1\n1\n0 0 0\n 1 0 0 1 1\n2\n0 0 0\n-2 0 0\n"
                 "-1 0 0 1 1\n 2\n 0 0 0\n 2 0 0\n");
  char beside[512];
  HM_TEST_ASSERT(hm_lattice_wsvec_beside(hr, beside, sizeof beside) && !strcmp(beside, ws), "beside %s: %s", hr, beside);
  HM_TEST_ASSERT(hm_lattice_wsvec_beside("dir/si_tb.dat", beside, sizeof beside) && !strcmp(beside, "dir/si_wsvec.dat"),
                 "beside si_tb.dat: %s", beside);
  HM_TEST_ASSERT(!hm_lattice_wsvec_beside("model.lattice", beside, sizeof beside), "a hamlet file has no wsvec beside");
  hm_lattice L, plain;
  HM_TEST_OK(hm_lattice_read(hr, HM_LATTICE_AUTO, NULL, NULL, &L));
  HM_TEST_OK(hm_lattice_read(hr, HM_LATTICE_AUTO, NULL, NULL, &plain));
  HM_TEST_OK(hm_lattice_spread_wsvec(ws, hr, &L));
  HM_TEST_ASSERT(L.nblocks == 3, "%d blocks after spreading, expected R = -1, 0, 1", L.nblocks);
  for (int b = 0; b < L.nblocks; b++)
    if (L.shift[3 * b] != 0)
      HM_TEST_ASSERT(cabs(L.block[b] - 0.3) < 1e-15, "block R = %d is %g%+gi, expected 0.3 (0.3+0.2i and 0.3-0.2i halved)",
                     L.shift[3 * b], creal(L.block[b]), cimag(L.block[b]));
  for (double k = 0; k < 1; k += 0.13) {
    const double q[3] = {k, 0, 0};
    double complex got;
    lattice_bloch(&L, q, &got);
    const double complex t = 0.3 + 0.2 * I, want = 0.5 + 0.5 * t * (cexp(2 * M_PI * I * k) + cexp(-2 * M_PI * I * k)) +
                             0.5 * conj(t) * (cexp(-2 * M_PI * I * k) + cexp(2 * M_PI * I * k));
    HM_TEST_ASSERT(cabs(got - want) < 1e-14, "H(%g) = %g%+gi, Wannier90's formula gives %g%+gi", k, creal(got),
                   cimag(got), creal(want), cimag(want));
  }
  hm_lattice_free(&L);
  write_file(ws, "## written with use_ws_distance=.false.\n 0 0 0 1 1\n1\n0 0 0\n 1 0 0 1 1\n1\n0 0 0\n"
                 "-1 0 0 1 1\n 1\n 0 0 0\n");
  HM_TEST_OK(hm_lattice_read(hr, HM_LATTICE_AUTO, NULL, NULL, &L));
  HM_TEST_OK(hm_lattice_spread_wsvec(ws, hr, &L));
  same_model(&plain, &L, "use_ws_distance = false");
  hm_lattice_free(&L);
  /* errors name the wsvec file and line */
  write_file(ws, "## written with use_ws_distance=.true.\n 0 0 0 1 1\n1\n0 0 0\n 1 0 0 1 1\n-1\n");
  HM_TEST_OK(hm_lattice_read(hr, HM_LATTICE_AUTO, NULL, NULL, &L));
  char needle[600];
  snprintf(needle, sizeof needle, "%s:6: image count '-1' is not an integer in 1..64", ws);
  HM_TEST_FAILS(hm_lattice_spread_wsvec(ws, hr, &L), HM_ERR_INPUT, needle);
  hm_lattice_free(&L);
  hm_lattice_free(&plain);
  unlink(hr), unlink(ws);
}

static void bad_inputs(void) {
  for (size_t k = 0; k < sizeof bad_files / sizeof bad_files[0]; k++) {
    const bad_file *b = &bad_files[k];
    char path[512], needle[1024];
    snprintf(path, sizeof path, "%s", temp_path(b->name));
    write_file(path, b->text);
    if (b->line) snprintf(needle, sizeof needle, "%s:%d: ", path, b->line);
    else snprintf(needle, sizeof needle, "%s: ", path);
    hm_lattice L;
    HM_TEST_FAILS(hm_lattice_read(path, HM_LATTICE_AUTO, NULL, NULL, &L), HM_ERR_INPUT, needle);
    HM_TEST_FAILS(hm_lattice_read(path, HM_LATTICE_AUTO, NULL, NULL, &L), HM_ERR_INPUT, b->message);
    unlink(path);
  }
  hm_lattice L;
  HM_TEST_FAILS(hm_lattice_read(temp_path("absent.lattice"), HM_LATTICE_AUTO, NULL, NULL, &L), HM_ERR_INPUT,
                "cannot open the file: No such file or directory");
  const char *folder = temp_path("folder.lattice");
  HM_TEST_ASSERT(mkdir(folder, 0700) == 0, "cannot make %s", folder);
  HM_TEST_FAILS(hm_lattice_read(folder, HM_LATTICE_AUTO, NULL, NULL, &L), HM_ERR_INPUT, "is a directory, not a model file");
  rmdir(folder);
  double cell[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  HM_TEST_FAILS(hm_lattice_read(LATTICE_DIR "/ti.lattice", HM_LATTICE_AUTO, cell, NULL, &L), HM_ERR_INPUT,
                "apply to a Wannier90 _hr.dat only");
  /* parameters: twist without twisted, vacancies out of [0, 1), Zeeman without spin labels */
  HM_TEST_OK(hm_lattice_read(LATTICE_DIR "/graphene.lattice", HM_LATTICE_AUTO, NULL, NULL, &L));
  hm_lattice_params p;
  hm_lattice_params_default(&p);
  hm_lattice_stencil s;
  p.twist[1] = 0.5;
  HM_TEST_FAILS(hm_lattice_make_stencil(&L, &p, &s), HM_ERR_DECK, "needs boundary twisted in y");
  p.twist[1] = 0, p.vacancy_p = 1;
  HM_TEST_FAILS(hm_lattice_make_stencil(&L, &p, &s), HM_ERR_DECK, "allowed are values in [0, 1)");
  p.vacancy_p = 0, p.zeeman[2] = 0.1;
  HM_TEST_FAILS(hm_lattice_make_stencil(&L, &p, &s), HM_ERR_DECK, "zeeman needs orbitals labelled spin up and down");
  hm_lattice_free(&L);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(tmpdir, sizeof tmpdir, "/tmp/hamlet_lattice_%d_%d", (int)getpid(), rank);
  HM_TEST_ASSERT(mkdir(tmpdir, 0700) == 0, "cannot make %s", tmpdir);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  hm_lattice ti;
  HM_TEST_OK(hm_lattice_read(LATTICE_DIR "/ti.lattice", HM_LATTICE_AUTO, NULL, NULL, &ti));
  HM_TEST_ASSERT(ti.orbitals == 4 && ti.nblocks == 7, "ti.lattice: %d orbitals, %d blocks", ti.orbitals, ti.nblocks);
  ti_equal(ctx, &ti, 3, 4, 3, HM_BC_PERIODIC, HM_BC_PERIODIC, HM_BC_PERIODIC);
  ti_equal(ctx, &ti, 4, 3, 2, HM_BC_OPEN, HM_BC_PERIODIC, HM_BC_OPEN);
  ti_equal(ctx, &ti, 2, 1, 5, HM_BC_PERIODIC, HM_BC_PERIODIC, HM_BC_OPEN);
  /* the same model through Wannier90's files */
  char hr[512], tb[512], centres[512];
  snprintf(hr, sizeof hr, "%s", temp_path("ti_hr.dat"));
  snprintf(tb, sizeof tb, "%s", temp_path("ti_tb.dat"));
  snprintf(centres, sizeof centres, "%s", temp_path("ti_centres.xyz"));
  ti.position[3 * 1 + 0] = 0.25; /* a centre off the origin, to see it travel */
  write_wannier(&ti, hr, tb, centres);
  hm_lattice from_hr, from_tb;
  HM_TEST_OK(hm_lattice_read(hr, HM_LATTICE_AUTO, NULL, centres, &from_hr));
  same_model(&ti, &from_hr, "_hr.dat");
  HM_TEST_ASSERT(from_hr.position[3] == 0.25, "_centres.xyz: orbital 1 at x = %g, expected 0.25", from_hr.position[3]);
  HM_TEST_OK(hm_lattice_read(tb, HM_LATTICE_AUTO, NULL, NULL, &from_tb));
  same_model(&ti, &from_tb, "_tb.dat");
  HM_TEST_ASSERT(from_tb.position[3] == 0.25, "_tb.dat: orbital 1 at x = %g, expected 0.25", from_tb.position[3]);
  ti_equal(ctx, &from_hr, 3, 3, 4, HM_BC_PERIODIC, HM_BC_OPEN, HM_BC_PERIODIC);
  ti_equal(ctx, &from_tb, 3, 3, 4, HM_BC_PERIODIC, HM_BC_OPEN, HM_BC_PERIODIC);
  unlink(hr), unlink(tb), unlink(centres);
  hm_lattice_free(&from_hr);
  hm_lattice_free(&from_tb);
  hm_lattice_free(&ti);
  examples();
  wsvec_spreading();
  bad_inputs();
  rmdir(tmpdir);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
