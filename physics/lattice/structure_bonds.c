/* The bonds of a periodic structure within the cutoff and their hoppings. Atoms are sorted into
 * cell lists over the fractional coordinates (wrapped into the cell where periodic), each list at
 * least the cutoff wide across its planes, so only the 27 (or, for a cell thinner than the cutoff,
 * more) neighbouring lists of an atom are searched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "lattice_internal.h"
#include "structure.h"

void hm_hopping_rule_default(hm_hopping_rule *rule) {
  memset(rule, 0, sizeof *rule);
  rule->kind = HM_HOPPING_SLATER_KOSTER;
  rule->vpp_pi = -2.7; /* graphene's p_z parameters as used for twisted bilayers (Moon and Koshino) */
  rule->vpp_sigma = 0.48;
  rule->a0 = 2.46 / sqrt(3);
  rule->d0 = 3.35;
  rule->delta0 = 0.184 * 2.46;
}

void hm_bonds_free(hm_bonds *b) {
  free(b->start);
  free(b->j);
  free(b->image);
  free(b->t);
  free(b->atom);
  free(b->onsite);
  memset(b, 0, sizeof *b);
}

int hm_hopping_table_read(const char *path, double **d, double **t, int *npoints) {
  *d = *t = NULL;
  *npoints = 0;
  hm_text txt;
  HM_CALL(hm_text_open(path, &txt));
  int st = HM_SUCCESS, cap = 0;
  while (hm_text_next(&txt, 1)) {
    double x, y;
    if (txt.nfields != 2) {
      st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                          "%s:%d: a hopping table line is 'distance hopping' (angstrom, eV); this one has %d fields",
                          path, txt.line, txt.nfields);
      break;
    }
    if ((st = hm_text_double(&txt, 0, "distance", &x)) || (st = hm_text_double(&txt, 1, "hopping", &y))) break;
    if (x < 0 || (*npoints && x <= (*d)[*npoints - 1])) {
      st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                          "%s:%d: distance %g: the distances must be >= 0 and increase line by line", path, txt.line, x);
      break;
    }
    if (*npoints == cap) {
      cap = cap ? 2 * cap : 64;
      double *nd = realloc(*d, sizeof(double) * cap), *nt = nd ? realloc(*t, sizeof(double) * cap) : NULL;
      if (nd) *d = nd;
      if (nt) *t = nt;
      if (!nd || !nt) {
        st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "%s: the table does not fit", path);
        break;
      }
    }
    (*d)[*npoints] = x;
    (*t)[(*npoints)++] = y;
  }
  if (!st && *npoints < 2)
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                        "%s: a hopping table needs at least two points (distance hopping); it has %d", path, *npoints);
  hm_text_close(&txt);
  if (st) {
    free(*d);
    free(*t);
    *d = *t = NULL;
    *npoints = 0;
  }
  return st;
}

/* The Slater-Koster integral from orbital kind a (on the bond's first atom) to kind b along v (length len). */
static double slater_koster(const hm_hopping_rule *rule, int a, int b, const double v[3], double len) {
  const double n[3] = {v[0] / len, v[1] / len, v[2] / len};
  if (a == HM_ORBITAL_S && b == HM_ORBITAL_S) return rule->vss_sigma * exp(-(len - rule->a0) / rule->delta0);
  if (a == HM_ORBITAL_S || b == HM_ORBITAL_S) { /* s-p_b: n_b V_sp_sigma; p_a-s: -n_a V_sp_sigma */
    const double sp = rule->vsp_sigma * exp(-(len - rule->a0) / rule->delta0);
    return a == HM_ORBITAL_S ? n[b - 1] * sp : -n[a - 1] * sp;
  }
  const double pi = rule->vpp_pi * exp(-(len - rule->a0) / rule->delta0),
               sigma = rule->vpp_sigma * exp(-(len - rule->d0) / rule->delta0),
               nn = v[a - 1] * v[b - 1] / (len * len);
  return nn * sigma + ((a == b) - nn) * pi;
}

