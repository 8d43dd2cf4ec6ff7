/* Conductivity tensor by KPM (Kubo-Bastin; Garcia, Covaci and Rappoport, PRL 114, 116602 (2015)).
 * Velocity operators v_a = i[H, X_a] of a lattice Hamiltonian (hbar = 1, lengths in lattice units)
 * come from its hopping blocks and geometry (hm_velocity_blocks: the same stencil, each entry
 * multiplied by i times the bond's displacement). The two-dimensional Chebyshev moments
 *   mu_nm^{ab} = Tr[v_a T_n(H~) v_b T_m(H~)] / N,   H~ = scale (H - shift),
 * are estimated from R random-phase vectors (or every unit vector: HM_TRACE_EXACT), all requested
 * components from the same Chebyshev vectors: per start vector r the left vectors T_n(H~) v_a r and
 * the right vectors v_b T_m(H~) r are made in chunks of columns and the M x M block of each
 * component is their Gram product (the backend's gram kernel: one dense product per chunk pair).
 * Start vectors go in blocks of up to 16 whose recursions advance together (block KPM steps)
 * where memory holds all M moments of a block's chunk (hm_conductivity_block).
 * sigma_ab(mu, T) is evaluated from the moments by hm_conductivity_sigma (pure arithmetic). */
#ifndef HAMLET_CONDUCTIVITY_H
#define HAMLET_CONDUCTIVITY_H
#include "export.h"
#include <stdint.h>
#include "dos.h"
#include "kpm.h"
#include "matrix.h"

typedef enum { HM_TRACE_RANDOM = 0, HM_TRACE_EXACT = 1 } hm_trace_method;

typedef struct hm_conductivity_s hm_conductivity;

/* Called at chunk boundaries (every checkpoint_every left chunks or checkpoint_seconds) on every
 * rank, collectively; read the state with hm_conductivity_state. */
typedef int (*hm_conductivity_checkpoint_fn)(hm_conductivity *c, void *user);

typedef struct {
  int moments;              /* M, even, >= 2 */
  int vectors;              /* R >= 1 random-phase vectors (HM_TRACE_RANDOM) */
  uint64_t seed;            /* of the random phases */
  hm_trace_method trace;    /* HM_TRACE_EXACT: every unit vector (N of them; small N only) */
  hm_bounds_method bounds;  /* spectral interval as for hm_kpm */
  int lanczos_steps;
  double bounds_margin;
  double emin, emax;        /* HM_BOUNDS_GIVEN */
  int chunk;                /* Chebyshev vectors per chunk; 0: chosen from free memory (with the block) */
  int checkpoint_every;     /* left chunks between checkpoints; 0 = off */
  double checkpoint_seconds;/* wall seconds between checkpoints; 0 = off */
  hm_conductivity_checkpoint_fn checkpoint;
  void *checkpoint_user;
  /* Asked at chunk boundaries on every rank (same answer everywhere); nonzero stops the run with
   * HM_ERR_STOPPED and a consistent state (checkpoint it, restore later). NULL = never stop. */
  int (*stop)(void *user);
  void *stop_user;
  int block;                /* start vectors per block (1 to 16); 0: chosen with the chunk (hm_conductivity_block) */
} hm_conductivity_options;

