/* Velocity blocks against the dense commutator i[H, X_a] on an open 3 x 4 lattice (where X is a
 * plain diagonal matrix): a slanted lattice, orbitals off the cell origin, an intra-cell hop, all
 * three directions; hm_matrix_create_velocity of the assembled matrix on a twisted periodic 4 x 3
 * lattice equals the stencil of the velocity blocks (nearest images); then the bad inputs. Any
 * rank count. */
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
  /* the matrix route on a twisted periodic box */
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  const int64_t box[3] = {4, 3, 1};
  const int pbc[3] = {HM_BC_TWISTED, HM_BC_PERIODIC, HM_BC_OPEN};
  const double tw[3] = {0.7, 0, 0};
  stencil_dense(box, 2, QWZ_BLOCKS, qwz_shift, blk, pbc, tw, H);
  hm_matrix *A, *Vm;
  HM_TEST_OK(matrix_from_dense(ctx, n, 2, H, &A));
  for (int dir = 0; dir < 3; dir++) {
    HM_TEST_OK(hm_velocity_blocks(2, QWZ_BLOCKS, qwz_shift, blk, lattice, tau, dir, vblk));
    stencil_dense(box, 2, QWZ_BLOCKS, qwz_shift, vblk, pbc, tw, V);
    HM_TEST_OK(hm_matrix_create_velocity(A, box, 2, lattice, tau, dir, &Vm));
    double complex *got;
    int64_t ng;
    HM_TEST_OK(hm_test_dense(Vm, &got, &ng));
    double worst = 0;
    for (int64_t i = 0; i < n * n; i++) worst = fmax(worst, cabs(got[i] - V[i]));
    HM_TEST_ASSERT(ng == n && worst < 1e-14, "direction %d: hm_matrix_create_velocity off the stencil's by %g", dir,
                   worst);
    free(got);
    hm_matrix_destroy(&Vm);
  }
  const int64_t wrong[3] = {5, 3, 1};
  HM_TEST_FAILS(hm_matrix_create_velocity(A, wrong, 2, lattice, tau, 0, &Vm), HM_ERR_ARGUMENT, "cells of 2 orbitals");
  HM_TEST_FAILS(hm_matrix_create_velocity(A, box, 2, lattice, tau, -1, &Vm), HM_ERR_ARGUMENT, "allowed are 0 (x)");
  hm_matrix_destroy(&A);
  hm_context_destroy(&ctx);

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
