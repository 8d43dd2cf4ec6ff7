/* Peierls phases of a uniform magnetic field on a lattice supercell (see lattice_field.c). */
#ifndef HAMLET_LATTICE_FIELD_H
#define HAMLET_LATTICE_FIELD_H
#include "lattice.h"

/* Fills s->peierls and s->wrap_phase (allocated) and multiplies s->block by each bond's constant
 * phase; HM_ERR_DECK when the flux through a face of the supercell is not an integer. */
int hm_lattice_field(const hm_lattice *L, const hm_lattice_params *p, hm_lattice_stencil *s);
/* Flux quanta through the face (a, a+1 mod 3) of one unit cell: B . (a_a x a_{a+1}). */
void hm_lattice_cell_flux(const hm_lattice *L, const double field[3], double flux[3]);
#endif
