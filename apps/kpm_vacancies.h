/* The KPM moments of a lattice without its vacant sites' zero modes (kpm_vacancies.c). */
#ifndef HAMLET_KPM_VACANCIES_H
#define HAMLET_KPM_VACANCIES_H
#include <stdint.h>

/* mu[moments] (averaged) and mu_vec[vectors][moments] of random-phase vectors on n_global rows, of
 * which `vacant` are decoupled zero rows: replaced in place by the moments of the n_global - vacant
 * other rows (mu_r[0] stays 1). */
void kpm_remove_vacant(int moments, int vectors, double *mu, double *mu_vec, double scale, double shift,
                       int64_t n_global, int64_t vacant);
#endif
