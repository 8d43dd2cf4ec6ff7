/* The one place a library status becomes the program's exit code (documented in the README). */
#include "app.h"

int hm_app_exit_code(int status) {
  switch (status) {
    case HM_SUCCESS: return HM_EXIT_OK;
    case HM_ERR_DECK:
    case HM_ERR_INPUT: return HM_EXIT_USAGE; /* bad input: deck, files, checkpoints, paths */
    case HM_ERR_NOT_CONVERGED: return HM_EXIT_NOT_CONVERGED;
    case HM_ERR_STOPPED: return HM_EXIT_STOPPED;
    default: return HM_EXIT_FAIL; /* a failure during the run */
  }
}
