/* Wannier90's seedname_wsvec.dat and the hoppings spread over the images it lists. Wannier90 (since
 * 3.0, use_ws_distance = true by default) interpolates
 *   H_mn(k) = sum_R sum_{T in T(R,m,n)} H_mn(R) / (deg(R) |T(R,m,n)|) exp(2 pi i k . (R + T)),
 * T being supercell vectors that bring orbital n of cell R nearest to orbital m of cell 0. So the
 * model it means has H_mn(R) / |T(R,m,n)| at every R + T: made here once, on the hopping blocks, so
 * that every consumer (assembled and matrix-free operators, velocities, positions) sees the same.
 * The file, as ws_write_vec writes it: a header line naming use_ws_distance, then for every R and
 * (m, n) (1-based) a line 'R1 R2 R3 m n', a line with the count of images, and that many 'T1 T2 T3'. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "error_macros.h"
#include "lattice_internal.h"

enum { HM_WSVEC_MAX_IMAGES = 64 }; /* Wannier90 allows 8 (a corner shared by 8 cells) */

/* R vectors -> block numbers: open addressing on a table of a power of two at least twice the keys. */
typedef struct {
  size_t mask;
  int32_t *key; /* [slots][3] */
  int *value;   /* -1: empty */
} r_table;

static int r_table_init(r_table *t, size_t keys) {
  size_t slots = 16;
  while (slots < 2 * keys) slots *= 2;
  t->mask = slots - 1;
  t->key = malloc(sizeof *t->key * 3 * slots);
  t->value = malloc(sizeof *t->value * slots);
  HM_CHECK(t->key && t->value, HM_ERR_MEMORY, "cannot hold a table of %zu R vectors", keys);
  for (size_t s = 0; s < slots; s++) t->value[s] = -1;
  return HM_SUCCESS;
}

static void r_table_free(r_table *t) {
  free(t->key);
  free(t->value);
}

static size_t r_slot(const r_table *t, const int32_t R[3]) {
  uint64_t h = 1469598103934665603u;
  for (int a = 0; a < 3; a++) h = (h ^ (uint32_t)R[a]) * 1099511628211u;
  size_t s = (size_t)(h ^ (h >> 29)) & t->mask;
  while (t->value[s] >= 0 && memcmp(t->key + 3 * s, R, 3 * sizeof *R)) s = (s + 1) & t->mask;
  return s;
}

static int r_find(const r_table *t, const int32_t R[3]) { return t->value[r_slot(t, R)]; }

/* The number of R, adding it with number *count when new. */
static int r_add(r_table *t, const int32_t R[3], int *count) {
  size_t s = r_slot(t, R);
  if (t->value[s] < 0) {
    memcpy(t->key + 3 * s, R, 3 * sizeof *R);
    t->value[s] = (*count)++;
  }
  return t->value[s];
}

/* What the file gives, per entry e = (b * orbitals + i) * orbitals + j of the lattice's blocks. */
typedef struct {
  const char *file, *model; /* the wsvec file, the lattice file it must belong to */
  int *first, *count, *line; /* first image in t; images; line of 'R1 R2 R3 m n' (0: no entry) */
  int32_t *t;                /* [images][3] */
  size_t images, cap;
} wsvec;

static void wsvec_free(wsvec *w) {
  free(w->first);
  free(w->count);
  free(w->line);
  free(w->t);
}

static int read_ints(hm_text *t, int first, int k, const char *const *names, long lo, long hi, int32_t *x) {
  for (int a = 0; a < k; a++) {
    long v;
    HM_CALL(hm_text_int(t, first + a, names[a], lo, hi, &v));
    x[a] = (int32_t)v;
  }
  return HM_SUCCESS;
}

