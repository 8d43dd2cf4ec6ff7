# Shared by the end-to-end scripts: a scratch folder, a failure counter, checks.
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hamlet-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
FAILURES=0
fail() { echo "FAIL: $*"; FAILURES=$((FAILURES + 1)); }
run2() { "$MPIEXEC" -n 2 "$HAMLET" "$@"; }
# The checks read HDF5 with Debian's python3-h5py (installed by scripts/setup_debian.sh); where
# HAMLET_TEST_REQUIRE names h5py (the device scripts set it) a missing h5py fails instead of skipping.
# The Python that has numpy and h5py: Debian's /usr/bin/python3 here and in CI; the device scripts
# name the GPU machine's own (scripts/gpu_host_env.sh), whose /usr/bin/python3 has no h5py.
PYTHON=${HAMLET_TEST_PYTHON:-/usr/bin/python3}
requires() { case ",${HAMLET_TEST_REQUIRE:-}," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
need_h5py() {
  local python=${HAMLET_TEST_PYTHON:-$PYTHON}
  "$python" -c "import h5py, numpy" 2>/dev/null && return 0
  if requires h5py; then echo "FAIL: no h5py/numpy for $python, but HAMLET_TEST_REQUIRE=$HAMLET_TEST_REQUIRE requires it"; exit 1; fi
  echo "no h5py for $python: skipped"; exit 77
}
finish() {
  if [ "$FAILURES" -eq 0 ]; then echo PASSED; exit 0; fi
  echo "FAILED ($FAILURES)"; exit 1
}
