# shellcheck shell=bash
# The tally every shell test keeps (e2e_lib.sh, install.sh,
# without_check.sh source it): pass and fail count the checks, a failure
# prints one line, `finish` prints "N passed, M failed" and exits 1 on
# any failure, `skip REASON` exits 77 (ctest's SKIP_RETURN_CODE) unless a
# check has already failed.
passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() {
  failed=$((failed + 1))
  echo "FAIL: $*"
}
# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
  local what=$1
  shift
  if "$@"; then pass; else fail "$what"; fi
}
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}
skip() {
  if [ "$failed" -ne 0 ]; then
    finish
  fi
  echo "SKIPPED: $*"
  exit 77
}