/* One entry: 'R1 R2 R3 m n', its count, its images. */
static int read_entry(hm_text *t, const hm_lattice *L, const r_table *blocks, wsvec *w) {
  static const char *const rn[5] = {"R1", "R2", "R3", "m", "n"}, *const tn[3] = {"T1", "T2", "T3"};
  const int n = L->orbitals, head = t->line;
  HM_CHECK(t->nfields == 5, HM_ERR_INPUT,
           "%s:%d: expected 'R1 R2 R3 m n' heading an entry, found %d fields (a count that does not match the "
           "image lines above it, or not a wsvec file)", w->file, head, t->nfields);
  int32_t R[5];
  HM_CALL(read_ints(t, 0, 3, rn, -(1L << 30), 1L << 30, R));
  HM_CALL(read_ints(t, 3, 2, rn + 3, -(1L << 30), 1L << 30, R + 3));
  for (int k = 3; k < 5; k++)
    HM_CHECK(R[k] >= 1 && R[k] <= n, HM_ERR_INPUT,
             "%s:%d: %s = %d is not in 1..%d: the lattice file %s has num_wann = %d (a wsvec file of another model?)",
             w->file, head, rn[k], R[k], n, w->model, n);
  const int b = r_find(blocks, R);
  HM_CHECK(b >= 0, HM_ERR_INPUT,
           "%s:%d: R = (%d, %d, %d) is not one of the %d R vectors of the lattice file %s (a wsvec file of another "
           "model?)", w->file, head, R[0], R[1], R[2], L->nblocks, w->model);
  const size_t e = ((size_t)b * n + (size_t)(R[3] - 1)) * n + (size_t)(R[4] - 1);
  HM_CHECK(!w->line[e], HM_ERR_INPUT, "%s:%d: the entry R = (%d, %d, %d), m = %d, n = %d is given twice (first on "
           "line %d); each (R, m, n) is allowed once", w->file, head, R[0], R[1], R[2], R[3], R[4], w->line[e]);
  HM_CHECK(hm_text_next(t, 0), HM_ERR_INPUT, "%s:%d: the file ends after the entry on line %d: expected the count of "
           "its images", w->file, t->line, head);
  HM_CHECK(t->nfields == 1, HM_ERR_INPUT, "%s:%d: expected the count of images of the entry on line %d alone on the "
           "line, found %d fields", w->file, t->line, head, t->nfields);
  long count;
  HM_CALL(hm_text_int(t, 0, "image count", 1, HM_WSVEC_MAX_IMAGES, &count));
  const int count_line = t->line;
  if (w->images + (size_t)count > w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 4096;
    int32_t *bigger = realloc(w->t, sizeof *bigger * 3 * cap);
    HM_CHECK(bigger, HM_ERR_MEMORY, "%s: cannot hold %zu images", w->file, cap);
    w->t = bigger;
    w->cap = cap;
  }
  for (long k = 0; k < count; k++) {
    HM_CHECK(hm_text_next(t, 0), HM_ERR_INPUT, "%s:%d: the file ends after %ld of the %ld images of the entry on line "
             "%d (count on line %d)", w->file, t->line, k, count, head, count_line);
    HM_CHECK(t->nfields == 3, HM_ERR_INPUT, "%s:%d: expected 'T1 T2 T3', image %ld of the %ld of the entry on line %d, "
             "found %d fields: the count on line %d does not match the lines that follow", w->file, t->line, k + 1,
             count, head, t->nfields, count_line);
    HM_CALL(read_ints(t, 0, 3, tn, -(1L << 29), 1L << 29, w->t + 3 * (w->images + (size_t)k)));
  }
  w->first[e] = (int)w->images;
  w->count[e] = (int)count;
  w->line[e] = head;
  w->images += (size_t)count;
  return HM_SUCCESS;
}

/* The images of the partner (-R, n, m) are the negatives of those of (R, m, n) (Wannier90 computes
 * both from opposite vectors): else the spread model would not be Hermitian. */
static int same_negated(const wsvec *w, size_t e, size_t p) {
  if (w->count[e] != w->count[p]) return 0;
  for (int a = 0; a < w->count[e]; a++) {
    const int32_t *x = w->t + 3 * (w->first[e] + a);
    int found = 0;
    for (int c = 0; c < w->count[p] && !found; c++) {
      const int32_t *y = w->t + 3 * (w->first[p] + c);
      found = x[0] == -y[0] && x[1] == -y[1] && x[2] == -y[2];
    }
    if (!found) return 0;
  }
  return 1;
}

/* Every (R, m, n) of the lattice has images, and partners agree. */
static int check_complete(const hm_lattice *L, const r_table *blocks, const hm_text *t, const wsvec *w) {
  const int n = L->orbitals;
  for (int b = 0; b < L->nblocks; b++) {
    const int32_t *R = L->shift + 3 * b, minus[3] = {-R[0], -R[1], -R[2]};
    const int bm = r_find(blocks, minus);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        const size_t e = ((size_t)b * n + i) * n + j, p = ((size_t)bm * n + j) * n + i;
        HM_CHECK(w->line[e], HM_ERR_INPUT,
                 "%s:%d: the file ends without an entry for R = (%d, %d, %d), m = %d, n = %d of the lattice file %s: "
                 "every R, m, n of it needs one (a wsvec file of another model?)", w->file, t->line, R[0], R[1], R[2],
                 i + 1, j + 1, w->model);
        HM_CHECK(!w->line[p] || same_negated(w, e, p), HM_ERR_INPUT,
                 "%s:%d: the images of R = (%d, %d, %d), m = %d, n = %d are not the negatives of those of its partner "
                 "R = (%d, %d, %d), m = %d, n = %d on line %d: the spread model would not be Hermitian", w->file,
                 w->line[e], R[0], R[1], R[2], i + 1, j + 1, minus[0], minus[1], minus[2], j + 1, i + 1, w->line[p]);
      }
  }
  return HM_SUCCESS;
}

