/* hm_lattice_fold_layers on inputs/lattices/ti.lattice (4 orbitals with spins): a 3 x 2 x 4 slab open
 * along z, folded into one cell of 16 orbitals on 3 x 2 x 1 cells, has the dense matrix of the
 * unfolded slab with its rows renumbered (cell (cx, cy), layer l, orbital i: 16 (cx + 3 cy) + 4 l + i
 * against 4 (cx + 3 (cy + 2 l)) + i), exactly; with a field B on layer 3 and -B on layer 0 the
 * difference is B . sigma on those layers' spin pairs and nothing else; folded positions are
 * tau + l a3; a model without spin labels is refused for a field and accepted without one. */
#include <string.h>
#include "lattice_test_util.h"
#include "testing.h"

static double complex *slab_dense(const hm_lattice *L, const int64_t cells[3], int64_t *N) {
  hm_lattice_params p;
  hm_lattice_params_default(&p);
  memcpy(p.cells, cells, sizeof p.cells);
  p.boundary[0] = p.boundary[1] = p.boundary[2] = HM_BC_OPEN;
  hm_lattice_stencil st;
  HM_TEST_OK(hm_lattice_make_stencil(L, &p, &st));
  double complex *H = lattice_dense(&st.stencil, N);
  hm_lattice_stencil_free(&st);
  return H;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hm_lattice L, F, G;
  HM_TEST_OK(hm_lattice_read(LATTICE_DIR "/ti.lattice", HM_LATTICE_AUTO, NULL, NULL, &L));
  const int64_t nz = 4, slab[3] = {3, 2, nz}, folded[3] = {3, 2, 1};
  HM_TEST_OK(hm_lattice_fold_layers(&L, nz, NULL, &F));
  HM_TEST_ASSERT(F.orbitals == 16 && F.cell[2][2] == 4.0, "folded cell: %d orbitals, a3 z = %g", F.orbitals,
                 F.cell[2][2]);
  for (int l = 0; l < nz; l++) HM_TEST_ASSERT(F.position[3 * (4 * l + 1) + 2] == l, "position of layer %d", l);
  int64_t N, Nf;
  double complex *H = slab_dense(&L, slab, &N), *Hf = slab_dense(&F, folded, &Nf);
  HM_TEST_ASSERT(N == 96 && Nf == 96, "sizes %lld and %lld", (long long)N, (long long)Nf);
  int64_t perm[96]; /* folded row -> slab row */
  for (int64_t cy = 0; cy < 2; cy++)
    for (int64_t cx = 0; cx < 3; cx++)
      for (int64_t l = 0; l < nz; l++)
        for (int i = 0; i < 4; i++) perm[16 * (cx + 3 * cy) + 4 * l + i] = 4 * (cx + 3 * (cy + 2 * l)) + i;
  double worst = 0;
  for (int64_t r = 0; r < N; r++)
    for (int64_t c = 0; c < N; c++) worst = fmax(worst, cabs(Hf[c * N + r] - H[perm[c] * N + perm[r]]));
  HM_TEST_ASSERT(worst == 0, "folded slab differs from the slab by %g", worst);

  double B[12] = {0};
  const double field[3] = {0.3, -0.2, 0.7};
  for (int a = 0; a < 3; a++) B[3 * (nz - 1) + a] = field[a], B[a] = -field[a];
  HM_TEST_OK(hm_lattice_fold_layers(&L, nz, B, &G));
  int64_t Ng;
  double complex *Hg = slab_dense(&G, folded, &Ng);
  const double complex sigma[3][2][2] = {{{0, 1}, {1, 0}}, {{0, -I}, {I, 0}}, {{1, 0}, {0, -1}}};
  worst = 0;
  for (int64_t r = 0; r < N; r++)
    for (int64_t c = 0; c < N; c++) {
      double complex want = 0;
      const int64_t lr = (r % 16) / 4, lc = (c % 16) / 4, ir = r % 4, ic = c % 4;
      /* ti.lattice: orbitals 0, 2 up, 1, 3 down; pairs (0, 1) and (2, 3) */
      if (r / 16 == c / 16 && lr == lc && ir / 2 == ic / 2 && (lr == 0 || lr == nz - 1))
        for (int a = 0; a < 3; a++) want += (lr == 0 ? -1 : 1) * field[a] * sigma[a][ir % 2][ic % 2];
      worst = fmax(worst, cabs(Hg[c * N + r] - Hf[c * N + r] - want));
    }
  HM_TEST_ASSERT(worst < 1e-15, "surface Zeeman terms off by %g", worst);

  hm_lattice Q, Qf, T;
  HM_TEST_OK(hm_lattice_read(LATTICE_DIR "/qwz.lattice", HM_LATTICE_AUTO, NULL, NULL, &Q));
  HM_TEST_FAILS(hm_lattice_fold_layers(&Q, 2, B, &Qf), HM_ERR_DECK, "spin up and down in pairs");
  HM_TEST_OK(hm_lattice_fold_layers(&Q, 2, NULL, &Qf));
  HM_TEST_FAILS(hm_lattice_fold_layers(&L, 2000, NULL, &T), HM_ERR_DECK, "at most 4096 orbitals");
  free(H);
  free(Hf);
  free(Hg);
  hm_lattice_free(&L);
  hm_lattice_free(&F);
  hm_lattice_free(&G);
  hm_lattice_free(&Q);
  hm_lattice_free(&Qf);
  return hm_test_finish();
}
