/* The BLACS and ScaLAPACK routines the dense path calls (Debian: libscalapack-mpich, which holds
 * BLACS too). Fortran calling convention: every argument by reference; no hidden string lengths
 * are passed (all character arguments here are single letters, which the library reads as such). */
#ifndef HAMLET_SCALAPACK_H
#define HAMLET_SCALAPACK_H
#include <mpi.h>

/* BLACS, C interface. */
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
int Cblacs_pnum(int context, int prow, int pcol);

/* Redistribution between any two block-cyclic layouts (complex as interleaved doubles); gcontext: a
 * BLACS context holding every process of both. */
void Cpdgemr2d(int m, int n, double *a, int ia, int ja, int *desca, double *b, int ib, int jb, int *descb, int gcontext);
void Cpzgemr2d(int m, int n, double *a, int ia, int ja, int *desca, double *b, int ib, int jb, int *descb, int gcontext);

/* Tools. */
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ictxt, const int *lld, int *info);

/* Real symmetric. */
void pdsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, double *w, double *z, const int *iz, const int *jz, const int *descz, double *work,
              const int *lwork, int *iwork, const int *liwork, int *info);
void pdsyev_(const char *jobz, const char *uplo, const int *n, double *a, const int *ia, const int *ja,
             const int *desca, double *w, double *z, const int *iz, const int *jz, const int *descz, double *work,
             const int *lwork, int *info);
void pdpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja, const int *desca, int *info);
void pdsygst_(const int *ibtype, const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, const double *b, const int *ib, const int *jb, const int *descb, double *scale,
              int *info);
void pdtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca, double *b,
             const int *ib, const int *jb, const int *descb);

/* Complex Hermitian (complex arrays as interleaved doubles). */
void pzheevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, double *w, double *z, const int *iz, const int *jz, const int *descz, double *work,
              const int *lwork, double *rwork, const int *lrwork, int *iwork, const int *liwork, int *info);
void pzheev_(const char *jobz, const char *uplo, const int *n, double *a, const int *ia, const int *ja,
             const int *desca, double *w, double *z, const int *iz, const int *jz, const int *descz, double *work,
             const int *lwork, double *rwork, const int *lrwork, int *info);
void pzpotrf_(const char *uplo, const int *n, double *a, const int *ia, const int *ja, const int *desca, int *info);
void pzhegst_(const int *ibtype, const char *uplo, const int *n, double *a, const int *ia, const int *ja,
              const int *desca, const double *b, const int *ib, const int *jb, const int *descb, double *scale,
              int *info);
void pztrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m, const int *n,
             const double *alpha, const double *a, const int *ia, const int *ja, const int *desca, double *b,
             const int *ib, const int *jb, const int *descb);
#endif
