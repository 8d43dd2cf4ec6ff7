/* Which parser reads a lattice file, the lattice vectors and centres the deck adds, and the checks
 * every model passes (independent lattice vectors). */
#include <math.h>
#include <string.h>
#include "error_macros.h"
#include "lattice_internal.h"

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && !strcmp(s + n - m, tail);
}

hm_lattice_format hm_lattice_format_of(const char *path, hm_lattice_format format) {
  if (format != HM_LATTICE_AUTO) return format;
  if (ends_with(path, "_hr.dat")) return HM_LATTICE_WANNIER90_HR;
  if (ends_with(path, "_tb.dat")) return HM_LATTICE_WANNIER90_TB;
  return HM_LATTICE_HAMLET;
}

/* "X x y z" lines of a Wannier90 _centres.xyz (count, comment, then the centres and the atoms). */
int hm_lattice_read_centres(const char *path, hm_lattice *L) {
  hm_text t;
  HM_CALL(hm_text_open(path, &t));
  int st = HM_SUCCESS, found = 0;
  hm_text_skip_line(&t);
  hm_text_skip_line(&t);
  while (!st && found < L->orbitals && hm_text_next(&t, 0)) {
    if (strcmp(t.field[0], "X")) continue;
    if (t.nfields != 4) {
      st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__, "%s:%d: expected 'X x y z', found %d fields",
                          path, t.line, t.nfields);
      break;
    }
    for (int c = 0; c < 3 && !st; c++) st = hm_text_double(&t, 1 + c, "centre coordinate", &L->position[3 * found + c]);
    found++;
  }
  if (!st && found < L->orbitals)
    st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                        "%s:%d: %d Wannier centres ('X x y z' lines) for %d orbitals: one per orbital is needed", path,
                        t.line, found, L->orbitals);
  hm_text_close(&t);
  return st ? hm_error_trace(st, __FILE__, __LINE__, __func__) : HM_SUCCESS;
}

static double det3(const double a[3][3]) {
  return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
         a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}

int hm_lattice_read(const char *path, hm_lattice_format format, const double (*cell)[3], const char *centres,
                    hm_lattice *L) {
  HM_CHECK(path && L, HM_ERR_ARGUMENT, "path or L is NULL");
  memset(L, 0, sizeof *L);
  for (int a = 0; a < 3; a++) L->cell[a][a] = 1.0;
  format = hm_lattice_format_of(path, format);
  HM_CHECK(!cell || format == HM_LATTICE_WANNIER90_HR, HM_ERR_INPUT,
           "%s: lattice vectors a1 a2 a3 in the deck apply to a Wannier90 _hr.dat only (this file gives its own)", path);
  HM_CHECK(!centres || !centres[0] || format != HM_LATTICE_HAMLET, HM_ERR_INPUT,
           "%s: centres apply to Wannier90 files only (hamlet's format gives each orbital's position)", path);
  if (cell) memcpy(L->cell, cell, sizeof L->cell);
  int st;
  switch (format) {
    case HM_LATTICE_WANNIER90_HR: st = hm_lattice_read_hr(path, L); break;
    case HM_LATTICE_WANNIER90_TB: st = hm_lattice_read_tb(path, L); break;
    default: st = hm_lattice_read_hamlet(path, L); break;
  }
  if (!st && centres && centres[0]) st = hm_lattice_read_centres(centres, L);
  if (!st) {
    double scale = 0;
    for (int a = 0; a < 3; a++) scale = fmax(scale, sqrt(L->cell[a][0] * L->cell[a][0] + L->cell[a][1] * L->cell[a][1] + L->cell[a][2] * L->cell[a][2]));
    if (!(fabs(det3(L->cell)) > 1e-10 * scale * scale * scale))
      st = hm_error_raise(HM_ERR_INPUT, __FILE__, __LINE__, __func__,
                          "%s: the lattice vectors a1, a2, a3 are not linearly independent (volume %g): a 2D or 1D "
                          "model still needs three vectors (e.g. a3 = 0 0 1)", path, det3(L->cell));
  }
  if (st) {
    hm_lattice_free(L);
    return hm_error_trace(st, __FILE__, __LINE__, __func__);
  }
  return HM_SUCCESS;
}
