/* hm_dense_eigh through cuSOLVER against LAPACK on fresh random matrices (the seed is printed):
 * real and complex, standard and generalized, n = 300 (method CUSOLVER, full residual and
 * orthonormality checks) and n = HM_DENSE_GPU_MIN_N + 52 (method AUTO, which must pick the GPU there:
 * eigenvalues, and residuals of 8 eigenpairs); leading dimensions larger than n; the device memory
 * refusal. Skipped (77) where no CUDA device is visible. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testing.h"

static unsigned long long state;
static double uniform(void) { /* xorshift64*, in [-1, 1) */
  state ^= state >> 12; state ^= state << 25; state ^= state >> 27;
  return (double)((state * 2685821657736338717ull) >> 11) / 4503599627370496.0 - 1.0;
}

/* Random Hermitian A (entries in [-1, 1]) and a diagonally dominant, hence positive definite, B
 * (diagonal in [1, 3], off-diagonal moduli below 0.71 / n), column-major with leading dimension ld. */
static void random_pair(hm_scalar type, int n, int ld, double complex *A, double complex *B) {
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) {
      double complex a = uniform() + (type == HM_COMPLEX && i != j ? I * uniform() : 0);
      A[(size_t)j * ld + i] = a;
      A[(size_t)i * ld + j] = conj(a);
      double complex b = i == j ? 2 + uniform() : 0.5 * (uniform() + (type == HM_COMPLEX ? I * uniform() : 0)) / n;
      B[(size_t)j * ld + i] = b;
      B[(size_t)i * ld + j] = conj(b);
    }
}

static void *narrow(hm_scalar type, size_t count, const double complex *a) {
  double *r = malloc(sizeof(double) * type * count);
  for (size_t p = 0; p < count; p++) {
    if (type == HM_REAL) r[p] = creal(a[p]);
    else { r[2 * p] = creal(a[p]); r[2 * p + 1] = cimag(a[p]); }
  }
  return r;
}

static double complex at(hm_scalar type, const void *z, size_t p) {
  return type == HM_REAL ? ((const double *)z)[p] : ((const double complex *)z)[p];
}

/* Residual |A z_m - w_m B z_m| / (n max|A| + |w_m| n max|B|) over the given eigenpairs, and
 * |z_a^H B z_m - delta| over the same pairs. */
static void check(hm_scalar type, int n, int ld, const double complex *A, const double complex *B, const void *z,
                  const double *w, int stride, double *resid, double *orth) {
  double na = 0, nb = B ? 0 : 1;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      na = fmax(na, cabs(A[(size_t)j * ld + i]));
      if (B) nb = fmax(nb, cabs(B[(size_t)j * ld + i]));
    }
  na *= n; nb *= n;
  *resid = *orth = 0;
  double complex *bz = malloc(sizeof *bz * (size_t)n * n);
  for (int m = 0; m < n; m += stride)
    for (int i = 0; i < n; i++) {
      double complex az = 0, b = 0;
      for (int j = 0; j < n; j++) {
        double complex zj = at(type, z, (size_t)m * ld + j);
        az += A[(size_t)j * ld + i] * zj;
        b += (B ? B[(size_t)j * ld + i] : (i == j)) * zj;
      }
      bz[(size_t)m * n + i] = b;
      *resid = fmax(*resid, cabs(az - w[m] * b) / (na + fabs(w[m]) * nb));
    }
  for (int a = 0; a < n; a += stride)
    for (int m = 0; m < n; m += stride) {
      double complex s = 0;
      for (int i = 0; i < n; i++) s += conj(at(type, z, (size_t)a * ld + i)) * bz[(size_t)m * n + i];
      *orth = fmax(*orth, cabs(s - (a == m)));
    }
  free(bz);
}

static void compare(hm_scalar type, int generalized, int n, hm_dense_method method, int stride) {
  const int ld = n + 5;
  const size_t count = (size_t)ld * n;
  double complex *A = calloc(count, sizeof *A), *B = calloc(count, sizeof *B);
  random_pair(type, n, ld, A, B);
  double *w_gpu = malloc(sizeof(double) * n), *w_cpu = malloc(sizeof(double) * n);
  void *a = narrow(type, count, A), *b = narrow(type, count, B);
  HM_TEST_OK(hm_dense_eigh(type, n, a, ld, generalized ? b : NULL, ld, 1, method, w_gpu));
  void *a2 = narrow(type, count, A), *b2 = narrow(type, count, B);
  HM_TEST_OK(hm_dense_eigh(type, n, a2, ld, generalized ? b2 : NULL, ld, 0, HM_DENSE_LAPACK, w_cpu));
  double scale = fmax(fabs(w_cpu[0]), fabs(w_cpu[n - 1])), err = 0;
  for (int i = 0; i < n; i++) err = fmax(err, fabs(w_gpu[i] - w_cpu[i]));
  double resid, orth;
  check(type, n, ld, A, generalized ? B : NULL, a, w_gpu, stride, &resid, &orth);
  HM_TEST_ASSERT(err < 1e-12 * n * scale && resid < 1e-14 && orth < 1e-11,
                 "%s %s n=%d (method %d): |w_gpu - w_lapack| = %.3g, residual %.3g, orthonormality %.3g",
                 type == HM_REAL ? "real" : "complex", generalized ? "pencil" : "matrix", n, (int)method, err, resid, orth);
  free(A); free(B); free(w_gpu); free(w_cpu); free(a); free(b); free(a2); free(b2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_NEED_GPU();
  state = hm_test_seed() * 0x9E3779B97F4A7C15ull | 1; /* printed; HAMLET_TEST_SEED replays it */
  for (int type = HM_REAL; type <= HM_COMPLEX; type++)
    for (int gen = 0; gen < 2; gen++) {
      compare((hm_scalar)type, gen, 300, HM_DENSE_CUSOLVER, 1);
      /* Large enough for AUTO to pick the GPU; two of the four combinations keep the test short. */
      if ((type == HM_REAL) != gen) compare((hm_scalar)type, gen, HM_DENSE_GPU_MIN_N + 52, HM_DENSE_AUTO, 263);
    }
  /* Device memory: a cap below the matrix itself is refused with both sizes. */
  enum { n = 64 };
  double *a = calloc(n * n, sizeof *a), w[n];
  for (int i = 0; i < n; i++) a[i * n + i] = i;
  setenv("HAMLET_DENSE_MEMORY_LIMIT", "4096", 1);
  HM_TEST_FAILS(hm_dense_eigh(HM_REAL, n, a, n, NULL, 0, 1, HM_DENSE_CUSOLVER, w), HM_ERR_MEMORY,
                "4.00 KiB available on the device");
  unsetenv("HAMLET_DENSE_MEMORY_LIMIT");
  HM_TEST_OK(hm_dense_eigh(HM_REAL, n, a, n, NULL, 0, 1, HM_DENSE_CUSOLVER, w));
  double err = 0;
  for (int i = 0; i < n; i++) err = fmax(err, fabs(w[i] - i));
  HM_TEST_ASSERT(err < 1e-12, "diagonal matrix: eigenvalues off by %.3g", err);
  free(a);
  return hm_test_finish();
}
