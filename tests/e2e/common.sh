# Shared by the end-to-end scripts: a scratch folder, a failure counter, checks.
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hamlet-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
FAILURES=0
fail() { echo "FAIL: $*"; FAILURES=$((FAILURES + 1)); }
run2() { "$MPIEXEC" -n 2 "$HAMLET" "$@"; }
# The checks read HDF5 with Debian's python3-h5py (installed by scripts/setup_debian.sh).
need_h5py() {
  /usr/bin/python3 -c "import h5py, numpy" 2>/dev/null || { echo "no h5py for /usr/bin/python3: skipped"; exit 77; }
}
finish() {
  if [ "$FAILURES" -eq 0 ]; then echo PASSED; exit 0; fi
  echo "FAILED ($FAILURES)"; exit 1
}
