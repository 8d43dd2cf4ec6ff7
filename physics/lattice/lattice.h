/* Lattice models read from files (hamlet's own format, Wannier90 _hr.dat and _tb.dat with an
 * optional _centres.xyz) and the hm_stencil description of a supercell of them (include/hamlet/
 * stencil.h) with boundaries, twists, seeded disorder and vacancies, a Zeeman field on
 * spin-labelled orbitals and the Peierls phases of a uniform magnetic field.
 * Internal to hamlet (apps and tests): a user who builds a model in code fills an hm_stencil. */
#ifndef HAMLET_LATTICE_H
#define HAMLET_LATTICE_H
#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include "hamlet/stencil.h"

typedef enum {
  HM_LATTICE_AUTO = 0,         /* by name: *_hr.dat, *_tb.dat, otherwise hamlet's format */
  HM_LATTICE_HAMLET = 1,
  HM_LATTICE_WANNIER90_HR = 2,
  HM_LATTICE_WANNIER90_TB = 3
} hm_lattice_format;

enum { HM_LATTICE_SPIN_NONE = 0, HM_LATTICE_SPIN_UP = 1, HM_LATTICE_SPIN_DOWN = -1 };

/* One unit cell: lattice vectors, orbitals and the hopping blocks H(R)[i][j] = <i, 0|H|j, R>,
 * complete (H(-R) = H(R)^dagger is present for every R given). */
typedef struct {
  double cell[3][3];      /* a1, a2, a3 (rows), cartesian */
  int orbitals;
  double *position;       /* [orbitals][3] cartesian */
  int *spin;              /* [orbitals]: HM_LATTICE_SPIN_* */
  int nblocks;
  int32_t *shift;         /* [nblocks][3] */
  double complex *block;  /* [nblocks][orbitals][orbitals] */
} hm_lattice;

/* The supercell and its terms (what the deck gives). */
typedef struct {
  int64_t cells[3];
  int boundary[3];        /* hm_boundary */
  double twist[3];        /* radians, on twisted directions */
  double disorder_w;      /* Anderson disorder per orbital, uniform in [-W/2, W/2] */
  uint64_t disorder_seed;
  double vacancy_p;       /* in [0, 1) */
  uint64_t vacancy_seed;
  double zeeman[3];       /* B . sigma on spin-labelled orbitals (energies) */
  double field[3];        /* uniform magnetic field, flux quanta per unit area */
} hm_lattice_params;

/* An hm_stencil and the arrays it points to (owned). */
typedef struct {
  hm_stencil stencil;
  int32_t *shift;
  double *block, *peierls, *wrap_phase;
} hm_lattice_stencil;

#define HM_LATTICE_DISORDER_STREAM 0x6c64u
#define HM_LATTICE_VACANCY_STREAM 0x6c76u

/* Reading (not collective: every rank reads the same small file). Errors are HM_ERR_INPUT with
 * "file:line: what is wrong; what is allowed". cell (may be NULL): lattice vectors for the
 * Wannier90 _hr.dat (which has none; default the unit cube); centres (may be NULL or ""): a
 * Wannier90 _centres.xyz for the orbital positions (default: the cell origin, or the _tb.dat's
 * diagonal position elements). */
int hm_lattice_read(const char *path, hm_lattice_format format, const double (*cell)[3], const char *centres,
                    hm_lattice *L);
hm_lattice_format hm_lattice_format_of(const char *path, hm_lattice_format format);
/* Wannier90's seedname_wsvec.dat at path applied to L read from the Wannier90 file model (named in
 * messages): each H_mn(R) is spread evenly over the images R + T the file lists for (R, m, n), as
 * Wannier90 interpolates with use_ws_distance (its default), and images that land on the same
 * (R', m, n) add up. Errors (HM_ERR_INPUT, "file:line: ..."): a malformed file, counts that do not
 * match, an (R, m, n) of L without an entry, or a file of another model (num_wann, R vectors). */
int hm_lattice_spread_wsvec(const char *path, const char *model, hm_lattice *L);
/* seedname_wsvec.dat beside seedname_hr.dat or seedname_tb.dat (into out); 0 for other names. */
int hm_lattice_wsvec_beside(const char *lattice_file, char *out, size_t len);
void hm_lattice_free(hm_lattice *L);

int hm_lattice_params_default(hm_lattice_params *p);
int hm_lattice_params_check(const hm_lattice *L, const hm_lattice_params *p);
/* The description of the supercell (blocks with the Zeeman term and the field's constant phases
 * folded in; Peierls gradients and wrap phases where a field is given). */
int hm_lattice_make_stencil(const hm_lattice *L, const hm_lattice_params *p, hm_lattice_stencil *s);
void hm_lattice_stencil_free(hm_lattice_stencil *s);
/* The nz layers of a slab (open along z) as one cell of nz * orbitals orbitals (orbital l * orbitals
 * + i: orbital i of layer l; lattice vectors a1, a2, nz a3), with B_l . sigma on layer l's spin pairs
 * where layer_zeeman ([nz][3]) is not NULL: a term that differs from layer to layer. The supercell
 * of the result has nz = 1; its rows are (cx + nx cy) * nz * orbitals + l * orbitals + i. */
int hm_lattice_fold_layers(const hm_lattice *L, int64_t nz, const double *layer_zeeman, hm_lattice *out);
#endif
