# Run at every build (cmake -P): the source tree's git commit, with
# "-modified" when tracked files differ from it, into build_info.h; the
# file is rewritten only when its text changes, so nothing rebuilds for
# nothing.  "unknown" outside a git checkout (a release tarball).
execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY "${NQ_SOURCE_DIR}"
                OUTPUT_VARIABLE NQ_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE git_failed ERROR_QUIET)
if(git_failed)
  set(NQ_GIT_COMMIT unknown)
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no
                  WORKING_DIRECTORY "${NQ_SOURCE_DIR}" OUTPUT_VARIABLE changes ERROR_QUIET)
  if(NOT changes STREQUAL "")
    string(APPEND NQ_GIT_COMMIT "-modified")
  endif()
endif()
configure_file("${NQ_SOURCE_DIR}/cmake/build_info.h.in" "${NQ_OUTPUT}" @ONLY)
