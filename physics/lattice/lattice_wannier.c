/* Wannier90's seedname_hr.dat and seedname_tb.dat, as Wannier90 writes them:
 *   hr: header; num_wann; nrpts; nrpts degeneracy weights (15 a line); then for every R,
 *       num_wann^2 lines 'R1 R2 R3 m n Re Im' (1-based m, n), H_mn(R) = <m,0|H|n,R> = value / weight.
 *   tb: header; a1; a2; a3 (Angstrom); num_wann; nrpts; the weights; for every R a line 'R1 R2 R3'
 *       and num_wann^2 lines 'm n Re Im'; then for every R again 'R1 R2 R3' and num_wann^2 lines
 *       'm n Re(x) Im(x) Re(y) Im(y) Re(z) Im(z)' (positions <m,0|r|n,R>; the diagonal at R = 0 gives
 *       the orbital centres). Blank lines between blocks are skipped. */
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "lattice_internal.h"

enum { HM_W90_MAX_WANN = 1 << 14, HM_W90_MAX_RPTS = 1 << 22 };

typedef struct {
  long num_wann, nrpts;
  int num_wann_line, nrpts_line;
  long *weight;
} w90_header;

static int one_field(hm_text *t, const char *what) {
  HM_CHECK(hm_text_next(t, 0), HM_ERR_INPUT, "%s:%d: the file ends before %s", t->file, t->line, what);
  HM_CHECK(t->nfields == 1, HM_ERR_INPUT, "%s:%d: expected %s alone on the line, found %d fields", t->file, t->line,
           what, t->nfields);
  return HM_SUCCESS;
}

/* num_wann, nrpts and the weights: only integers, exactly nrpts of them, before the first hopping. */
static int read_counts(hm_text *t, w90_header *h) {
  HM_CALL(one_field(t, "num_wann"));
  HM_CALL(hm_text_int(t, 0, "num_wann", 1, HM_W90_MAX_WANN, &h->num_wann));
  h->num_wann_line = t->line;
  HM_CALL(one_field(t, "nrpts"));
  HM_CALL(hm_text_int(t, 0, "nrpts", 1, HM_W90_MAX_RPTS, &h->nrpts));
  h->nrpts_line = t->line;
  h->weight = malloc(sizeof *h->weight * (size_t)h->nrpts);
  HM_CHECK(h->weight, HM_ERR_MEMORY, "%s: cannot hold %ld weights", t->file, h->nrpts);
  long got = 0;
  while (got < h->nrpts) {
    HM_CHECK(hm_text_next(t, 0), HM_ERR_INPUT, "%s:%d: the file ends after %ld of the %ld degeneracy weights (nrpts "
             "on line %d)", t->file, t->line, got, h->nrpts, h->nrpts_line);
    int integers = 1;
    for (int k = 0; k < t->nfields; k++) integers &= hm_text_is_integer(t->field[k]);
    HM_CHECK(integers, HM_ERR_INPUT,
             "%s:%d: found %ld degeneracy weights before this line, which is not a line of integer weights: the count "
             "does not match nrpts = %ld (line %d)",
             t->file, t->line, got, h->nrpts, h->nrpts_line);
    for (int k = 0; k < t->nfields; k++) {
      HM_CHECK(got < h->nrpts, HM_ERR_INPUT,
               "%s:%d: more degeneracy weights than nrpts = %ld (line %d): the count does not match nrpts", t->file,
               t->line, h->nrpts, h->nrpts_line);
      HM_CALL(hm_text_int(t, k, "degeneracy weight", 1, 1L << 30, &h->weight[got]));
      got++;
    }
  }
  return HM_SUCCESS;
}

static int read_R(hm_text *t, int first, int32_t R[3]) {
  static const char *names[3] = {"R1", "R2", "R3"};
  for (int a = 0; a < 3; a++) {
    long r;
    HM_CALL(hm_text_int(t, first + a, names[a], -(1L << 30), 1L << 30, &r));
    R[a] = (int32_t)r;
  }
  return HM_SUCCESS;
}

/* Lines of block r (num_wann^2 of them, m fastest): 'fields' fields from 'first' on, m n at first. */
static int hop_fields(hm_text *t, const w90_header *h, long k, int fields, const char *form, int32_t R[3], int32_t R0[3],
                      long *m, long *n, double complex *v) {
  HM_CHECK(t->nfields == fields, HM_ERR_INPUT, "%s:%d: expected %d fields '%s', found %d", t->file, t->line, fields,
           form, t->nfields);
  int first = fields == 7 ? 3 : 0;
  if (fields == 7) {
    HM_CALL(read_R(t, 0, R));
    if (k % (h->num_wann * h->num_wann) == 0) memcpy(R0, R, 3 * sizeof *R);
    HM_CHECK(!memcmp(R, R0, 3 * sizeof *R), HM_ERR_INPUT,
             "%s:%d: R = (%d, %d, %d) where the block of R = (%d, %d, %d) continues: each R has num_wann^2 = %ld "
             "lines (a hopping line is missing or extra)",
             t->file, t->line, R[0], R[1], R[2], R0[0], R0[1], R0[2], h->num_wann * h->num_wann);
  }
  HM_CALL(hm_text_int(t, first, "orbital index m", 1, h->num_wann, m));
  HM_CALL(hm_text_int(t, first + 1, "orbital index n", 1, h->num_wann, n));
  double re, im;
  HM_CALL(hm_text_double(t, first + 2, "real part", &re));
  HM_CALL(hm_text_double(t, first + 3, "imaginary part", &im));
  *v = re + I * im;
  return HM_SUCCESS;
}

