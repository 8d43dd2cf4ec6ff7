#!/bin/bash
# Session 27's work on the lent GPU machine (`.debs` carried), in two parts so each fits one call:
#   check  every GPU test with HAMLET_TEST_REQUIRE=gpu,h5py (a skip fails), then compute-sanitizer
#          memcheck on the new GPU tests: contexts per device (with the leak check), the Chern marker,
#          A(k, E) start vectors, the blocked conductivity, the matrix-free products, multi-shift IDR(s),
#          and a shift-and-invert run with the iterative inner solve;
#   bench  the short benchmarks of the session: the matrix-free step of three models on the GPU and
#          on the host cores, the conductivity moments at N = 10^7 (M = 1024, R = 16), A(k, E) against
#          the KPM step of the same slab, after the CUDA variant of e2e_shift_invert_inner.
#   run: bash scripts/device_session27.sh check|bench
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
part=${1:-check}
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh
status=0
if [ "$part" = check ]; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu,h5py ctest -L gpu -j4 --timeout 300 --output-on-failure >"$OUT/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_gpu.log" | head -20
  cd build-gpu || exit 1
  memcheck() { # memcheck NAME COMMAND...: compute-sanitizer memcheck, 150 s at most
    local name=$1; shift
    timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$@" >"$OUT/memcheck_$name.log" 2>&1
    local code=$?
    echo "memcheck $name: exit $code" | tee -a "$OUT/sanitizer.txt"
    [ "$code" -eq 0 ] || { status=1; tail -8 "$OUT/memcheck_$name.log"; }
  }
  memcheck context_devices --leak-check full ./linalg/tests/test_context_devices
  memcheck marker ./linalg/tests/test_marker cuda
  memcheck spectral ./linalg/tests/test_spectral_start cuda
  memcheck conductivity "$(find . -name test_conductivity_exact -type f -perm -u+x | head -1)" cuda 5
  memcheck stencil_free "$(find . -name test_stencil_free -type f -perm -u+x | head -1)" cuda
  memcheck multishift "$(find . -name test_idr_multishift_gpu -type f -perm -u+x | head -1)"
  cd .. && STEPS=sanitize timeout 150 bash scripts/device_eigen2.sh >"$OUT/eigen2.log" 2>&1 || status=1
  grep -E "memcheck" "$OUT/eigen2.log"
fi
if [ "$part" = bench ]; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu,h5py ctest -R e2e_shift_invert_inner_cuda --output-on-failure 2>&1 | tail -4)
  THREADS=16 STEPS=bench timeout 120 bash scripts/device_stencil.sh 2>&1 | grep -E "ratio|bandwidth|CPU run" | head -40
  STEPS=bench BENCH_M=1024 timeout 110 bash scripts/device_conductivity2.sh 2>&1 | tail -14
  STEPS=bench timeout 50 bash scripts/device_spectral.sh 2>&1 | tail -10
fi
echo "done at $SECONDS s, status $status"
exit $status
