/* The kernel a GPU test forces with HAMLET_STENCIL_KERNEL, and the products it served on all ranks:
 * a forced kernel must serve (or, where it declines by design, must not), never fall back silently. */
#ifndef HAMLET_TEST_STENCIL_FORCED_H
#define HAMLET_TEST_STENCIL_FORCED_H
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "stencil_kernel_count.h"
#include "testing.h"

/* A variant that sets a tuning variable (HAMLET_STENCIL_STAGED_BLOCKS, ...) tests nothing where the
 * library does not read them: after MPI_Finalize, 77 (skipped, said why) or 1 where HAMLET_TEST_REQUIRE
 * names tuning; 0 where it can run. */
static int tuning_missing(void) {
  static const char *const knobs[] = {"HAMLET_STENCIL_TILE", "HAMLET_STENCIL_STAGED_KINDS", "HAMLET_STENCIL_STAGED_BLOCKS",
                                      "HAMLET_STENCIL_STAGED_CHUNK"};
  const char *set = NULL;
  for (int i = 0; i < 4; i++)
    if (getenv(knobs[i])) set = knobs[i];
  if (!set || hm_stencil_tuning_compiled()) return 0;
  MPI_Finalize();
  if (hm_test_requires("tuning")) {
    printf("FAIL: %s is set, but this build does not read it (configure with -DHAMLET_TUNING=ON)\n", set);
    return 1;
  }
  printf("%s is set, but this build does not read it (-DHAMLET_TUNING=ON does): skipped\n", set);
  return 77;
}

/* The forced kernel (-1: none forced, or auto); *served: its products summed over the ranks; the counts of
 * every kernel printed by rank 0. */
static int forced_kernel(long long *served) {
  const char *forced = getenv("HAMLET_STENCIL_KERNEL");
  *served = 0;
  if (!forced || !*forced) return -1;
  hm_stencil_kernel kernel = HM_STENCIL_KERNEL_AUTO;
  HM_TEST_OK(hm_stencil_kernel_from_word(forced, &kernel));
  const int k = kernel == HM_STENCIL_KERNEL_AUTO ? -1 : (int)kernel;
  long long counts[HM_STENCIL_KERNELS];
  for (int i = 0; i < HM_STENCIL_KERNELS; i++) counts[i] = hm_stencil_kernel_products(i);
  MPI_Allreduce(MPI_IN_PLACE, counts, HM_STENCIL_KERNELS, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("HAMLET_STENCIL_KERNEL=%s; products per kernel:", forced);
    for (int i = 1; i < HM_STENCIL_KERNELS; i++) printf(" %s %lld", hm_stencil_kernel_name(i), counts[i]);
    printf("\n");
  }
  if (k >= 0) *served = counts[k];
  return k;
}
#endif