/* t of a bond vector v of length len from orbital kind a to kind b: the rule's value; HM_ERR_INPUT where a
 * table does not reach. */
static int hopping(const hm_hopping_rule *rule, int a, int b, const double v[3], double len, double *t) {
  if (rule->kind == HM_HOPPING_SLATER_KOSTER) {
    *t = slater_koster(rule, a, b, v, len);
    return HM_SUCCESS;
  }
  const double *d = rule->table_d, *tt = rule->table_t;
  const int n = rule->npoints;
  HM_CHECK(len >= d[0] && len <= d[n - 1], HM_ERR_INPUT,
           "%s: a bond of %.6g A is outside the table's distances [%g, %g]: extend the table or lower cutoff",
           rule->table_file ? rule->table_file : "hopping table", len, d[0], d[n - 1]);
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (d[mid] <= len) lo = mid;
    else hi = mid;
  }
  const double w = (len - d[lo]) / (d[hi] - d[lo]);
  *t = (1 - w) * tt[lo] + w * tt[hi];
  return HM_SUCCESS;
}

/* The inverse of the cell (rows a_k): frac = x . inv. */
static void invert(const double a[3][3], double inv[3][3]) {
  const double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                     a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                     a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      inv[i][j] = (a[i1][j1] * a[i2][j2] - a[i1][j2] * a[i2][j1]) / det;
    }
}

typedef struct {
  int nb[3], reach[3];
  double lo[3], width[3];   /* fractional range of the lists */
  double inv[3][3];         /* the cell's inverse: fractional = x . inv */
  int64_t *first, *atom;    /* atoms of list l: atom[first[l] .. first[l + 1]) */
  double *wrapped;          /* [natoms][3] cartesian, folded into the cell where periodic */
  int32_t (*fold)[3];       /* pos = wrapped + fold . cell */
} cell_lists;

