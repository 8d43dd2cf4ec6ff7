/* The context's communicator returns MPI errors (MPI_ERRORS_RETURN) instead of aborting, so a library
 * call that fails in MPI gives its caller a status; the caller's own communicator keeps its handler. */
#include <mpi.h>
#include "testing.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hm_context *ctx;
  HM_TEST_OK(hm_context_create(MPI_COMM_WORLD, HM_BACKEND_CPU, &ctx));
  MPI_Comm comm;
  HM_TEST_OK(hm_context_comm(ctx, &comm));
  MPI_Errhandler mine, world;
  MPI_Comm_get_errhandler(comm, &mine);
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
  HM_TEST_ASSERT(mine == MPI_ERRORS_RETURN, "the context's communicator does not return MPI errors");
  HM_TEST_ASSERT(world != MPI_ERRORS_RETURN, "the caller's MPI_COMM_WORLD had its error handler changed");
  /* A send to a rank that does not exist: an error code back, not the end of the program. */
  int x = 1, code = MPI_Send(&x, 1, MPI_INT, size, 0, comm), class = MPI_SUCCESS;
  MPI_Error_class(code, &class);
  HM_TEST_ASSERT(code != MPI_SUCCESS && class == MPI_ERR_RANK, "MPI_Send to rank %d returned %d (class %d)", size,
                 code, class);
  MPI_Errhandler_free(&mine);
  MPI_Errhandler_free(&world);
  hm_context_destroy(&ctx);
  return hm_test_finish();
}