static int parse(hm_text *t, const hm_lattice *L, const r_table *blocks, wsvec *w) {
  const size_t entries = (size_t)L->nblocks * (size_t)L->orbitals * (size_t)L->orbitals;
  w->first = calloc(entries, sizeof *w->first);
  w->count = calloc(entries, sizeof *w->count);
  w->line = calloc(entries, sizeof *w->line);
  HM_CHECK(w->first && w->count && w->line, HM_ERR_MEMORY, "%s: cannot hold %zu entries", w->file, entries);
  int named = 0;
  if (hm_text_next(t, 0) && t->line == 1)
    for (int k = 0; k < t->nfields; k++) named |= strstr(t->field[k], "use_ws_distance") != NULL;
  HM_CHECK(named, HM_ERR_INPUT, "%s:1: expected Wannier90's header line '## written on ... with use_ws_distance=...' "
           "(%s)", w->file, t->line ? "the first line does not name use_ws_distance" : "the file is empty");
  while (hm_text_next(t, 0)) HM_CALL(read_entry(t, L, blocks, w));
  return check_complete(L, blocks, t, w);
}

/* The new blocks: H_mn(R) / |T| at every R + T, images of one R, m, n landing together added. */
static int spread(const wsvec *w, hm_lattice *L) {
  const int n = L->orbitals;
  r_table out;
  HM_CALL(r_table_init(&out, w->images + 1));
  int nout = 0, st = HM_SUCCESS;
  const int32_t zero[3] = {0, 0, 0};
  r_add(&out, zero, &nout); /* R = 0 stays block 0 (the Zeeman term goes there) */
  int32_t *shift = malloc(sizeof *shift * 3 * (w->images + 1));
  double complex *block = NULL;
  if (!shift) st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "cannot hold %zu shifts", w->images);
  memcpy(shift, zero, sizeof zero);
  for (int pass = 0; pass < 2 && !st; pass++) { /* the images' R first, then the blocks */
    if (pass == 1) {
      block = calloc((size_t)nout * n * n, sizeof *block);
      if (!block) st = hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "cannot hold %d blocks", nout);
    }
    for (int b = 0; b < L->nblocks && !st; b++)
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          const size_t e = ((size_t)b * n + i) * n + j;
          const double complex v = L->block[e];
          if (v == 0) continue; /* its partner is 0 too: the R' stay paired */
          const int32_t *R = L->shift + 3 * b;
          for (int a = 0; a < w->count[e]; a++) {
            const int32_t *T = w->t + 3 * (w->first[e] + a);
            const int32_t image[3] = {R[0] + T[0], R[1] + T[1], R[2] + T[2]};
            const int k = r_add(&out, image, &nout);
            if (pass == 0) memcpy(shift + 3 * k, image, sizeof image);
            else block[((size_t)k * n + i) * n + j] += v / (double)w->count[e];
          }
        }
  }
  r_table_free(&out);
  if (st) {
    free(shift);
    free(block);
    return st;
  }
  free(L->shift);
  free(L->block);
  L->shift = shift;
  L->block = block;
  L->nblocks = nout;
  return HM_SUCCESS;
}

int hm_lattice_spread_wsvec(const char *path, const char *model, hm_lattice *L) {
  HM_CHECK(path && L && L->block, HM_ERR_ARGUMENT, "path or L is NULL, or L holds no blocks");
  struct stat info;
  HM_CHECK(stat(path, &info) == 0, HM_ERR_INPUT, "%s: cannot open the wsvec file: %s", path, strerror(errno));
  HM_CHECK(!S_ISDIR(info.st_mode), HM_ERR_INPUT, "%s: is a directory; expected Wannier90's seedname_wsvec.dat", path);
  hm_text t;
  HM_CALL(hm_text_open(path, &t));
  wsvec w = {.file = path, .model = model ? model : "(the model)"};
  r_table blocks = {0};
  int st = r_table_init(&blocks, (size_t)L->nblocks);
  for (int b = 0; b < L->nblocks && !st; b++) {
    int count = b;
    r_add(&blocks, L->shift + 3 * b, &count);
  }
  if (!st) st = parse(&t, L, &blocks, &w);
  if (!st) st = spread(&w, L);
  r_table_free(&blocks);
  wsvec_free(&w);
  hm_text_close(&t);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}

int hm_lattice_wsvec_beside(const char *lattice_file, char *out, size_t len) {
  const size_t n = strlen(lattice_file);
  if (n < 7 || (strcmp(lattice_file + n - 7, "_hr.dat") && strcmp(lattice_file + n - 7, "_tb.dat"))) return 0;
  if (n - 7 + strlen("_wsvec.dat") + 1 > len) return 0;
  memcpy(out, lattice_file, n - 7);
  strcpy(out + n - 7, "_wsvec.dat");
  return 1;
}