static int make_lists(const hm_structure *s, double cutoff, cell_lists *c) {
  memset(c, 0, sizeof *c);
  const int64_t n = s->natoms;
  double(*inv)[3] = c->inv, (*f)[3] = malloc(sizeof(double) * 3 * (size_t)n);
  c->wrapped = malloc(sizeof(double) * 3 * (size_t)n);
  c->fold = malloc(sizeof *c->fold * (size_t)n);
  int64_t *list = malloc(sizeof(int64_t) * (size_t)n);
  HM_CHECK(f && c->wrapped && c->fold && list, HM_ERR_MEMORY, "cell lists of %lld atoms", (long long)n);
  invert(s->cell, inv);
  double hi[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) c->lo[k] = 0, hi[k] = 1;
  for (int64_t a = 0; a < n; a++)
    for (int k = 0; k < 3; k++) {
      const double *x = s->pos + 3 * a;
      double v = x[0] * inv[0][k] + x[1] * inv[1][k] + x[2] * inv[2][k];
      c->fold[a][k] = 0;
      if (s->pbc[k]) {
        const double w = floor(v);
        c->fold[a][k] = (int32_t)w;
        v -= w;
        if (v >= 1) v = 0, c->fold[a][k]++;
      }
      f[a][k] = v;
    }
  for (int k = 0; k < 3; k++) {
    if (s->pbc[k]) continue;
    c->lo[k] = hi[k] = f[0][k];
    for (int64_t a = 1; a < n; a++) c->lo[k] = fmin(c->lo[k], f[a][k]), hi[k] = fmax(hi[k], f[a][k]);
    hi[k] += 1e-9;
  }
  /* the spacing of the planes of a_k: volume / |a_k+1 x a_k+2| = 1 / |column k of inv|; lists at least the
   * cutoff wide, and no more lists than about twice the atoms (a sparse structure's empty lists cost too) */
  double extent[3], spacing[3];
  for (int k = 0; k < 3; k++) {
    spacing[k] = 1 / sqrt(inv[0][k] * inv[0][k] + inv[1][k] * inv[1][k] + inv[2][k] * inv[2][k]);
    extent[k] = (hi[k] - c->lo[k]) * spacing[k];
    c->nb[k] = (int)fmin(fmax(1, floor(extent[k] / cutoff)), 1024);
  }
  while ((double)c->nb[0] * c->nb[1] * c->nb[2] > 2.0 * (double)n + 64) {
    const int k = c->nb[0] >= c->nb[1] && c->nb[0] >= c->nb[2] ? 0 : c->nb[1] >= c->nb[2] ? 1 : 2;
    c->nb[k] = (c->nb[k] + 1) / 2;
  }
  int64_t lists = 1;
  for (int k = 0; k < 3; k++) {
    c->width[k] = (hi[k] - c->lo[k]) / c->nb[k];
    c->reach[k] = (int)ceil(cutoff / (c->width[k] * spacing[k]) - 1e-12);
    if (!s->pbc[k]) c->reach[k] = c->reach[k] < c->nb[k] ? c->reach[k] : c->nb[k];
    lists *= c->nb[k];
  }
  c->first = calloc((size_t)lists + 1, sizeof(int64_t));
  c->atom = malloc(sizeof(int64_t) * (size_t)n);
  HM_CHECK(c->first && c->atom, HM_ERR_MEMORY, "cell lists of %lld atoms", (long long)n);
  for (int64_t a = 0; a < n; a++) {
    int64_t l = 0;
    for (int k = 2; k >= 0; k--) {
      int b = (int)((f[a][k] - c->lo[k]) / c->width[k]);
      b = b < 0 ? 0 : b >= c->nb[k] ? c->nb[k] - 1 : b;
      l = l * c->nb[k] + b;
    }
    list[a] = l;
    c->first[l + 1]++;
    const double *x = s->pos + 3 * a;
    for (int k = 0; k < 3; k++)
      c->wrapped[3 * a + k] = x[k] - c->fold[a][0] * s->cell[0][k] - c->fold[a][1] * s->cell[1][k] -
                              c->fold[a][2] * s->cell[2][k];
  }
  for (int64_t l = 0; l < lists; l++) c->first[l + 1] += c->first[l];
  int64_t *fill = malloc(sizeof(int64_t) * (size_t)lists);
  HM_CHECK(fill, HM_ERR_MEMORY, "cell lists");
  memcpy(fill, c->first, sizeof(int64_t) * (size_t)lists);
  for (int64_t a = 0; a < n; a++) c->atom[fill[list[a]]++] = a;
  free(fill);
  free(list);
  free(f);
  return HM_SUCCESS;
}

static void free_lists(cell_lists *c) {
  free(c->first);
  free(c->atom);
  free(c->wrapped);
  free(c->fold);
}

/* Append bond (j, image, t) to b (growing its arrays). */
static int push(hm_bonds *b, int64_t *cap, int64_t j, const int32_t image[3], double t) {
  if (b->nbonds == *cap) {
    *cap = *cap ? 2 * *cap : 1024;
    int64_t *nj = realloc(b->j, sizeof(int64_t) * (size_t)*cap);
    if (nj) b->j = nj;
    int32_t(*ni)[3] = nj ? realloc(b->image, sizeof *ni * (size_t)*cap) : NULL;
    if (ni) b->image = ni;
    double *nt = ni ? realloc(b->t, sizeof(double) * (size_t)*cap) : NULL;
    if (nt) b->t = nt;
    HM_CHECK(nt, HM_ERR_MEMORY, "%lld bonds do not fit in memory", (long long)*cap);
  }
  b->j[b->nbonds] = j;
  memcpy(b->image[b->nbonds], image, sizeof(int32_t) * 3);
  b->t[b->nbonds++] = t;
  return HM_SUCCESS;
}

/* The atoms bonded to one atom: j, the image R and the bond vector. */
typedef struct {
  int64_t n, cap;
  int64_t *j;
  int32_t (*image)[3];
  double (*v)[3];
} neighbours;

