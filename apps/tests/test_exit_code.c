/* The one status -> exit code map of the hamlet program: every status the library has, and the codes
 * the README documents (0 ok, 1 failure during the run, 2 bad input, 3 not converged, 4 stopped). */
#include "app.h"
#include "testing.h"

#define EXPECT_CODE(name, value, text) expect(name, #name, value);

static void expect(int status, const char *name, int unused) {
  (void)unused;
  int want = HM_EXIT_FAIL;
  if (status == HM_SUCCESS) want = HM_EXIT_OK;
  if (status == HM_ERR_DECK || status == HM_ERR_INPUT) want = HM_EXIT_USAGE;
  if (status == HM_ERR_NOT_CONVERGED) want = HM_EXIT_NOT_CONVERGED;
  if (status == HM_ERR_STOPPED) want = HM_EXIT_STOPPED;
  int got = hm_app_exit_code(status);
  HM_TEST_ASSERT(got == want, "%s (%d) gives exit code %d, expected %d", name, status, got, want);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  HM_TEST_ASSERT(hm_app_exit_code(HM_SUCCESS) == 0, "success must give exit code 0");
  HM_TEST_ASSERT(hm_app_exit_code(HM_ERR_INPUT) == 2 && hm_app_exit_code(HM_ERR_DECK) == 2,
                 "bad input files and decks must give exit code 2");
  HM_TEST_ASSERT(hm_app_exit_code(HM_ERR_IO) == 1 && hm_app_exit_code(HM_ERR_MEMORY) == 1,
                 "failures during the run must give exit code 1");
  HM_TEST_ASSERT(hm_app_exit_code(HM_ERR_NOT_CONVERGED) == 3, "not converged must give exit code 3");
  HM_TEST_ASSERT(hm_app_exit_code(HM_ERR_STOPPED) == 4, "stopped must give exit code 4");
  HM_TEST_ASSERT(hm_app_exit_code(12345) == 1, "an unknown status must give exit code 1");
  HM_ERROR_LIST(EXPECT_CODE)
  return hm_test_finish();
}
