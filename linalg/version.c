/* hm_version: the version and the git commit the library was built from. */
#include "hamlet.h"
#include "hamlet_git_commit.h" /* generated before each build (cmake/GitCommit.cmake) */

const char *hm_version(void) { return HAMLET_VERSION " (git " HAMLET_GIT_COMMIT ")"; }