static int add_neighbour(neighbours *nb, int64_t j, const int32_t image[3], const double v[3]) {
  if (nb->n == nb->cap) {
    nb->cap = nb->cap ? 2 * nb->cap : 64;
    int64_t *nj = realloc(nb->j, sizeof(int64_t) * (size_t)nb->cap);
    if (nj) nb->j = nj;
    int32_t(*ni)[3] = nj ? realloc(nb->image, sizeof *ni * (size_t)nb->cap) : NULL;
    if (ni) nb->image = ni;
    double(*nv)[3] = ni ? realloc(nb->v, sizeof *nv * (size_t)nb->cap) : NULL;
    if (nv) nb->v = nv;
    HM_CHECK(nv, HM_ERR_MEMORY, "%lld neighbours of an atom do not fit in memory", (long long)nb->cap);
  }
  nb->j[nb->n] = j;
  memcpy(nb->image[nb->n], image, sizeof(int32_t) * 3);
  memcpy(nb->v[nb->n++], v, sizeof(double) * 3);
  return HM_SUCCESS;
}

/* The neighbours of atom i: every atom of the lists within reach of i's list, over the images they wrap to. */
static int neighbours_of(const hm_structure *s, double cutoff, const cell_lists *c, int64_t i, neighbours *nb) {
  nb->n = 0;
  const double *xi = c->wrapped + 3 * i;
  int home[3];
  for (int k = 0; k < 3; k++) {
    const double f = xi[0] * c->inv[0][k] + xi[1] * c->inv[1][k] + xi[2] * c->inv[2][k];
    int h = (int)((f - c->lo[k]) / c->width[k]);
    home[k] = h < 0 ? 0 : h >= c->nb[k] ? c->nb[k] - 1 : h;
  }
  const double cut2 = cutoff * cutoff;
  for (int o2 = -c->reach[2]; o2 <= c->reach[2]; o2++)
    for (int o1 = -c->reach[1]; o1 <= c->reach[1]; o1++)
      for (int o0 = -c->reach[0]; o0 <= c->reach[0]; o0++) {
        const int off[3] = {o0, o1, o2};
        int bin[3], wrap[3];
        int skip = 0;
        for (int k = 0; k < 3; k++) {
          const int q = home[k] + off[k];
          wrap[k] = (int)floor((double)q / c->nb[k]);
          bin[k] = q - wrap[k] * c->nb[k];
          if (!s->pbc[k] && wrap[k] != 0) skip = 1;
        }
        if (skip) continue;
        const int64_t l = ((int64_t)bin[2] * c->nb[1] + bin[1]) * c->nb[0] + bin[0];
        double shift[3];
        for (int k = 0; k < 3; k++) shift[k] = wrap[0] * s->cell[0][k] + wrap[1] * s->cell[1][k] + wrap[2] * s->cell[2][k];
        for (int64_t q = c->first[l]; q < c->first[l + 1]; q++) {
          const int64_t j = c->atom[q];
          const double *xj = c->wrapped + 3 * j;
          /* (xj - xi) + shift: the reverse bond's vector is exactly -v, so both get the same t (H symmetric
           * to the last bit) */
          const double v[3] = {(xj[0] - xi[0]) + shift[0], (xj[1] - xi[1]) + shift[1], (xj[2] - xi[2]) + shift[2]};
          const double d2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
          if (d2 >= cut2) continue;
          if (j == i && !wrap[0] && !wrap[1] && !wrap[2]) continue;
          HM_CHECK(d2 > 1e-6, HM_ERR_INPUT, "atoms %lld and %lld (counted from 1) are %.3g A apart: two atoms at one place",
                   (long long)i + 1, (long long)j + 1, sqrt(d2));
          const int32_t image[3] = {wrap[0] + c->fold[j][0] - c->fold[i][0], wrap[1] + c->fold[j][1] - c->fold[i][1],
                                    wrap[2] + c->fold[j][2] - c->fold[i][2]};
          HM_CALL(add_neighbour(nb, j, image, v));
        }
      }
  return HM_SUCCESS;
}