static int parse_hr(hm_text *t, w90_header *h, hm_hops *hops) {
  HM_CHECK(hm_text_skip_line(t), HM_ERR_INPUT, "%s:1: the file is empty; expected Wannier90's header line", t->file);
  HM_CALL(read_counts(t, h));
  const long lines = h->nrpts * h->num_wann * h->num_wann;
  int32_t R[3], R0[3] = {0, 0, 0};
  for (long k = 0; k < lines; k++) {
    HM_CHECK(hm_text_next(t, 0), HM_ERR_INPUT,
             "%s:%d: the file ends after %ld of the %ld hopping lines (nrpts x num_wann^2, lines %d and %d)", t->file,
             t->line, k, lines, h->nrpts_line, h->num_wann_line);
    long m, n;
    double complex v;
    HM_CALL(hop_fields(t, h, k, 7, "R1 R2 R3 m n Re Im", R, R0, &m, &n, &v));
    HM_CALL(hm_hops_add(hops, R, (int)m - 1, (int)n - 1, v, h->weight[k / (h->num_wann * h->num_wann)], t->line));
  }
  HM_CHECK(!hm_text_next(t, 0), HM_ERR_INPUT, "%s:%d: more lines than the %ld hopping lines (nrpts x num_wann^2)",
           t->file, t->line, lines);
  return HM_SUCCESS;
}

/* The tb.dat: lattice vectors, counts, then H(R) blocks and position blocks, each headed by R. */
static int parse_tb(hm_text *t, w90_header *h, hm_hops *hops, hm_lattice *L, double *centre) {
  HM_CHECK(hm_text_skip_line(t), HM_ERR_INPUT, "%s:1: the file is empty; expected Wannier90's header line", t->file);
  for (int a = 0; a < 3; a++) {
    HM_CHECK(hm_text_next(t, 0) && t->nfields == 3, HM_ERR_INPUT,
             "%s:%d: expected the lattice vector a%d as 3 numbers", t->file, t->line, a + 1);
    for (int c = 0; c < 3; c++) HM_CALL(hm_text_double(t, c, "lattice vector component", &L->cell[a][c]));
  }
  HM_CALL(read_counts(t, h));
  const long per = h->num_wann * h->num_wann;
  for (int part = 0; part < 2; part++) {
    const int fields = part ? 8 : 4;
    for (long r = 0; r < h->nrpts; r++) {
      int32_t R[3], R0[3];
      HM_CHECK(hm_text_next(t, 0), HM_ERR_INPUT, "%s:%d: the file ends after %ld of the %ld %s blocks (nrpts, line %d)",
               t->file, t->line, r, h->nrpts, part ? "position" : "Hamiltonian", h->nrpts_line);
      HM_CHECK(t->nfields == 3, HM_ERR_INPUT,
               "%s:%d: expected 'R1 R2 R3' heading block %ld of the %s, found %d fields (a line is missing or extra "
               "in the block above: each has num_wann^2 = %ld lines)",
               t->file, t->line, r + 1, part ? "positions" : "Hamiltonian", t->nfields, per);
      HM_CALL(read_R(t, 0, R));
      memcpy(R0, R, sizeof R);
      for (long k = 0; k < per; k++) {
        HM_CHECK(hm_text_next(t, 0), HM_ERR_INPUT, "%s:%d: the file ends inside the block of R = (%d, %d, %d)",
                 t->file, t->line, R[0], R[1], R[2]);
        long m, n;
        double complex v;
        HM_CALL(hop_fields(t, h, k, fields, part ? "m n Re(x) Im(x) Re(y) Im(y) Re(z) Im(z)" : "m n Re Im", R, R0, &m,
                           &n, &v));
        if (!part) {
          HM_CALL(hm_hops_add(hops, R, (int)m - 1, (int)n - 1, v, h->weight[r], t->line));
        } else if (m == n && !R[0] && !R[1] && !R[2]) {
          for (int c = 0; c < 3; c++) {
            double x;
            HM_CALL(hm_text_double(t, 2 + 2 * c, "position", &x));
            centre[3 * (m - 1) + c] = x / (double)h->weight[r];
          }
        }
      }
    }
  }
  HM_CHECK(!hm_text_next(t, 0), HM_ERR_INPUT, "%s:%d: more lines than the %ld Hamiltonian and %ld position blocks",
           t->file, t->line, h->nrpts, h->nrpts);
  return HM_SUCCESS;
}

/* Wannier90 prints 6 to 8 significant digits: H(-R) = H(R)^dagger holds to about 1e-6 of the largest
 * entry, and the two are averaged. */
#define HM_W90_HERMITIAN_TOL 1e-5

static int read_wannier(const char *path, int tb, hm_lattice *L) {
  hm_text t;
  HM_CALL(hm_text_open(path, &t));
  w90_header h = {0};
  hm_hops hops = {.one_based = 1};
  double *centre = NULL;
  int st;
  if (tb) {
    centre = calloc(3 * (size_t)HM_W90_MAX_WANN, sizeof *centre);
    st = centre ? parse_tb(&t, &h, &hops, L, centre) : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "no memory");
  } else {
    st = parse_hr(&t, &h, &hops);
  }
  if (!st) st = hm_lattice_alloc_orbitals(L, (int)h.num_wann);
  if (!st && centre) memcpy(L->position, centre, sizeof *centre * 3 * (size_t)h.num_wann);
  if (!st) st = hm_lattice_from_hops(path, &hops, HM_W90_HERMITIAN_TOL, L);
  if (st) st = hm_error_trace(st, __FILE__, __LINE__, __func__);
  free(centre);
  free(h.weight);
  hm_hops_free(&hops);
  hm_text_close(&t);
  return st;
}

int hm_lattice_read_hr(const char *path, hm_lattice *L) { return read_wannier(path, 0, L); }
int hm_lattice_read_tb(const char *path, hm_lattice *L) { return read_wannier(path, 1, L); }
