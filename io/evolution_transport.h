/* The Kubo-Greenwood transport of method = evolution from its Chebyshev moments: what the run writes
 * and what hamlet post recomputes on new energies or another kernel (one arithmetic for both).
 *   Delta X_a^2(E, t) = sum_r S[chi_r](E) / sum_r S[phi_r](E),  S[v](E) = sum_n (2 - delta_n0) g_n <v|T_n|v> T_n(x_E)
 *   D_a(E, t) = Delta X_a^2 / (2 t)                   Einstein's diffusivity (Delta X^2 = 2 D t)
 *   dos(E) = to_dos(E) sum_r S[phi_r] / R             per orbital (start = random; the start site's LDOS
 *                                                     otherwise), to_dos = scale / (pi sqrt(1 - x^2))
 *   sigma_a(E, t) = e^2 rho(E) D = 2 pi (N / Omega) dos D  e^2/h   (hbar = 1, per orbital: no spin factor)
 *   sigma_sc(E) = the maximum over t                  the semiclassical (diffusive plateau) value
 *   <v_a^2>(E) = sum_r S[v_a phi_r] / sum_r S[phi_r]
 *   l_a(E) = D_max / v_a, v_a = sqrt(<v_a^2>)          mean free path along a: D_aa = <v_a^2> tau of the
 *                                                     relaxation-time picture, l_a = v_a tau
 *   xi_a(E) = sqrt(2 Delta X_a^2(T) / (d + 1))        where D has fallen below half its maximum by the
 *     last time T: a state |psi|^2 ~ exp(-2 r / xi) in d dimensions gives Delta X_a^2 -> 2 Var(x_a) =
 *     (d + 1) xi^2 / 2 (the time average of |[X, U(t)]|^2 is twice the variance); 0 elsewhere.
 * transport = vac (evolution_vac.c): C_a(E, t) = Re Tr[delta(E - H) V_a(t) V_a(0)] / Tr[delta(E - H)], the
 *   running D_a(E, t) = int_0^t C_a (trapezoid), sigma_a from it as above; (1/2) d Delta X_a^2 / dt = D_a(E, t).
 * Errors: the standard errors of the ratio (delta method) and of sigma (the numerators' spread) over
 * the R start vectors; 0 for one vector. */
#ifndef HAMLET_EVOLUTION_TRANSPORT_H
#define HAMLET_EVOLUTION_TRANSPORT_H
#include <stdint.h>

typedef struct {
  int nd, T, R, M, ne;     /* directions, time rows 0 .. T, start vectors, moments, energies */
  const double *time;      /* [T + 1] */
  const double *chi;       /* [nd][T + 1][R][M]: <chi_r|T_n(H~)|chi_r>, chi_r = [X_a, U(t)] phi_r; NULL: no msd */
  const double *vac;       /* [nd][T + 1][R][M]: Re <U(t) phi_r|T_n(H~) v_a U(t) v_a phi_r>; NULL: no vac */
  const double *start;     /* [R][M]: <phi_r|T_n(H~)|phi_r> */
  const double *velocity;  /* [nd][R][M]: <v_a phi_r|T_n(H~)|v_a phi_r> */
  double scale, shift;     /* H~ = scale (H - shift) */
  int kernel;              /* hm_kpm_kernel */
  double lambda;           /* the Lorentz kernel's */
  const double *energies;  /* [ne] */
  int random, dimension;   /* start = random (sigma defined); lattice axes of more than one cell */
  double density;          /* N / Omega: orbitals per area or volume */
} hm_evolution_moments;

typedef struct {
  double *msd, *msd_error, *diffusivity, *sigma, *sigma_error; /* [nd][T + 1][ne] */
  double *dos;                                                /* [ne] */
  double *velocity2, *sigma_sc, *mean_free_path, *localization_length; /* [nd][ne] */
  double *vac, *vac_error, *vac_diffusivity, *vac_diffusivity_error;   /* [nd][T + 1][ne] (evolution_vac.c) */
  double *vac_sigma, *vac_sigma_error;                                 /* [nd][T + 1][ne] */
} hm_evolution_transport;

/* One dataset of /evolution: its name, shape, values, unit and description. */
typedef struct {
  const char *name;
  int ndim;
  int64_t dims[3];
  const double *data;
  const char *unit, *description;
} hm_evolution_dataset;

/* Allocates and fills x from m; HM_ERR_MEMORY or HM_ERR_ARGUMENT (a bad kernel). hm_evolution_transport_free
 * releases it. */
int hm_evolution_transport_compute(const hm_evolution_moments *m, hm_evolution_transport *x);
void hm_evolution_transport_free(hm_evolution_transport *x);
/* The datasets the transport writes (sigma's only where m->random), with `unit` as sigma's unit;
 * returns their count (at most HM_EVOLUTION_DATASETS). */
enum { HM_EVOLUTION_DATASETS = 24 };
int hm_evolution_transport_datasets(const hm_evolution_moments *m, const hm_evolution_transport *x,
                                    const char *unit, hm_evolution_dataset *list);

/* The pieces the two forms share: out[r][e] = S[v_r](E_e) of R vectors' moments mom[r][M] (kernel
 * factors g), to_dos[e] where given; at energy e the ratio sum_r num / sum_r den of [R][ne] arrays, its
 * standard error (delta method) and that of the mean over r of num (0 for one vector). */
void hm_evolution_sums(const hm_evolution_moments *m, const double *g, const double *mom, double *out, double *to_dos);
void hm_evolution_ratio(int R, int ne, int e, const double *num, const double *den, double *ratio, double *error,
                        double *mean_error);
/* The velocity auto-correlation's rows (evolution_vac.c), from m->vac, the kernel factors g, the start's
 * den[R][ne] and to_dos[ne]; its datasets appended to list after n of them (returns the new count). */
int hm_evolution_vac_rows(const hm_evolution_moments *m, const double *g, const double *den, const double *to_dos,
                          hm_evolution_transport *x);
int hm_evolution_vac_datasets(const hm_evolution_moments *m, const hm_evolution_transport *x, const char *unit,
                              hm_evolution_dataset *list, int n);
#endif
