/* hamlet post's work: sigma anew from a result file's stored conductivity moments (new chemical
 * potentials, temperatures or kernel; the optical sigma(omega) on the file's or new frequencies), written to a copy (or in place through a temporary copy
 * renamed when complete). Serial: one process reads and writes. */
#ifndef HAMLET_CONDUCTIVITY_POST_H
#define HAMLET_CONDUCTIVITY_POST_H
#include <stddef.h>

typedef struct {
  const char *in, *out;       /* out NULL: replace in */
  int nenergy, ntemp, kernel; /* nenergy / ntemp 0, kernel -1: keep the file's */
  double emin, emax, lambda, temps[64];
  int nfreq;                  /* optical sigma: new frequencies (0: the file's, if it has them) */
  double wmin, wmax, eta;     /* eta < 0: the file's (0 without one) */
} hm_post_args;

/* HM_ERR_INPUT: not a conductivity result; HM_ERR_IO: cannot write. summary: one line of what was done. */
int hm_conductivity_post(const hm_post_args *a, char *summary, size_t len);
#endif
