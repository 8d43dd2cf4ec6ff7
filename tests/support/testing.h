/* Small helpers for the C tests: checked calls, assertions that count failures over all ranks,
 * and the dense global matrix of a small hm_matrix (gathered on every rank) for exact references. */
#ifndef HAMLET_TESTING_H
#define HAMLET_TESTING_H
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>
#include "hamlet.h"

extern int hm_test_failures;

#define HM_TEST_OK(expr)                                                                  \
  do {                                                                                    \
    int hm_t_ = (expr);                                                                   \
    if (hm_t_) {                                                                          \
      fprintf(stderr, "FAIL %s:%d: %s returned %d\n%s", __FILE__, __LINE__, #expr, hm_t_, \
              hm_error_message());                                                        \
      hm_test_failures++;                                                                 \
      hm_error_clear();                                                                   \
    }                                                                                     \
  } while (0)

/* The call must fail with `code`, and its message must contain `needle`. */
#define HM_TEST_FAILS(expr, code, needle) \
  hm_test_expect_failure((expr), (code), (needle), #expr, __FILE__, __LINE__)

#define HM_TEST_ASSERT(cond, ...)                                                   \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);               \
      fprintf(stderr, __VA_ARGS__);                                                 \
      fprintf(stderr, "\n");                                                        \
      hm_test_failures++;                                                           \
    }                                                                               \
  } while (0)

void hm_test_expect_failure(int status, int code, const char *needle, const char *expr, const char *file, int line);
/* GPU tests: 0 where a CUDA device is visible; else, after MPI_Finalize, the test's exit code:
 * 77 (ctest's skip) where no device is visible or CUDA was not built, 1 (a failure) where
 * HAMLET_TEST_REQUIRE (comma-separated, e.g. "gpu,h5py", set by scripts/gpu_host_env.sh) names gpu or
 * where the device query itself fails. Use HM_TEST_NEED_GPU() at the top of main. */
int hm_test_no_gpu(void);
#define HM_TEST_NEED_GPU()              \
  do {                                  \
    int hm_gpu_exit_ = hm_test_no_gpu(); \
    if (hm_gpu_exit_) return hm_gpu_exit_; \
  } while (0)
/* Does HAMLET_TEST_REQUIRE name `what` ("gpu", "h5py")? Then a missing `what` fails instead of skipping. */
int hm_test_requires(const char *what);
/* Collective: the seed of a test's fresh random inputs, HAMLET_TEST_SEED where set (a replay),
 * else the clock; rank 0's value on every rank, printed by rank 0 so a failure can be replayed. */
uint64_t hm_test_seed(void);
/* Whether `trial` is in the list "a-b,c,..." (NULL: every trial): a test's subset of its random
 * trials, for a quicker run (compute-sanitizer, oversubscribed ranks). */
int hm_test_selected(const char *list, int trial);
/* Sum failures over MPI_COMM_WORLD, print PASS/FAIL on rank 0, MPI_Finalize; returns exit code. */
int hm_test_finish(void);
/* Dense n x n column-major copy of A (complex; real matrices widened) on every rank. n <= 4096. */
int hm_test_dense(hm_matrix *A, double complex **dense, int64_t *n);
/* Eigenvalues (ascending) of a dense Hermitian n x n column-major matrix (LAPACK zheevd);
 * a copy is made; vectors (column-major) returned if vec != NULL. */
int hm_test_eigh(int64_t n, const double complex *dense, double *w, double complex *vec);
/* Collective: all eigenvalues (ascending) of the pencil (A, B) from its dense copies (zhegv; B NULL:
 * the identity, zheevd), on every rank. Returns hm_test_dense's status or LAPACK's info. */
int hm_test_pencil_eigenvalues(hm_matrix *A, hm_matrix *B, double *w);
/* Collective: a small TI slab, hm_ti_build on the default parameters with nx x ny x nz sites,
 * open in z, Anderson disorder of strength disorder_w. The parameters used go to p (may be NULL)
 * for tests that need the lattice afterwards. Returns hm_ti_build's status. */
int hm_test_ti_slab(hm_context *ctx, int64_t nx, int64_t ny, int64_t nz, double disorder_w, hm_ti_params *p,
                    hm_matrix **H);
#endif
