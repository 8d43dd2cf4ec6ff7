/* OpenBLAS's thread count, found at run time (weak symbols: absent with another BLAS). */
#include "blas_threads.h"

void openblas_set_num_threads(int threads) __attribute__((weak));
int openblas_get_num_threads(void) __attribute__((weak));

int hm_blas_threads_controllable(void) { return openblas_set_num_threads && openblas_get_num_threads; }

int hm_blas_threads_single(void) {
  if (!hm_blas_threads_controllable()) return 0;
  const int previous = openblas_get_num_threads();
  if (previous != 1) openblas_set_num_threads(1);
  return previous;
}

void hm_blas_threads_restore(int previous) {
  if (previous > 1 && hm_blas_threads_controllable()) openblas_set_num_threads(previous);
}
