/* The spectral interval of a conductivity run from its options (given, Lanczos or Gershgorin with the
 * margin; a point spectrum widened by 1 on each side): the rule hm_conductivity and the single shot share. */
#ifndef HAMLET_CONDUCTIVITY_INTERVAL_H
#define HAMLET_CONDUCTIVITY_INTERVAL_H
#include "hamlet/conductivity.h"
int hm_conductivity_interval_of(hm_matrix *H, const hm_conductivity_options *o, double *emin, double *emax);
#endif
