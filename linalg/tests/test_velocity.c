/* Velocity blocks against the dense commutator i[H, X_a] on an open 3 x 4 lattice (where X is a
 * plain diagonal matrix): a slanted lattice, orbitals off the cell origin, an intra-cell hop, all
 * three directions; then the bad inputs. */
#include "conductivity_testlib.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int64_t cells[3] = {3, 4, 1};
  const int bc[3] = {HM_BC_OPEN, HM_BC_OPEN, HM_BC_OPEN};
  const double twist[3] = {0, 0, 0};
  const double lattice[9] = {1, 0, 0, 0.5, 0.9, 0.1, 0, 0, 2};
  const double tau[6] = {0, 0, 0, 0.3, 0.2, -0.4};
  double blk[QWZ_BLOCKS * 8], vblk[QWZ_BLOCKS * 8];
  qwz_blocks(1.3, 0.7, blk);
  const int64_t n = 24;
  double complex *H = malloc(sizeof(double complex) * n * n), *V = malloc(sizeof(double complex) * n * n);
  stencil_dense(cells, 2, QWZ_BLOCKS, qwz_shift, blk, bc, twist, H);
  for (int dir = 0; dir < 3; dir++) {
    HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, dir, vblk));
    stencil_dense(cells, 2, QWZ_BLOCKS, qwz_shift, vblk, bc, twist, V);
    double x[24], worst = 0, largest = 0;
    for (int64_t r = 0; r < n; r++) {
      int64_t s = r / 2, o = r % 2, c0 = s % 3, c1 = s / 3;
      x[r] = c0 * lattice[dir] + c1 * lattice[3 + dir] + tau[3 * o + dir];
    }
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex ref = I * H[j * n + i] * (x[j] - x[i]); /* i (H X - X H)_ij */
        worst = fmax(worst, cabs(V[j * n + i] - ref));
        largest = fmax(largest, cabs(ref));
      }
    HM_TEST_ASSERT(worst < 1e-14, "direction %d: velocity off i[H, X] by %g", dir, worst);
    HM_TEST_ASSERT(largest > 0.1, "direction %d: i[H, X] is zero (%g): the test checks nothing", dir, largest);
  }
  HM_TEST_FAILS(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 3, vblk), HM_ERR_ARGUMENT,
                "allowed are 0 (x), 1 (y), 2 (z)");
  HM_TEST_FAILS(hm_velocity_blocks(0, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, 0, vblk), HM_ERR_ARGUMENT,
                "must be >= 1");
  HM_TEST_FAILS(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, NULL, tau, 0, vblk), HM_ERR_ARGUMENT,
                "must not be NULL");
  double bad[9] = {NAN, 0, 0, 0, 1, 0, 0, 0, 1};
  HM_TEST_FAILS(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, bad, tau, 0, vblk), HM_ERR_ARGUMENT,
                "must be finite");
  free(H);
  free(V);
  return hm_test_finish();
}
