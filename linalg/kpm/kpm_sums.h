/* The raw moment sums of a KPM run, for checkpoints that restart bit for bit (internal: io's
 * checkpoint code uses them). sums[r*M + n], summed over ranks, are <v_r|v_0> for n = 0,
 * <v_r|v_1> for n = 1 and 2<v_m|v_m> (n = 2m) or 2<v_m+1|v_m> (n = 2m+1) from then on, before the
 * subtraction of mu_0 / mu_1 and the division by <v_r|v_r> that hm_kpm_moments applies. Storing
 * these instead of the moments keeps every later moment's arithmetic that of the uninterrupted run. */
#ifndef HAMLET_KPM_SUMS_H
#define HAMLET_KPM_SUMS_H
#include "hamlet/kpm.h"

/* Collective: sums[R*M] (entries >= moments_done are 0). */
int hm_kpm_sums(hm_kpm *kpm, double *sums);
/* Collective: continue from saved sums (after hm_kpm_create with the saved interval, and
 * hm_kpm_set_start when that run had one); the vectors are set by the caller. */
int hm_kpm_restore_sums(hm_kpm *kpm, int moments_done, const double *sums);
/* Passes (opt.block < R): the current pass (0-based), how many, and the vectors per pass. */
int hm_kpm_passes(const hm_kpm *kpm, int *pass, int *passes, int *block);
/* Collective: make `pass` the current one (its blocks, of its width, zero; none of its moments
 * done): a restart calls it before setting the vectors and the sums. */
int hm_kpm_restore_pass(hm_kpm *kpm, int pass);
/* Whether hm_kpm_run found the Lanczos interval too narrow (a moment of magnitude `growth` > 1) and
 * began the moments again on the Gershgorin interval; narrow_*: the interval it left. Any output
 * pointer may be NULL. */
int hm_kpm_bounds_widened(const hm_kpm *kpm, int *widened, double *narrow_emin, double *narrow_emax, double *growth);
/* Collective, for tests of that defence: replace a Lanczos-made kpm's interval by [emin, emax] (as if
 * Lanczos had found it) before hm_kpm_run; the start vectors are made again. */
int hm_kpm_set_interval_estimate(hm_kpm *kpm, double emin, double emax);
#endif
