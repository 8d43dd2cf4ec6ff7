/* Shared by the lattice file parsers: a line reader that splits fields and names file and line in
 * its errors, and the hopping list every format fills before the blocks are made. */
#ifndef HAMLET_LATTICE_INTERNAL_H
#define HAMLET_LATTICE_INTERNAL_H
#include "lattice.h"

enum { HM_TEXT_MAX_FIELDS = 40 };

typedef struct {
  const char *file;
  char *text, *next;   /* whole file; start of the next line */
  int line;            /* number of the current line (1-based) */
  int nfields;
  char *field[HM_TEXT_MAX_FIELDS];
  int too_many;        /* the line held more than HM_TEXT_MAX_FIELDS fields */
} hm_text;

int hm_text_open(const char *file, hm_text *t);
void hm_text_close(hm_text *t);
/* Next line with at least one field ('#' starts a comment when comments); 0 at the end. */
int hm_text_next(hm_text *t, int comments);
/* Next raw line (for headers); 0 at the end. */
int hm_text_skip_line(hm_text *t);
/* Field k as a number, or HM_ERR_INPUT "file:line: <what> 'x' is not ...". */
int hm_text_int(const hm_text *t, int k, const char *what, long lo, long hi, long *x);
int hm_text_double(const hm_text *t, int k, const char *what, double *x);
int hm_text_is_integer(const char *s);

typedef struct {
  int32_t R[3];
  int i, j;           /* 0-based */
  double complex v;   /* the hopping: raw / weight */
  double complex raw; /* as the file writes it (its messages quote the file's own numbers) */
  long weight;        /* Wannier90's degeneracy weight of R; 1 in hamlet's format */
  int line;
} hm_hop;

typedef struct {
  int n, cap;
  hm_hop *hop;
  int one_based;      /* the file numbers orbitals m, n from 1 (Wannier90), else i, j from 0 (hamlet) */
} hm_hops;

int hm_hops_add(hm_hops *h, const int32_t R[3], int i, int j, double complex raw, long weight, int line);
void hm_hops_free(hm_hops *h);
/* Blocks from the hops: a hop given twice is an error; H(-R)[j][i] given must equal conj(H(R)[i][j])
 * within tol times the largest entry (then both become their mean), else it is added. Messages quote
 * the file's numbers: its indices (h->one_based) and raw values. */
int hm_lattice_from_hops(const char *file, const hm_hops *h, double tol, hm_lattice *L);
int hm_lattice_alloc_orbitals(hm_lattice *L, int orbitals);

int hm_lattice_read_hamlet(const char *path, hm_lattice *L);
int hm_lattice_read_hr(const char *path, hm_lattice *L);
int hm_lattice_read_tb(const char *path, hm_lattice *L);
int hm_lattice_read_centres(const char *path, hm_lattice *L);
#endif
