/* The hopping blocks of a lattice model from the list of hoppings a parser read: duplicates are
 * errors, H(-R) = H(R)^dagger is checked where both are given and completed where one is. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "lattice_internal.h"

int hm_hops_add(hm_hops *h, const int32_t R[3], int i, int j, double complex raw, long weight, int line) {
  if (h->n == h->cap) {
    int cap = h->cap ? 2 * h->cap : 256;
    hm_hop *bigger = realloc(h->hop, sizeof *bigger * (size_t)cap);
    HM_CHECK(bigger, HM_ERR_MEMORY, "cannot hold %d hoppings", cap);
    h->hop = bigger;
    h->cap = cap;
  }
  hm_hop *p = &h->hop[h->n++];
  memcpy(p->R, R, sizeof p->R);
  p->i = i;
  p->j = j;
  p->raw = raw;
  p->weight = weight;
  p->v = weight == 1 ? raw : raw / (double)weight;
  p->line = line;
  return HM_SUCCESS;
}

void hm_hops_free(hm_hops *h) {
  free(h->hop);
  h->hop = NULL;
  h->n = h->cap = 0;
}

/* "R = (1, 0, 0), m = 1, n = 2 on line 7 is 0.5-0.25i (degeneracy weight 4)": a hop as its file writes it. */
static void describe(const hm_hops *h, const hm_hop *p, char *text, size_t len) {
  const int base = h->one_based ? 1 : 0;
  char weight[64] = "";
  if (p->weight != 1) snprintf(weight, sizeof weight, " (degeneracy weight %ld)", p->weight);
  snprintf(text, len, "R = (%d, %d, %d), %s = %d, %s = %d on line %d is %.15g%+.15gi%s", p->R[0], p->R[1], p->R[2],
           h->one_based ? "m" : "i", p->i + base, h->one_based ? "n" : "j", p->j + base, p->line, creal(p->raw),
           cimag(p->raw), weight);
}

int hm_lattice_alloc_orbitals(hm_lattice *L, int orbitals) {
  L->orbitals = orbitals;
  L->position = calloc((size_t)orbitals * 3, sizeof *L->position);
  L->spin = calloc((size_t)orbitals, sizeof *L->spin);
  HM_CHECK(L->position && L->spin, HM_ERR_MEMORY, "cannot hold %d orbitals", orbitals);
  return HM_SUCCESS;
}

void hm_lattice_free(hm_lattice *L) {
  if (!L) return;
  free(L->position);
  free(L->spin);
  free(L->shift);
  free(L->block);
  memset(L, 0, sizeof *L);
}

static int find_block(const int32_t *shift, int nblocks, const int32_t R[3]) {
  for (int b = 0; b < nblocks; b++)
    if (shift[3 * b] == R[0] && shift[3 * b + 1] == R[1] && shift[3 * b + 2] == R[2]) return b;
  return -1;
}

/* Distinct shifts of the hops and their negatives, R = 0 first. */
static int collect_shifts(const hm_hops *h, hm_lattice *L) {
  L->shift = malloc(sizeof *L->shift * 3 * (size_t)(2 * h->n + 1));
  HM_CHECK(L->shift, HM_ERR_MEMORY, "cannot hold the shifts of %d hoppings", h->n);
  L->nblocks = 1;
  L->shift[0] = L->shift[1] = L->shift[2] = 0;
  for (int k = 0; k < h->n; k++)
    for (int sign = 1; sign >= -1; sign -= 2) {
      int32_t R[3] = {sign * h->hop[k].R[0], sign * h->hop[k].R[1], sign * h->hop[k].R[2]};
      if (find_block(L->shift, L->nblocks, R) < 0) {
        memcpy(L->shift + 3 * L->nblocks, R, sizeof R);
        L->nblocks++;
      }
    }
  return HM_SUCCESS;
}

int hm_lattice_from_hops(const char *file, const hm_hops *h, double tol, hm_lattice *L) {
  const int n = L->orbitals;
  HM_CALL(collect_shifts(h, L));
  const size_t entries = (size_t)L->nblocks * (size_t)n * (size_t)n;
  L->block = calloc(entries, sizeof *L->block);
  int *given = calloc(entries, sizeof *given); /* 1 + the hop that gave the entry; 0 = not given */
  if (!L->block || !given) {
    free(given);
    HM_RAISE(HM_ERR_MEMORY, "%s: cannot hold %d blocks of %d x %d", file, L->nblocks, n, n);
  }
  double largest = 0;
  int st = HM_SUCCESS;
  for (int k = 0; k < h->n && !st; k++) {
    const hm_hop *p = &h->hop[k];
    size_t e = ((size_t)find_block(L->shift, L->nblocks, p->R) * n + p->i) * n + p->j;
    if (given[e]) {
      const int base = h->one_based ? 1 : 0;
      const char *a = h->one_based ? "m" : "i", *c = h->one_based ? "n" : "j";
      st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                          "%s:%d: the hopping R = (%d, %d, %d), %s = %d, %s = %d is given twice (first on line %d); "
                          "each (R, %s, %s) is allowed once",
                          file, p->line, p->R[0], p->R[1], p->R[2], a, p->i + base, c, p->j + base,
                          h->hop[given[e] - 1].line, a, c);
    }
    L->block[e] = p->v;
    given[e] = k + 1;
    largest = fmax(largest, cabs(p->v));
  }
  /* Hermiticity: the partner of (R, i, j) is (-R, j, i). */
  for (int b = 0; b < L->nblocks && !st; b++) {
    const int32_t minus[3] = {-L->shift[3 * b], -L->shift[3 * b + 1], -L->shift[3 * b + 2]};
    const int bm = find_block(L->shift, L->nblocks, minus);
    for (int i = 0; i < n && !st; i++)
      for (int j = 0; j < n && !st; j++) {
        size_t e = ((size_t)b * n + i) * n + j, m = ((size_t)bm * n + j) * n + i;
        if (!given[e]) continue;
        if (!given[m]) {
          L->block[m] = conj(L->block[e]);
          continue;
        }
        double complex want = conj(L->block[e]);
        if (cabs(L->block[m] - want) > tol * largest) {
          const hm_hop *pm = &h->hop[given[m] - 1], *pe = &h->hop[given[e] - 1];
          char here[256], partner[256];
          describe(h, pm, here, sizeof here);
          describe(h, pe, partner, sizeof partner);
          if (e == m)
            st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                                "%s:%d: non-Hermitian H(0): the hopping %s: a diagonal entry of H(0) is its own "
                                "partner and must be real (to %g of the largest hopping)", file, pm->line, here, tol);
          else
            st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                                "%s:%d: %sthe hopping %s, but its partner %s: the model must be Hermitian, "
                                "H_%s(-R) = conj(H_%s(R)) (to %g of the largest hopping%s)",
                                file, pm->line, b == bm ? "non-Hermitian H(0): " : "", here, partner,
                                h->one_based ? "nm" : "ji", h->one_based ? "mn" : "ij", tol,
                                pm->weight != 1 || pe->weight != 1 ? ", after dividing by the weights" : "");
        } else if (e < m) {
          double complex mean = 0.5 * (L->block[e] + conj(L->block[m]));
          L->block[e] = mean;
          L->block[m] = conj(mean);
        } else if (e == m) {
          L->block[e] = creal(L->block[e]);
        }
      }
  }
  free(given);
  return st;
}
