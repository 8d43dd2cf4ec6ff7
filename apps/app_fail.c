/* Ending the program after a failure without losing any rank's message. Every failing rank prints
 * and flushes first, then all ranks meet on a communicator of their own with a bounded wait: when
 * every rank arrives (the failure was agreed), MPI ends normally with the exit code; a rank that
 * does not arrive in time is stuck elsewhere, and only then is MPI_Abort used. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "app.h"

static MPI_Comm fail_comm = MPI_COMM_NULL;
static void (*cleanup)(void *);
static void *cleanup_arg;

void hm_app_on_failure(void (*fn)(void *), void *arg) {
  cleanup = fn;
  cleanup_arg = arg;
}

/* Long enough for ranks that failed a moment later (their message printed first), short enough
 * that a rank stuck in a collective is not waited for long. */
static const double WAIT_SECONDS = 5.0;

void hm_app_fail_init(void) {
  if (fail_comm == MPI_COMM_NULL) MPI_Comm_dup(MPI_COMM_WORLD, &fail_comm);
}

void hm_app_fail_free(void) {
  if (fail_comm != MPI_COMM_NULL) MPI_Comm_free(&fail_comm);
}

_Noreturn void hm_app_exit(int code) {
  fflush(stdout);
  fflush(stderr);
  MPI_Request req;
  int arrived = 0;
  if (fail_comm != MPI_COMM_NULL && MPI_Ibarrier(fail_comm, &req) == MPI_SUCCESS) {
    const double deadline = MPI_Wtime() + WAIT_SECONDS;
    while (!arrived && MPI_Wtime() < deadline) {
      if (MPI_Test(&req, &arrived, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
      if (!arrived) usleep(1000);
    }
  }
  if (!arrived) MPI_Abort(MPI_COMM_WORLD, code); /* some rank waits elsewhere: nothing else ends it */
  int worst = code;
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, fail_comm);
  if (cleanup) cleanup(cleanup_arg); /* collective: every rank is here */
  hm_app_fail_free();
  MPI_Finalize();
  exit(worst);
}

_Noreturn void hm_app_fail(int rank, int status) {
  fprintf(stderr, "hamlet: rank %d failed:\n%s", rank, hm_error_message());
  hm_app_exit(hm_app_exit_code(status));
}
