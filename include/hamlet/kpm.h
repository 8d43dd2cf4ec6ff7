/* Kernel Polynomial Method: Chebyshev moments mu_n = <v|T_n(scale*(H - shift))|v> / N of a
 * Hermitian matrix, averaged over R random-phase vectors processed as one block with a fused,
 * blocked "augmented SpMMV" per step (Kreutzer et al.). */
#ifndef HAMLET_KPM_H
#define HAMLET_KPM_H
#include "export.h"
#include <stdint.h>
#include "matrix.h"

typedef enum { HM_BOUNDS_LANCZOS = 0, HM_BOUNDS_GERSHGORIN = 1, HM_BOUNDS_GIVEN = 2 } hm_bounds_method;

typedef struct hm_kpm_s hm_kpm;

/* Called every checkpoint_every moment pairs (or checkpoint_seconds) on every rank, collectively. */
typedef int (*hm_kpm_checkpoint_fn)(hm_kpm *kpm, void *user);
/* Called on every rank after each step with moments done so far (for progress output). */
typedef void (*hm_kpm_progress_fn)(int moments_done, int moments, void *user);

typedef struct {
  int moments;              /* M, even, >= 2 */
  int vectors;              /* R, >= 1 */
  uint64_t seed;            /* random-phase vectors */
  hm_bounds_method bounds;  /* how the spectral interval is found */
  int lanczos_steps;        /* for HM_BOUNDS_LANCZOS */
  double bounds_margin;     /* relative widening of the interval (Lanczos and Gershgorin) */
  double emin, emax;        /* for HM_BOUNDS_GIVEN: the interval used as is */
  int checkpoint_every;     /* moment pairs between checkpoints; 0 = off */
  double checkpoint_seconds;/* wall seconds between checkpoints; 0 = off */
  hm_kpm_checkpoint_fn checkpoint;
  void *checkpoint_user;
  hm_kpm_progress_fn progress;
  void *progress_user;
  /* Asked on every rank at step boundaries (after each moment pair); must return the same value on every rank. Nonzero
   * makes the run return HM_ERR_STOPPED with its state consistent there (checkpoint it, restore
   * later). NULL = never stop. */
  int (*stop)(void *user);
  void *stop_user;
  /* Vectors per pass: the R vectors run in ceil(R / block) passes of at most block columns, so only
   * two blocks of that width are held (less memory per orbital); the moments are those of one pass
   * (vector r is the same random vector whatever the block). 0 = all R in one pass; else 1..R. */
  int block;
} hm_kpm_options;

#ifdef __cplusplus
extern "C" {
#endif

HM_API int hm_kpm_options_default(hm_kpm_options *opt);
/* Collective: find the bounds and fill the start block. H must be Hermitian. */
HM_API int hm_kpm_create(hm_matrix *H, const hm_kpm_options *opt, hm_kpm **kpm);
HM_API int hm_kpm_destroy(hm_kpm **kpm);
/* The options the kpm was made with (interval and callbacks included). */
HM_API int hm_kpm_options_get(const hm_kpm *kpm, hm_kpm_options *opt);
/* Collective: use the columns of V0 (width = vectors, H's type and distribution; V0 is copied and
 * may be destroyed after) as the start block instead of the random phases, e.g. the unit vectors
 * e_(site, orbital) for a local density of states. Call after hm_kpm_create and before hm_kpm_run
 * (and before hm_kpm_restore when continuing such a run). The moments of vector r are then
 * normalised by its own <v_r|v_r> instead of N: mu_vec[r*M + n] = <v_r|T_n|v_r> / <v_r|v_r>, so
 * mu_r[0] = 1 still holds. The bounds of hm_kpm_create are kept. Every column must be non-zero. */
HM_API int hm_kpm_set_start(hm_kpm *kpm, const hm_mvec *V0);
/* Collective: iterate until all moments are done (continues a restored state). */
HM_API int hm_kpm_run(hm_kpm *kpm);
/* Sizes and the rescaling: the moments are those of scale*(H - shift). */
HM_API int hm_kpm_info(const hm_kpm *kpm, int *moments, int *vectors, int *moments_done,
                double *scale, double *shift, int64_t *n_global);
/* The interval [emin, emax] mapped onto [-1, 1]: scale = 2/(emax-emin), shift = (emax+emin)/2. */
HM_API int hm_kpm_interval(const hm_kpm *kpm, double *emin, double *emax);
/* Collective: moments done so far, summed over ranks. mu[M] averaged over vectors, normalised so
 * that mu[0] = 1 (random phases: divided by N; after hm_kpm_set_start: by each <v_r|v_r>);
 * mu_vec[R*M] per vector (row r = vector r), may be NULL. Entries >= moments_done
 * are 0. Needs one global reduction; call it at checkpoints and at the end, not per step. */
HM_API int hm_kpm_moments(hm_kpm *kpm, double *mu, double *mu_vec);

/* Checkpoint support: the two current block vectors (owned by kpm) and the restore call. */
HM_API int hm_kpm_state_vectors(hm_kpm *kpm, hm_mvec **v_prev, hm_mvec **v_curr);
/* Restore after hm_kpm_create (with bounds HM_BOUNDS_GIVEN at the saved interval): the moments
 * done and their per-vector values mu_vec[R*M] as from hm_kpm_moments; the vectors are set by the
 * caller through hm_kpm_state_vectors + hm_mvec_set. */
HM_API int hm_kpm_restore(hm_kpm *kpm, int moments_done, const double *mu_vec);

#ifdef __cplusplus
}
#endif
#endif
