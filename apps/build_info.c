/* `hamlet --version`: the version and what this build was configured with (cmake/HamletBuildInfo.cmake),
 * plus the MPI library actually loaded, which may differ from the one built against. */
#include <mpi.h>
#include <string.h>
#include "build_info.h"
#include "hamlet.h"
#include "hamlet_build_info.h"

void hm_app_print_version(FILE *f) {
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  mpi[strcspn(mpi, "\n")] = '\0'; /* MPICH's first line names it and its version */
  for (char *c = mpi; *c; c++)
    if (*c == '\t') *c = ' ';
  fprintf(f, "hamlet %s\n", hm_version());
  fprintf(f, "  library    : libhamlet.so.%s (shared) and libhamlet.a, %s build, %s\n", HAMLET_INFO_ABI,
          HAMLET_INFO_BUILD_TYPE, HAMLET_INFO_C_COMPILER);
  fprintf(f, "  CUDA       : %s\n", HAMLET_INFO_CUDA);
  fprintf(f, "  Fortran    : %s\n", HAMLET_INFO_FORTRAN);
  fprintf(f, "  MPI        : %s (built with %s, MPI %s)\n", mpi, HAMLET_INFO_MPI_COMPILER, HAMLET_INFO_MPI_STANDARD);
  fprintf(f, "  HDF5       : %s\n", HAMLET_INFO_HDF5);
  fprintf(f, "  BLAS       : %s\n", HAMLET_INFO_BLAS);
  fprintf(f, "  LAPACK     : %s (LAPACKE %s)\n", HAMLET_INFO_LAPACK, HAMLET_INFO_LAPACKE);
  fprintf(f, "  ScaLAPACK  : %s\n", HAMLET_INFO_SCALAPACK);
  fprintf(f, "  FFTW       : %s\n", HAMLET_INFO_FFTW);
  fprintf(f, "  OpenMP     : %s\n", HAMLET_INFO_OPENMP);
  fprintf(f, "  libinih    : %s\n", HAMLET_INFO_INIH);
}
