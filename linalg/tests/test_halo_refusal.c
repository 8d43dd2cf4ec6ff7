/* The halo plan refuses, on every rank together, when the other ranks ask one rank for more than
 * INT_MAX rows in all (hm_halo_check_asked, the check inside hm_halo_plan): the asked counts are
 * given directly, so no 2^31-row matrix is needed. The limit itself passes; one past it fails with
 * the count on the rank asked, and with "another rank" on the others; a later plan is not poisoned. */
#include <limits.h>
#include "testing.h"
#include "halo.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  const int at_limit[2] = {INT_MAX - 5, 5}; /* exactly INT_MAX rows: still one plan */
  HM_TEST_OK(hm_halo_check_asked(MPI_COMM_WORLD, at_limit, 2));

  const int past[2] = {INT_MAX, 1}, few[2] = {1, 2};
  if (rank == 0)
    HM_TEST_FAILS(hm_halo_check_asked(MPI_COMM_WORLD, past, 2), HM_ERR_ARGUMENT,
                  "the other ranks ask rank 0 for 2147483648 rows in all, more than the 2147483647");
  else
    HM_TEST_FAILS(hm_halo_check_asked(MPI_COMM_WORLD, few, 2), HM_ERR_ARGUMENT,
                  "another rank is asked for more than 2147483647 rows in all");

  /* Every rank past the limit: each names its own count. */
  const int many[3] = {INT_MAX, INT_MAX, INT_MAX};
  HM_TEST_FAILS(hm_halo_check_asked(MPI_COMM_WORLD, many, 3), HM_ERR_ARGUMENT, "for 6442450941 rows in all");

  HM_TEST_OK(hm_halo_check_asked(MPI_COMM_WORLD, few, 2));
  return hm_test_finish();
}
