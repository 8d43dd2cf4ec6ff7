# Shared by the end-to-end scripts: a scratch folder, a failure counter, checks.
set -u
# shellcheck source=tests/e2e/need.sh
. "$(dirname "${BASH_SOURCE[0]}")/need.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hamlet-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
FAILURES=0
fail() { echo "FAIL: $*"; FAILURES=$((FAILURES + 1)); }
run2() { "$MPIEXEC" -n 2 "$HAMLET" "$@"; }
# wait_step FILE PID: wait until the slowed run PID (HAMLET_TEST_STEP_FILE=FILE) has done a step, or
# ended, or 120 s passed: the event to signal it on, not a guess of its speed.
wait_step() {
  local tries=0
  while [ ! -e "$1" ] && kill -0 "$2" 2>/dev/null && [ "$tries" -lt 2400 ]; do
    sleep 0.05
    tries=$((tries + 1))
  done
}
# The checks read HDF5 with Debian's python3-h5py (installed by scripts/setup_debian.sh); where
# HAMLET_TEST_REQUIRE names h5py (CI and the device scripts set it) a missing h5py fails instead of skipping.
# The Python that has numpy and h5py: Debian's /usr/bin/python3 here and in CI; the device scripts
# name the GPU machine's own (scripts/gpu_host_env.sh), whose /usr/bin/python3 has no h5py.
PYTHON=${HAMLET_TEST_PYTHON:-/usr/bin/python3}
need_h5py() { need h5py "no h5py/numpy for ${HAMLET_TEST_PYTHON:-$PYTHON}" python_has "h5py, numpy"; }
finish() {
  if [ "$FAILURES" -eq 0 ]; then echo PASSED; exit 0; fi
  echo "FAILED ($FAILURES)"; exit 1
}
