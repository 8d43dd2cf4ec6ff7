/* SLEPc peer of hamlet's shift-and-invert (bench/shift_invert_peer.py --slepc): the nev
 * eigenpairs nearest sigma of A x = lambda x or A x = lambda B x read from Matrix Market files,
 * by Krylov-Schur on (A - sigma B)^-1 B (STSINVERT, KSPPREONLY + a direct factorization) or by
 * LOBPCG preconditioned with the same factorization (STPRECOND: SLEPc's LOBPCG takes no other ST;
 * it finds the smallest eigenvalues, so it answers "nearest sigma" only below the spectrum).
 * One rank (PETSc's own factorizations are sequential). Built twice, against libslepc-real3.18 and
 * libslepc-complex3.18 (bench/peers/build_petsc_peers.sh); the real build refuses complex files.
 *   slepc_shift_invert -A A.mtx [-B B.mtx] [-sigma 0] [-nev 4] [-tol 1e-8] [-maxit 1000]
 *                      [-method krylovschur|lobpcg] [-factor lu|cholesky] [PETSc/SLEPc options]
 * Prints one line (time_s = EPSSetUp, which factorizes, + EPSSolve; reading is not timed):
 *   slepc_shift_invert method=.. factor=.. n=.. nnz=.. sigma=.. tol=.. nconv=.. its=.. setup_s=..
 *   solve_s=.. time_s=.. max_backward_error=.. error=".." values=v1,v2,..   (the nev converged
 *   values nearest sigma, ascending; nconv < nev means not solved; error names PETSc's error class
 *   where EPSSetUp / EPSSolve failed, "none" otherwise). Exit status 2 for bad input. */
#include <slepceps.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum { BAD_INPUT = 2 };

/* A coordinate Matrix Market file as a SeqAIJ matrix: symmetric / hermitian files store one
 * triangle, mirrored here (conjugated for hermitian). Returns BAD_INPUT with a message on stderr
 * when the file cannot be used. */
static int read_matrix_market(const char *path, Mat *out) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "slepc_shift_invert: cannot open '%s'\n", path);
    return BAD_INPUT;
  }
  char line[1024], object[64], format[64], field[64], symmetry[64];
  if (!fgets(line, sizeof line, f) ||
      sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", object, format, field, symmetry) != 4 ||
      strcasecmp(object, "matrix") || strcasecmp(format, "coordinate")) {
    fprintf(stderr, "slepc_shift_invert: '%s' is not a coordinate Matrix Market matrix\n", path);
    fclose(f);
    return BAD_INPUT;
  }
  const int is_complex = !strcasecmp(field, "complex");
  const int is_real = !strcasecmp(field, "real") || !strcasecmp(field, "integer");
  const int mirrored = !strcasecmp(symmetry, "symmetric") || !strcasecmp(symmetry, "hermitian");
  const int conjugate = !strcasecmp(symmetry, "hermitian");
  if ((!is_complex && !is_real) || (!mirrored && strcasecmp(symmetry, "general"))) {
    fprintf(stderr, "slepc_shift_invert: '%s': field '%s', symmetry '%s' not supported "
            "(allowed: real, integer or complex; general, symmetric or hermitian)\n", path, field, symmetry);
    fclose(f);
    return BAD_INPUT;
  }
#if !defined(PETSC_USE_COMPLEX)
  if (is_complex) {
    fprintf(stderr, "slepc_shift_invert: '%s' is complex: use the complex build (slepc_shift_invert_complex)\n", path);
    fclose(f);
    return BAD_INPUT;
  }
#endif
  long rows = 0, cols = 0, entries = -1;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '%') continue;
    if (sscanf(line, "%ld %ld %ld", &rows, &cols, &entries) == 3) break;
  }
  if (rows <= 0 || rows != cols || entries < 0) {
    fprintf(stderr, "slepc_shift_invert: '%s': size line missing or not square (%ld x %ld)\n", path, rows, cols);
    fclose(f);
    return BAD_INPUT;
  }
  PetscInt *ri, *ci, *per_row;
  PetscScalar *val;
  PetscCall(PetscMalloc4(entries, &ri, entries, &ci, entries, &val, rows, &per_row));
  PetscCall(PetscArrayzero(per_row, rows));
  for (long k = 0; k < entries; k++) {
    long i, j;
    double re = 0, im = 0;
    const int want = is_complex ? 4 : 3;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%ld %ld %lf %lf", &i, &j, &re, &im) < want ||
        i < 1 || i > rows || j < 1 || j > cols) {
      fprintf(stderr, "slepc_shift_invert: '%s': entry %ld missing or out of range\n", path, k + 1);
      PetscCall(PetscFree4(ri, ci, val, per_row));
      fclose(f);
      return BAD_INPUT;
    }
    ri[k] = (PetscInt)(i - 1);
    ci[k] = (PetscInt)(j - 1);
