/* hm_mpi_gatherv_large (MPI_Gatherv_c under the dense gather) with the last rank sending `count`
 * bytes and every other rank 1000 + rank: run with a count past 2^31 by `bench/cases.sh BUILD large-halo`
 * (one count and the total past INT_MAX, ~2 x count bytes of host memory), and with small counts as a
 * ctest. Every gathered byte is checked against the formula of its rank and position. Exit 0 on success. */
#include <stdint.h>
#include <stdlib.h>
#include "testing.h"
#include "mpi_large.h"

static unsigned char byte_of(int rank, size_t i) { return (unsigned char)((31u * (unsigned)rank + i) % 251u); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t last = argc > 1 ? strtoull(argv[1], NULL, 10) : ((size_t)1 << 31) + 7;
  const size_t count = rank == size - 1 ? last : (size_t)(1000 + rank);
  unsigned char *send = malloc(count + 1);
  HM_TEST_ASSERT(send, "rank %d: no memory for %zu bytes", rank, count);
  if (!send) MPI_Abort(MPI_COMM_WORLD, 1);
  for (size_t i = 0; i < count; i++) send[i] = byte_of(rank, i);
  void *all = NULL;
  size_t total = 0;
  const double t0 = MPI_Wtime();
  HM_TEST_OK(hm_mpi_gatherv_large(send, count, MPI_BYTE, 0, MPI_COMM_WORLD, &all, &total));
  const double t1 = MPI_Wtime();
  free(send);
  if (rank == 0) {
    size_t want = last, bad = 0, at = 0;
    for (int r = 0; r < size - 1; r++) want += (size_t)(1000 + r);
    HM_TEST_ASSERT(total == want, "gathered %zu bytes, expected %zu", total, want);
    const unsigned char *b = all;
    for (int r = 0; r < size && total == want; r++) {
      const size_t n = r == size - 1 ? last : (size_t)(1000 + r);
      for (size_t i = 0; i < n; i++, at++) bad += b[at] != byte_of(r, i);
    }
    HM_TEST_ASSERT(bad == 0, "%zu gathered bytes differ from their rank's formula", bad);
    printf("gathered %zu bytes (2^31 = %zu) from %d ranks in %.2f s: %s\n", total, (size_t)1 << 31, size, t1 - t0,
           bad || total != want ? "WRONG" : "exact");
  } else {
    HM_TEST_ASSERT(all == NULL && total == 0, "rank %d got a gathered buffer", rank);
  }
  free(all);
  return hm_test_finish();
}