#ifdef __cplusplus
extern "C" {
#endif

/* Not collective: the velocity blocks of a stencil (include/hamlet/stencil.h layout):
 * velocity_block[b][i][j] = i (R_b . a + tau_j - tau_i)_direction block[b][i][j], complex
 * (re, im pairs), with lattice[k*3 + d] = component d of lattice vector k, positions[i*3 + d] the
 * position of orbital i in the cell (same length unit), direction 0, 1, 2 = x, y, z. The velocity
 * operator is the stencil with these blocks (same shifts, boundaries, twists, vacancies, Peierls
 * phases) and no disorder (on-site terms commute with X). Each bond keeps its own displacement, so
 * periodic and twisted boundaries use the nearest image the block describes. */
HM_API int hm_velocity_blocks(int orbitals, int nblocks, const int32_t *shift, const double *block, const double *lattice,
                       const double *positions, int direction, double *velocity_block);

/* Not collective: the stencil blocks of the current J_a = {S, v_a} / 2 of an on-site operator S that is
 * diagonal in the orbitals, S = diag(weight) in every cell (spin_z: +1 on spin-up, -1 on spin-down
 * orbitals): current_block[b][i][j] = (weight_i + weight_j) / 2 velocity_block[b][i][j] (layout of
 * hm_velocity_blocks). As the left operator of hm_conductivity_create (v_b on the right) it gives the
 * Kubo-Bastin tensor of that current, e.g. the spin Hall conductivity in e^2/h with S's eigenvalues
 * as given (+-1, not hbar / 2). */
HM_API int hm_current_blocks(int orbitals, int nblocks, const double *velocity_block, const double *weight,
                             double *current_block);
/* Not collective: as hm_current_blocks for any Hermitian on-site operator S given per cell as a
 * complex matrix S[i][j] (interleaved re, im; orbitals x orbitals), e.g. spin_x and spin_y on up/down
 * pairs: current_block[b] = (S velocity_block[b] + velocity_block[b] S) / 2 (current_block must not
 * alias velocity_block). HM_ERR_ARGUMENT where S is not finite or not Hermitian (1e-12 relative). */
HM_API int hm_current_blocks_operator(int orbitals, int nblocks, const double *velocity_block, const double *S,
                                      double *current_block);

/* Collective: the velocity operator V_ij = i (r_j - r_i)_direction H_ij of an assembled matrix whose
 * row (c, i) is orbital i of cell c = cx + nx (cy + ny cz) of cells[3] (the stencil numbering; the
 * TI's too), the displacement taken to the nearest image (cell differences wrapped into
 * [-n/2, n/2]), so periodic and twisted boundaries need no flag (a periodic direction needs more
 * than twice the longest hop in cells: n = 2 cannot tell +x from -x); lattice and positions as for
 * hm_velocity_blocks. V is complex, over H's distribution. */
HM_API int hm_matrix_create_velocity(hm_matrix *H, const int64_t *cells, int orbitals, const double *lattice,
                              const double *positions, int direction, hm_matrix **V);

HM_API int hm_conductivity_options_default(hm_conductivity_options *opt);
/* Collective: components c < ncomp of mu^{ab} with v_a = left[c], v_b = right[c] (complex matrices
 * over H's distribution; equal pointers share their Chebyshev vectors). H must be complex Hermitian.
 * The matrices must outlive the object. */
HM_API int hm_conductivity_create(hm_matrix *H, int ncomp, hm_matrix *const *left, hm_matrix *const *right,
                           const hm_conductivity_options *opt, hm_conductivity **c);
HM_API int hm_conductivity_destroy(hm_conductivity **c);
/* Collective: iterate until every start vector is done (continues a restored state). */
HM_API int hm_conductivity_run(hm_conductivity *c);
/* Sizes, progress and the rescaling (moments of scale (H - shift)); start = R (random) or N
 * (exact); any pointer may be NULL. */
HM_API int hm_conductivity_info(const hm_conductivity *c, int *moments, int *components, int *starts, int *starts_done,
                         int *chunk, double *scale, double *shift, int64_t *n_global);
/* Not collective: the spectral interval [emin, emax] the moments use (scale = 2 / (emax - emin)),
 * to create the object of a restore with HM_BOUNDS_GIVEN bit for bit. */
HM_API int hm_conductivity_interval(const hm_conductivity *c, double *emin, double *emax);
/* Collective (one reduction): moments of the start vectors done so far: mu[C][M][M] complex (re, im; row n, column m) averaged
 * over them, and, where mu_vec != NULL and the trace is random, each vector's own estimate
 * mu_vec[R][C][M][M] (vectors not done are 0). */
HM_API int hm_conductivity_moments(const hm_conductivity *c, double *mu, double *mu_vec);
/* Not collective: start vectors per block B (options.block, else on a device backend 1 to
 * min(start vectors, 16), chosen with the chunk so that B chunks fit in memory and the steps per
 * vector are fewest; 1 on the host backend, where blocks measured slower): their Chebyshev recursions
 * advance together (one block step); a checkpoint's part holds B vectors' moments. */
HM_API int hm_conductivity_block(const hm_conductivity *c, int *block);
/* Collective (reductions): checkpoint state, the same on every rank: start vectors done (a multiple
 * of B, or all), left chunks of the next block done, and the raw sums: sum[C][M][M] over finished
 * start vectors, part[B][C][M][M] of the current block's start vectors, and (random trace,
 * may be NULL otherwise) per[R][C][M][M] per vector. hm_conductivity_restore takes the same after
 * hm_conductivity_create with the saved interval (hm_conductivity_interval, HM_BOUNDS_GIVEN) and
 * options; the run then continues to the moments of an uninterrupted one bit for bit (same ranks). */
HM_API int hm_conductivity_state(const hm_conductivity *c, int *starts_done, int *chunks_done, double *sum, double *part,
                          double *per);
HM_API int hm_conductivity_restore(hm_conductivity *c, int starts_done, int chunks_done, const double *sum,
                            const double *part, const double *per);

/* Not collective, pure arithmetic: sigma_ab(mu, T) in units of e^2/h times `density`-dependent
 * length (see below) from moments mu[C][M][M] of scale (H - shift), with the kernel's damping
 * g_n g_m. Kubo-Bastin in Chebyshev form, integrated over the rescaled energy:
 *   sigma = 2 pi Re{ i scale^2 density Int de f(E(e)) sum_nm mu_nm [d_n(e) G'+_m(e) - G'-_n(e) d_m(e)] }
 * with d_n, G'+-_n the Chebyshev coefficients of delta(e - H~) and dG+-/de. density = N / Omega:
 * orbitals per unit-cell area (2D: sigma per layer in e^2/h) or volume (3D: e^2/(h a)).
 * sigma[(c*ntemp + t)*nenergy + e] for chemical potentials energies[e] and temperatures temps[t]
 * (energy units; 0 = a step). */
HM_API int hm_conductivity_sigma(int moments, int ncomp, const double *mu, double scale, double shift, hm_kpm_kernel kernel,
                          double lorentz_lambda, double density, int nenergy, const double *energies, int ntemp,
                          const double *temps, double *sigma);

/* Collective: sigma_aa(E) at T = 0 and nenergy Fermi energies by the single-shot Kubo-Greenwood
 * expansion, for lattices too large for M x M moments:
 *   sigma(E) = 2 pi^2 (density / N) Tr[V delta_M(E - H) V delta_M(E - H)]   (e^2/h, as hm_conductivity_sigma)
 * with delta_M the kernel-damped M-term Chebyshev series of the DOS. Each start vector r (opt's trace,
 * vectors and seed: the same random phases as hm_conductivity's) costs 2M products with H; memory is
 * 6 + 2 nenergy vectors of N. It equals the Greenwood sum over the moments of hm_conductivity with the
 * same options to rounding, and the Kubo-Bastin sigma_aa of hm_conductivity_sigma at T = 0 to the
 * latter's quadrature. Of opt: moments, vectors, seed, trace (exact: N <= 10^5), bounds, lanczos_steps,
 * bounds_margin, emin, emax, stop. H and V complex; or, for a real H (whose velocity v is imaginary), both
 * real with V = -i v: then the start vectors are real (+-1, an unbiased trace as the phases are) and
 * every vector takes half the memory and traffic. sigma[e], error[e] (standard error over the random
 * vectors, or NULL), bounds (or NULL): the interval used, emin and emax. */
HM_API int hm_conductivity_single_shot(hm_matrix *H, hm_matrix *V, const hm_conductivity_options *opt, hm_kpm_kernel kernel,
                                       double lorentz_lambda, double density, int nenergy, const double *energies,
                                       double *sigma, double *error, double *bounds);
/* Collective: the resumable pieces of it, for runs that checkpoint. _part runs the start vectors [first,
 * last) of opt's trace (R random phases or N unit vectors), adding each one's Re <r| V delta V delta |r>
 * at energy e to sums[e] and its square to sums[nenergy + e]; *done = the start after the last one
 * completed (last, unless opt->stop asked to stop: HM_ERR_STOPPED with sums consistent); bounds: the
 * interval used (emin, emax): give it to the later parts of one run with opt->bounds = HM_BOUNDS_GIVEN.
 * _sigma (not collective): sigma and error (or NULL) from the sums of every start, N rows. */
HM_API int hm_conductivity_single_shot_part(hm_matrix *H, hm_matrix *V, const hm_conductivity_options *opt,
                                            hm_kpm_kernel kernel, double lorentz_lambda, int nenergy,
                                            const double *energies, int first, int last, double *sums, int *done,
                                            double *bounds);
HM_API int hm_conductivity_single_shot_sigma(const hm_conductivity_options *opt, int64_t n, double density, int nenergy,
                                             const double *sums, double *sigma, double *error);

/* Not collective, pure arithmetic: the optical conductivity sigma_ab(omega) (complex; the units and
 * density of hm_conductivity_sigma) from the same moments, both Green's functions by their Chebyshev
 * series with the kernel's damping and the broadening eta (energy units, >= 0; 0: the kernel's only):
 *   sigma_ab(omega) = (i / omega) [Pi_ab(omega) - Pi_ab(0)] density,
 *   Pi_ab(omega) = Int dE f(E) Tr[v_a delta(E - H) v_b G+(E + omega) + v_a G-(E - omega) v_b delta(E - H)] / N,
 * G+-(z) = (z -+ i eta - H)^-1: the diamagnetic term taken as -Pi(0) (no Drude weight), so omega -> 0
 * is the DC tensor of hm_conductivity_sigma and Int_0^inf Re sigma_aa = -(pi / 2) Pi_aa(0) density.
 * Frequencies freqs[w] > 0 (energy units, hbar = 1); sigma[(((c*ntemp + t)*nenergy + e)*nfreq + w)*2 + j],
 * j = 0: Re, 1: Im. */
HM_API int hm_conductivity_optical(int moments, int ncomp, const double *mu, double scale, double shift,
                                   hm_kpm_kernel kernel, double lorentz_lambda, double density, double eta, int nfreq,
                                   const double *freqs, int nenergy, const double *energies, int ntemp,
                                   const double *temps, double *sigma);

#ifdef __cplusplus
}
#endif
#endif
