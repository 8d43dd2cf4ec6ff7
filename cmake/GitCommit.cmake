# Provenance: the git commit the build came from, with "-dirty" where tracked files differ from it.
# Run at configure time (include) and again before every build of the library (cmake -P, from the
# hamlet_git_commit target), so a rebuild after a commit or an edit never reports an old commit.
# In: HAMLET_GIT_SOURCE_DIR, HAMLET_GIT_HEADER. Out: HAMLET_GIT_COMMIT; the header rewritten only when it changes
# (so an unchanged commit recompiles nothing).
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${HAMLET_GIT_SOURCE_DIR}
                OUTPUT_VARIABLE HAMLET_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR NOT HAMLET_GIT_COMMIT)
  set(HAMLET_GIT_COMMIT "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${HAMLET_GIT_SOURCE_DIR}
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    set(HAMLET_GIT_COMMIT "${HAMLET_GIT_COMMIT}-dirty")
  endif()
endif()
set(text "#define HAMLET_GIT_COMMIT \"${HAMLET_GIT_COMMIT}\"\n")
set(old "")
if(EXISTS ${HAMLET_GIT_HEADER})
  file(READ ${HAMLET_GIT_HEADER} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${HAMLET_GIT_HEADER} "${text}")
endif()
