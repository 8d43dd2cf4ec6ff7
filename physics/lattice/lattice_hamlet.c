/* hamlet's lattice format (README "Your own model"): one statement per line, '#' comments.
 *   a1 x y z | a2 x y z | a3 x y z       lattice vectors (default the unit cube)
 *   orbital x y z [up|down]              one per orbital, in order (index 0, 1, ...), cartesian
 *   onsite i e                           on-site energy of orbital i
 *   hop R1 R2 R3 i j re [im]             <i, 0|H|j, R>; the partner H(-R)[j][i] is its conjugate */
#include <stdlib.h>
#include <string.h>
#include "error_macros.h"
#include "lattice_internal.h"

enum { HM_LATTICE_MAX_ORBITALS = 1 << 16 };

static int orbital_line(hm_text *t, hm_lattice *L, int *count, double (*pos)[3], int *spin) {
  HM_CHECK(t->nfields == 4 || t->nfields == 5, HM_ERR_INPUT,
           "%s:%d: expected 'orbital x y z [up|down]', found %d fields", t->file, t->line, t->nfields);
  HM_CHECK(*count < HM_LATTICE_MAX_ORBITALS, HM_ERR_INPUT, "%s:%d: more than %d orbitals", t->file, t->line,
           HM_LATTICE_MAX_ORBITALS);
  static const char *axis[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; a++) HM_CALL(hm_text_double(t, 1 + a, axis[a], &pos[*count][a]));
  spin[*count] = HM_LATTICE_SPIN_NONE;
  if (t->nfields == 5) {
    const char *w = t->field[4];
    HM_CHECK(!strcmp(w, "up") || !strcmp(w, "down"), HM_ERR_INPUT,
             "%s:%d: spin label '%s' is not allowed: up or down (or none)", t->file, t->line, w);
    spin[*count] = !strcmp(w, "up") ? HM_LATTICE_SPIN_UP : HM_LATTICE_SPIN_DOWN;
  }
  (*count)++;
  (void)L;
  return HM_SUCCESS;
}

static int hop_line(hm_text *t, int orbitals, hm_hops *h) {
  const int onsite = !strcmp(t->field[0], "onsite");
  HM_CHECK(orbitals > 0, HM_ERR_INPUT, "%s:%d: '%s' before any 'orbital' line: orbitals come first", t->file,
           t->line, t->field[0]);
  int32_t R[3] = {0, 0, 0};
  long i, j;
  double re, im = 0;
  if (onsite) {
    HM_CHECK(t->nfields == 3, HM_ERR_INPUT, "%s:%d: expected 'onsite i energy', found %d fields", t->file, t->line,
             t->nfields);
    HM_CALL(hm_text_int(t, 1, "orbital index i", 0, orbitals - 1, &i));
    HM_CALL(hm_text_double(t, 2, "energy", &re));
    j = i;
  } else {
    HM_CHECK(t->nfields == 7 || t->nfields == 8, HM_ERR_INPUT,
             "%s:%d: expected 'hop R1 R2 R3 i j re [im]', found %d fields", t->file, t->line, t->nfields);
    static const char *names[3] = {"R1", "R2", "R3"};
    for (int a = 0; a < 3; a++) {
      long r;
      HM_CALL(hm_text_int(t, 1 + a, names[a], -(1L << 30), 1L << 30, &r));
      R[a] = (int32_t)r;
    }
    HM_CALL(hm_text_int(t, 4, "orbital index i", 0, orbitals - 1, &i));
    HM_CALL(hm_text_int(t, 5, "orbital index j", 0, orbitals - 1, &j));
    HM_CALL(hm_text_double(t, 6, "real part", &re));
    if (t->nfields == 8) HM_CALL(hm_text_double(t, 7, "imaginary part", &im));
  }
  HM_CALL(hm_hops_add(h, R, (int)i, (int)j, re + I * im, 1, t->line));
  return HM_SUCCESS;
}

static int parse(hm_text *t, hm_lattice *L, hm_hops *h, double (*pos)[3], int *spin) {
  int count = 0, hops_seen = 0;
  while (hm_text_next(t, 1)) {
    const char *w = t->field[0];
    HM_CHECK(!t->too_many, HM_ERR_INPUT, "%s:%d: too many fields", t->file, t->line);
    if (w[0] == 'a' && (w[1] == '1' || w[1] == '2' || w[1] == '3') && !w[2]) {
      HM_CHECK(t->nfields == 4, HM_ERR_INPUT, "%s:%d: expected '%s x y z', found %d fields", t->file, t->line, w,
               t->nfields);
      for (int a = 0; a < 3; a++) HM_CALL(hm_text_double(t, 1 + a, "lattice vector component", &L->cell[w[1] - '1'][a]));
    } else if (!strcmp(w, "orbital")) {
      HM_CHECK(!hops_seen, HM_ERR_INPUT, "%s:%d: 'orbital' after a hopping: orbitals come first", t->file, t->line);
      HM_CALL(orbital_line(t, L, &count, pos, spin));
    } else if (!strcmp(w, "hop") || !strcmp(w, "onsite")) {
      hops_seen = 1;
      HM_CALL(hop_line(t, count, h));
    } else {
      HM_RAISE(HM_ERR_INPUT, "%s:%d: unknown statement '%s': allowed are a1, a2, a3, orbital, onsite, hop", t->file,
               t->line, w);
    }
  }
  HM_CHECK(count > 0, HM_ERR_INPUT, "%s:%d: no 'orbital' line: a model needs at least one orbital", t->file, t->line);
  HM_CALL(hm_lattice_alloc_orbitals(L, count));
  memcpy(L->position, pos, sizeof *pos * (size_t)count);
  memcpy(L->spin, spin, sizeof *spin * (size_t)count);
  return HM_SUCCESS;
}

int hm_lattice_read_hamlet(const char *path, hm_lattice *L) {
  hm_text t;
  HM_CALL(hm_text_open(path, &t));
  hm_hops h = {0};
  double (*pos)[3] = malloc(sizeof *pos * HM_LATTICE_MAX_ORBITALS);
  int *spin = malloc(sizeof *spin * HM_LATTICE_MAX_ORBITALS);
  int st = pos && spin ? parse(&t, L, &h, pos, spin) : hm_error_raise(HM_ERR_MEMORY, __FILE__, __LINE__, __func__, "no memory");
  if (!st) st = hm_lattice_from_hops(path, &h, 1e-12, L);
  if (st) st = hm_error_trace(st, __FILE__, __LINE__, __func__);
  free(pos);
  free(spin);
  hm_hops_free(&h);
  hm_text_close(&t);
  return st;
}
