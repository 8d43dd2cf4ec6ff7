#!/bin/bash
# Session 29's last GPU call (`.debs` carried), after the merges: every GPU test with
# HAMLET_TEST_REQUIRE=gpu,h5py (a skip fails; new: the few-orbital stencil kernel's tests, MINRES as
# shift-and-invert's indefinite inner solve on CUDA in e2e_shift_invert_inner_cuda and
# test_idr_shell_gpu, Krylov-Schur as the default outer method with its checkpoints, the batched
# multi-shift polish), compute-sanitizer memcheck on the new GPU paths, then the multi-shift
# benchmark on the 40 x 40 x 16 TI with 8 right-hand sides per solve (issue 29).
#   run: bash scripts/device_session29b.sh      STEPS="check memcheck multishift" (default all)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-check memcheck multishift}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh
status=0
if want check; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu,h5py ctest -L gpu -j4 --timeout 300 --output-on-failure \
    >"$OUT/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_gpu.log" | head -20
fi
memcheck() { # memcheck NAME COMMAND...: compute-sanitizer memcheck, 150 s at most
  local name=$1; shift
  timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$@" >"$OUT/memcheck_$name.log" 2>&1
  local code=$?
  echo "memcheck $name: exit $code"
  [ "$code" -eq 0 ] || { status=1; tail -8 "$OUT/memcheck_$name.log"; }
}
if want memcheck; then
  HAMLET_STENCIL_KERNEL=small memcheck stencil_small build-gpu/linalg/tests/test_stencil_free cuda
  memcheck idr_shell build-gpu/linalg/tests/test_idr_shell_gpu
  memcheck multishift "$(find build-gpu -name test_idr_multishift_gpu -type f -perm -u+x | head -1)"
fi
if want multishift; then
  NX=40 NY=40 NZ=16 RHS=0 STEPS=bench timeout 250 bash scripts/device_multishift.sh 2>&1 |
    grep -vE "^(built|NVIDIA)" | tail -12
fi
echo "done at $SECONDS s, status $status"
exit $status