/* The hoppings of atom i's rows (first[i] .. first[i + 1]) to the rows of its neighbours. */
static int rows_of(const hm_hopping_rule *rule, const int64_t *first, const int *kind, int64_t i, const neighbours *nb,
                   hm_bonds *b, int64_t *cap) {
  for (int64_t r = first[i]; r < first[i + 1]; r++) {
    b->start[r] = b->nbonds;
    for (int64_t q = 0; q < nb->n; q++) {
      const double *v = nb->v[q], len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      const int64_t j = nb->j[q];
      /* between one-orbital atoms a bond keeps its entry even where t = 0 */
      const int single = first[i + 1] - first[i] == 1 && first[j + 1] - first[j] == 1;
      for (int64_t c = first[j]; c < first[j + 1]; c++) {
        double t = 0;
        HM_CALL(hopping(rule, kind[r], kind[c], v, len, &t));
        if (t != 0 || single) HM_CALL(push(b, cap, c, nb->image[q], t)); /* pairs that vanish by symmetry: out */
      }
      if (r == first[i]) {
        b->shortest = fmin(b->shortest, len);
        b->longest = fmax(b->longest, len);
      }
    }
  }
  b->atom_bonds += nb->n;
  return HM_SUCCESS;
}

int hm_structure_bonds(const hm_structure *s, const hm_hopping_rule *rule, hm_bonds *b) {
  memset(b, 0, sizeof *b);
  HM_CHECK(rule->cutoff > 0 && isfinite(rule->cutoff), HM_ERR_ARGUMENT, "cutoff %g: want a positive length",
           rule->cutoff);
  HM_CHECK(rule->kind != HM_HOPPING_SLATER_KOSTER || rule->delta0 > 0, HM_ERR_ARGUMENT,
           "delta0 %g: want a positive decay length", rule->delta0);
  HM_CHECK(rule->kind != HM_HOPPING_TABLE || (rule->npoints >= 2 && rule->table_d && rule->table_t), HM_ERR_ARGUMENT,
           "a hopping table needs at least two points");
  for (int sp = 0; rule->kind == HM_HOPPING_TABLE && sp < rule->nspecies; sp++)
    HM_CHECK(rule->species[sp].count == 1, HM_ERR_INPUT,
             "orbitals: %s has %d orbitals, but hopping = table gives one radial t(|d|): one orbital per species "
             "(Slater-Koster for several)", rule->species[sp].species, rule->species[sp].count);
  int *kind = NULL;
  int64_t *first = malloc(sizeof(int64_t) * (size_t)(s->natoms + 1));
  HM_CHECK(first, HM_ERR_MEMORY, "the rows of %lld atoms", (long long)s->natoms);
  int st = hm_structure_rows(s, rule, &b->rows, &b->atom, &kind, &b->onsite);
  for (int64_t r = 0, a = 0; !st && a <= s->natoms; a++) { /* atom a's rows start at first[a] */
    while (r < b->rows && b->atom[r] < a) r++;
    first[a] = r;
  }
  cell_lists c;
  memset(&c, 0, sizeof c);
  if (!st) st = make_lists(s, rule->cutoff, &c);
  neighbours nb;
  memset(&nb, 0, sizeof nb);
  int64_t cap = 0;
  b->shortest = INFINITY;
  b->start = st ? NULL : malloc(sizeof(int64_t) * (size_t)(b->rows + 1));
  if (!st && !b->start) st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "bonds");
  for (int64_t i = 0; !st && i < s->natoms; i++) {
    st = neighbours_of(s, rule->cutoff, &c, i, &nb);
    if (!st) st = rows_of(rule, first, kind, i, &nb, b, &cap);
  }
  if (!st) b->start[b->rows] = b->nbonds;
  free_lists(&c);
  free(nb.j), free(nb.image), free(nb.v);
  free(first);
  free(kind);
  if (st) hm_bonds_free(b);
  return st;
}