#if defined(PETSC_USE_COMPLEX)
    val[k] = PetscCMPLX(re, im);
#else
    val[k] = re;
#endif
    per_row[ri[k]]++;
    if (mirrored && ri[k] != ci[k]) per_row[ci[k]]++;
  }
  fclose(f);
  /* rows without entries still need a diagonal slot for A - sigma B */
  for (long r = 0; r < rows; r++) per_row[r] = PetscMin(per_row[r] + 1, (PetscInt)cols);
  Mat A;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, (PetscInt)rows, (PetscInt)cols, 0, per_row, &A));
  for (long k = 0; k < entries; k++) {
    PetscCall(MatSetValue(A, ri[k], ci[k], val[k], ADD_VALUES));
    if (mirrored && ri[k] != ci[k])
      PetscCall(MatSetValue(A, ci[k], ri[k], conjugate ? PetscConj(val[k]) : val[k], ADD_VALUES));
  }
  for (long r = 0; r < rows; r++) PetscCall(MatSetValue(A, (PetscInt)r, (PetscInt)r, 0.0, ADD_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  if (mirrored) PetscCall(MatSetOption(A, conjugate ? MAT_HERMITIAN : MAT_SYMMETRIC, PETSC_TRUE));
#if defined(PETSC_USE_COMPLEX)
  /* a real symmetric matrix is also Hermitian: the complex build may use EPS_HEP on it */
  if (mirrored && !conjugate && is_real) PetscCall(MatSetOption(A, MAT_HERMITIAN, PETSC_TRUE));
#else
  if (mirrored) PetscCall(MatSetOption(A, MAT_HERMITIAN, PETSC_TRUE));
#endif
  PetscCall(PetscFree4(ri, ci, val, per_row));
  *out = A;
  return 0;
}

static int is_hermitian(Mat M) {
  PetscBool known = PETSC_FALSE, flag = PETSC_FALSE;
  if (!M) return 1;
  MatIsHermitianKnown(M, &known, &flag);
  return known && flag;
}

static int by_real_part(const void *a, const void *b) {
  const PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  char pathA[PETSC_MAX_PATH_LEN] = "", pathB[PETSC_MAX_PATH_LEN] = "", method[32] = "krylovschur",
       factor[32] = "lu";
  PetscReal sigma = 0, tol = 1e-8;
  PetscInt nev = 4, maxit = 1000;
  PetscBool hasA, hasB;
  PetscMPIInt size;
  PetscCall(SlepcInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-A", pathA, sizeof pathA, &hasA));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-B", pathB, sizeof pathB, &hasB));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-sigma", &sigma, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nev", &nev, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-maxit", &maxit, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-method", method, sizeof method, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-factor", factor, sizeof factor, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  int status = 0;
  const int lobpcg = !strcmp(method, "lobpcg");
  if (!hasA) {
    fprintf(stderr, "slepc_shift_invert: -A FILE.mtx is required\n");
    status = BAD_INPUT;
  } else if (size != 1) {
    fprintf(stderr, "slepc_shift_invert: runs on 1 rank (PETSc's own factorizations are sequential), not %d\n", size);
    status = BAD_INPUT;
  } else if (!lobpcg && strcmp(method, "krylovschur")) {
    fprintf(stderr, "slepc_shift_invert: -method '%s' unknown (allowed: krylovschur, lobpcg)\n", method);
    status = BAD_INPUT;
  } else if (strcmp(factor, "lu") && strcmp(factor, "cholesky")) {
    fprintf(stderr, "slepc_shift_invert: -factor '%s' unknown (allowed: lu, cholesky)\n", factor);
    status = BAD_INPUT;
  } else if (nev < 1 || tol <= 0 || maxit < 1) {
    fprintf(stderr, "slepc_shift_invert: -nev and -maxit must be >= 1 and -tol > 0\n");
    status = BAD_INPUT;
  }
  Mat A = NULL, B = NULL;
  if (!status) status = read_matrix_market(pathA, &A);
  if (!status && hasB) status = read_matrix_market(pathB, &B);
  PetscInt n = 0;
  if (!status) {
    PetscInt nb = 0;
    PetscCall(MatGetSize(A, &n, NULL));
    if (B) PetscCall(MatGetSize(B, &nb, NULL));
    if (B && nb != n) {
      fprintf(stderr, "slepc_shift_invert: A is %d x %d but B is %d x %d\n", (int)n, (int)n, (int)nb, (int)nb);
      status = BAD_INPUT;
    } else if (nev > n) {
      fprintf(stderr, "slepc_shift_invert: -nev %d exceeds the size %d\n", (int)nev, (int)n);
      status = BAD_INPUT;
    }
  }
  if (status) {
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&B));
    PetscCall(SlepcFinalize());
    return status;
  }
  const int hermitian = is_hermitian(A) && is_hermitian(B);
  EPS eps;
  ST st;
  KSP ksp;
  PC pc;
  PetscCall(EPSCreate(PETSC_COMM_WORLD, &eps));
  PetscCall(EPSSetOperators(eps, A, B));
  PetscCall(EPSSetProblemType(eps, hermitian ? (B ? EPS_GHEP : EPS_HEP) : (B ? EPS_GNHEP : EPS_NHEP)));
  PetscCall(EPSSetDimensions(eps, nev, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(EPSSetTolerances(eps, tol, maxit));
  PetscCall(EPSGetST(eps, &st));
  if (lobpcg) {
    /* LOBPCG preconditioned by the exact inverse of A - sigma B: SLEPc's LOBPCG runs on STPRECOND
     * only, whose preconditioner matrix is A - sigma B; block = nev, smallest eigenvalues */
    PetscCall(EPSSetType(eps, EPSLOBPCG));
    PetscCall(EPSLOBPCGSetBlockSize(eps, nev));
    PetscCall(EPSSetWhichEigenpairs(eps, EPS_SMALLEST_REAL));
    PetscCall(STSetType(st, STPRECOND));
    PetscCall(STSetShift(st, sigma));
  } else {
    PetscCall(EPSSetType(eps, EPSKRYLOVSCHUR));
    PetscCall(STSetType(st, STSINVERT));
    PetscCall(EPSSetTarget(eps, sigma));
    PetscCall(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE));
  }
  PetscCall(STGetKSP(st, &ksp));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, strcmp(factor, "cholesky") ? PCLU : PCCHOLESKY));
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERPETSC));
  PetscCall(EPSSetFromOptions(eps));
  /* a solver that breaks down is a result (nconv = 0 and its message), not a crash of the runner */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  double t0 = MPI_Wtime();
  PetscErrorCode failure = EPSSetUp(eps); /* STSetUp: forms A - sigma B and factorizes it */
  double t1 = MPI_Wtime();
  if (!failure) failure = EPSSolve(eps);
  double t2 = MPI_Wtime();
  PetscCall(PetscPopErrorHandler());
  PetscInt nconv = 0, its = 0;
  const char *why = "none";
  if (failure) PetscErrorMessage(failure, &why, NULL);
  else PetscCall(EPSGetConverged(eps, &nconv));
  PetscCall(EPSGetIterationNumber(eps, &its)); /* after a breakdown: where it happened */
  const PetscInt kept = PetscMin(nconv, nev);
  PetscReal *values, worst = 0;
  PetscCall(PetscMalloc1(kept + 1, &values));
  for (PetscInt i = 0; i < kept; i++) { /* converged pairs come sorted by distance to sigma */
    PetscScalar lr, li;
    PetscReal err;
    PetscCall(EPSGetEigenvalue(eps, i, &lr, &li));
    PetscCall(EPSComputeError(eps, i, EPS_ERROR_BACKWARD, &err));
    values[i] = PetscRealPart(lr);
    worst = PetscMax(worst, err);
  }
  qsort(values, (size_t)kept, sizeof *values, by_real_part);
  MatInfo info;
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  printf("slepc_shift_invert method=%s factor=%s scalar=%s n=%d nnz=%.0f sigma=%.17g tol=%g nconv=%d its=%d "
         "setup_s=%.6f solve_s=%.6f time_s=%.6f max_backward_error=%.2e error=\"%s\" values=",
         method, factor,
#if defined(PETSC_USE_COMPLEX)
         "complex",
#else
         "real",
#endif
         (int)n, info.nz_used, (double)sigma, (double)tol, (int)nconv, (int)its, t1 - t0, t2 - t1, t2 - t0,
         (double)worst, why);
  for (PetscInt i = 0; i < kept; i++) printf("%s%.17g", i ? "," : "", (double)values[i]);
  printf("\n");
  PetscCall(PetscFree(values));
  PetscCall(EPSDestroy(&eps));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(SlepcFinalize());
  return 0;
}
