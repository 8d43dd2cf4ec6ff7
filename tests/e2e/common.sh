# Shared by the end-to-end scripts: a scratch folder, a failure counter, checks.
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hamlet-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
FAILURES=0
fail() { echo "FAIL: $*"; FAILURES=$((FAILURES + 1)); }
run2() { "$MPIEXEC" -n 2 "$HAMLET" "$@"; }
finish() {
  if [ "$FAILURES" -eq 0 ]; then echo PASSED; exit 0; fi
  echo "FAILED ($FAILURES)"; exit 1
}
