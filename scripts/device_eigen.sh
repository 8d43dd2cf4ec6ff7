#!/bin/bash
# Issue 32 (LOBPCG convergence tests and locking) on the lent GPU machine (`.debs` carried): the
# CUDA build, the LOBPCG GPU tests (GPU against CPU on fresh random inputs, 1 and 2 ranks),
# compute-sanitizer memcheck on test_lobpcg_gpu, and e2e_lobpcg_hard (the matrices of issue 32's
# structure, 1 and 2 ranks) on the CPU and with backend = cuda, iterations and accuracy to $OUT.
#   run: bash scripts/device_eigen.sh        STEPS="gpu sanitize hard" (default all)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize hard}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
cd build-gpu || exit 1
status=0
export HAMLET_TEST_REQUIRE=gpu,h5py # a test that would skip fails
if want gpu; then
  ctest -R "lobpcg|mvec_internal" -L gpu --output-on-failure >"$OUT/ctest_gpu.log" 2>&1 || status=1
  grep -E "tests passed|Failed|Skipped|Not Run" "$OUT/ctest_gpu.log" | head -20
fi
if want sanitize; then
  exe=$(find . -name test_lobpcg_gpu -type f -perm -u+x | head -1)
  compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" >"$OUT/memcheck_lobpcg.log" 2>&1
  code=$?
  echo "memcheck test_lobpcg_gpu: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_lobpcg.log"; }
fi
if want hard; then
  for backend in cpu cuda; do
    HAMLET_TEST_BACKEND=$backend ctest -R e2e_lobpcg_hard --output-on-failure >"$OUT/hard_$backend.log" 2>&1 || status=1
    grep -E "tests passed|FAIL" "$OUT/hard_$backend.log" | head -20
  done
fi
echo "done at $SECONDS s, status $status"
exit "$status"
