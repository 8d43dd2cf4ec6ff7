/* A slab's z layers folded into one unit cell, so that a term can differ from layer to layer (a
 * Zeeman field on the surfaces of a magnetic TI slab) while the supercell stays translation
 * invariant in x and y: the folded cell has nz * orbitals orbitals (orbital l * orbitals + i is
 * orbital i of layer l, at tau_i + l a3), lattice vectors a1, a2, nz a3, and the blocks of every
 * in-plane shift (hops that leave the slab along z are dropped: the slab is open along z). */
#include <string.h>
#include "error_macros.h"
#include "lattice.h"

/* Block index of in-plane shift (Rx, Ry) in shift[nb][3], appended when new. */
static int plane_block(int32_t *shift, int *nb, int32_t rx, int32_t ry) {
  for (int b = 0; b < *nb; b++)
    if (shift[3 * b] == rx && shift[3 * b + 1] == ry) return b;
  shift[3 * *nb] = rx, shift[3 * *nb + 1] = ry, shift[3 * *nb + 2] = 0;
  return (*nb)++;
}

/* B . sigma on the (k-th up, k-th down) pairs of layer l in the folded R = 0 block. */
static void add_layer_zeeman(const hm_lattice *L, int64_t nz, int64_t l, const double B[3], double complex *b0) {
  const int n = L->orbitals, m = n * (int)nz, off = (int)l * n;
  int u = 0, d = 0;
  for (;;) {
    while (u < n && L->spin[u] != HM_LATTICE_SPIN_UP) u++;
    while (d < n && L->spin[d] != HM_LATTICE_SPIN_DOWN) d++;
    if (u == n || d == n) return;
    const size_t uu = (size_t)(off + u), dd = (size_t)(off + d);
    b0[uu * m + uu] += B[2];
    b0[dd * m + dd] -= B[2];
    b0[uu * m + dd] += B[0] - I * B[1];
    b0[dd * m + uu] += B[0] + I * B[1];
    u++;
    d++;
  }
}

int hm_lattice_fold_layers(const hm_lattice *L, int64_t nz, const double *layer_zeeman, hm_lattice *out) {
  HM_CHECK(L && out, HM_ERR_ARGUMENT, "L and out must not be NULL");
  memset(out, 0, sizeof *out);
  HM_CHECK(nz >= 1 && nz * L->orbitals <= 4096, HM_ERR_DECK,
           "zeeman_layers folds the slab's nz = %lld layers of %d orbitals into one cell: at most 4096 orbitals "
           "(use fewer layers)", (long long)nz, L->orbitals);
  int up = 0, down = 0;
  for (int i = 0; i < L->orbitals; i++) {
    up += L->spin[i] == HM_LATTICE_SPIN_UP;
    down += L->spin[i] == HM_LATTICE_SPIN_DOWN;
  }
  HM_CHECK(!layer_zeeman || (up > 0 && up == down), HM_ERR_DECK,
           "zeeman needs orbitals labelled spin up and down in pairs (the k-th up with the k-th down); the model "
           "has %d up and %d down (hamlet's format labels them: 'orbital x y z up')", up, down);
  const int n = L->orbitals, m = n * (int)nz;
  out->orbitals = m;
  memcpy(out->cell, L->cell, sizeof out->cell);
  for (int d = 0; d < 3; d++) out->cell[2][d] = (double)nz * L->cell[2][d];
  out->position = malloc(sizeof(double) * 3 * (size_t)m);
  out->spin = malloc(sizeof(int) * (size_t)m);
  out->shift = malloc(sizeof(int32_t) * 3 * (size_t)L->nblocks);
  out->block = calloc((size_t)L->nblocks * (size_t)m * (size_t)m, sizeof(double complex));
  if (!out->position || !out->spin || !out->shift || !out->block) {
    hm_lattice_free(out);
    HM_RAISE(HM_ERR_MEMORY, "no memory for the folded cell of %d orbitals and %d blocks", m, L->nblocks);
  }
  for (int64_t l = 0; l < nz; l++)
    for (int i = 0; i < n; i++) {
      for (int d = 0; d < 3; d++) out->position[3 * (l * n + i) + d] = L->position[3 * i + d] + (double)l * L->cell[2][d];
      out->spin[l * n + i] = L->spin[i];
    }
  int nb = 0;
  plane_block(out->shift, &nb, 0, 0); /* the R = 0 block first: the Zeeman term goes there */
  for (int b = 0; b < L->nblocks; b++) {
    const int32_t *R = L->shift + 3 * b;
    double complex *dst = out->block + (size_t)plane_block(out->shift, &nb, R[0], R[1]) * m * m;
    const double complex *src = L->block + (size_t)b * n * n;
    for (int64_t l = 0; l < nz; l++) {
      const int64_t t = l + R[2]; /* the target layer */
      if (t < 0 || t >= nz) continue;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) dst[(size_t)(l * n + i) * m + (size_t)(t * n + j)] += src[i * n + j];
    }
  }
  out->nblocks = nb;
  if (layer_zeeman)
    for (int64_t l = 0; l < nz; l++) add_layer_zeeman(L, nz, l, layer_zeeman + 3 * l, out->block);
  return HM_SUCCESS;
}
