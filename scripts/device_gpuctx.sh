#!/bin/bash
# GPU backend state per device (issue 26, section 6) on the lent GPU machine (`.debs` carried): the
# CUDA build; test_context_devices (contexts on every visible device and two on device 0, used in
# turns against the CPU, destroyed out of order, made again), the other GPU tests (every kernel-table
# call now goes through its device's table), test_context_device_errors on 2 ranks (a rank with a
# good device next to one with a bad number: both fail, none hangs); then compute-sanitizer memcheck
# and leakcheck on test_context_devices (the state of each device freed with its last context).
# On nvidia-h100-x2 the context test runs on both GPUs, and once more with CUDA_VISIBLE_DEVICES=1.
#   run: bash scripts/device_gpuctx.sh     (logs under $OUT)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
export HAMLET_TEST_REQUIRE=gpu,h5py
cd build-gpu || exit 1
status=0
ctest -R "test_context_devices|test_context_device_errors" -V >"$OUT/ctest_context.log" 2>&1 || status=1
grep -E "FAIL|PASS|tests passed|\(Failed\)|HAMLET_TEST_SEED" "$OUT/ctest_context.log" | head -20
devices=$(nvidia-smi -L | wc -l)
if [ "$devices" -gt 1 ]; then
  CUDA_VISIBLE_DEVICES=1 ./linalg/tests/test_context_devices >"$OUT/context_device1.log" 2>&1 || status=1
  echo "test_context_devices with CUDA_VISIBLE_DEVICES=1: $(tail -1 "$OUT/context_device1.log")"
fi
ctest -L gpu --output-on-failure >"$OUT/ctest_gpu.log" 2>&1 || status=1
grep -E "tests passed|\(Failed\)|Skipped|Not Run" "$OUT/ctest_gpu.log" | head -20
for tool in memcheck "memcheck --leak-check full"; do
  # shellcheck disable=SC2086 # the tool and its options split into words on purpose
  compute-sanitizer --tool $tool --error-exitcode 9 ./linalg/tests/test_context_devices >"$OUT/sanitizer.log" 2>&1
  code=$?
  echo "compute-sanitizer $tool test_context_devices: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -30 "$OUT/sanitizer.log"; }
done
echo "device_gpuctx: $devices GPUs, exit $status at $SECONDS s"
exit "$status"
