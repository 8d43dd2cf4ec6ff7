#include "checkpoint_due.h"
#include "error_macros.h"

int hm_checkpoint_due(MPI_Comm comm, int count, int every, double seconds, double t_last, int *due) {
  *due = every > 0 && count % every == 0;
  if (seconds > 0) {
    int late = MPI_Wtime() - t_last >= seconds;
    HM_CALL_MPI(MPI_Bcast(&late, 1, MPI_INT, 0, comm));
    *due |= late;
  }
  return HM_SUCCESS;
}
