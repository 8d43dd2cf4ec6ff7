#!/bin/bash
# Session 29's shift-and-invert speed-ups on the lent GPU machine (`.debs` carried, as for
# device_reliability.sh): the Krylov-Schur basis now takes its Gram-Schmidt coefficients as
# w^H (B V)[:, 0:n] (a one-column X against a column range of Y) and shares V with B V where B = I;
# this runs test_krylov_schur and test_mvec_block on the CUDA backend (1 and 2 or 3 ranks; a skip
# fails through HAMLET_TEST_REQUIRE=gpu) and on the CPU, and compute-sanitizer memcheck on both
# CUDA runs.
#   run: bash scripts/device_ksfast.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# shellcheck disable=SC2086 # the flag list splits into words on purpose
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j 16 --target test_krylov_schur test_mvec_block >"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
cd build-gpu || exit 1
status=0
HAMLET_TEST_REQUIRE=gpu ctest -R "^test_krylov_schur|^test_mvec_block" -V >"$OUT/ctest.log" 2>&1 || status=1
grep -E "tests passed|Failed|Skipped" "$OUT/ctest.log" | head -10
for t in test_krylov_schur test_mvec_block; do
  exe=$(find . -name "$t" -type f -perm -u+x | head -1)
  compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" cuda >"$OUT/memcheck_$t.log" 2>&1
  code=$?
  echo "memcheck $t cuda: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_$t.log"; }
done
echo "device_ksfast: exit $status at $SECONDS s"
exit "$status"
