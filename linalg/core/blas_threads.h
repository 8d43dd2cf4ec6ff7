/* One-thread BLAS while hamlet's own OpenMP threads do the work. OpenBLAS (Debian's pthread build)
 * starts its own workers, which spin after each call and take the cores from hamlet's threads;
 * its threads split only the small dimensions of the solvers' tall-skinny products anyway.
 * No effect with a BLAS other than OpenBLAS. */
#ifndef HAMLET_BLAS_THREADS_H
#define HAMLET_BLAS_THREADS_H

/* Switch OpenBLAS to one thread; returns the previous count to give back (0: not OpenBLAS). */
int hm_blas_threads_single(void);
/* Give back the count hm_blas_threads_single returned. */
void hm_blas_threads_restore(int previous);
/* 1 where hm_blas_threads_single can switch (OpenBLAS). */
int hm_blas_threads_controllable(void);
#endif
