#!/bin/bash
# Issue 32's thick-restart Lanczos (Krylov-Schur) on the lent GPU machine (`.debs` carried, as for
# device_reliability.sh): the CUDA build, test_krylov_schur on the CUDA backend (1 and 2 ranks; a
# skip fails through HAMLET_TEST_REQUIRE=gpu) and on the CPU, compute-sanitizer memcheck on the CUDA
# run, and the column solves of Krylov-Schur and LOBPCG that the test prints (solves.txt); session 29:
# the checkpoint / stop / resume case inside test_krylov_schur (bit for bit on the GPU too), and
# e2e_krylov_schur_restart and e2e_krylov_schur with backend auto (= cuda there: kill, SIGTERM,
# restart, progress lines, outer = auto); and test_mvec_block on CUDA with its memcheck (the
# basis's Gram-Schmidt takes w^H (B V)[:, 0:n]: one column against a column range). Session 30:
# test_krylov_schur_multiplets (every copy of the degenerate FEM cubes' multiplets through the
# verification; its lines with "copies found" in multiplets.txt) on CUDA and CPU, with memcheck.
# Session 31: the CPU backend's basis moved to column-major host arrays (the CUDA path keeps its
# blocks: this script shows it unchanged) and sigma = 0 factors A alone (host code on every backend:
# e2e_shift_invert and e2e_shift_invert_inner(_cuda) below).
#   run: bash scripts/device_krylov_schur.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# shellcheck disable=SC2086 # the flag list splits into words on purpose
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j 16 --target test_krylov_schur test_krylov_schur_multiplets test_mvec_block hamlet_app hamlet_testhooks >"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
cd build-gpu || exit 1
status=0
HAMLET_TEST_REQUIRE=gpu ctest -R "^test_krylov_schur|^test_mvec_block" -V >"$OUT/ctest.log" 2>&1 || status=1
grep -E "tests passed|Failed|Skipped" "$OUT/ctest.log" | head -10
grep -E "column solves" "$OUT/ctest.log" | tee "$OUT/solves.txt"
grep -E "copies found|MISSED|in all" "$OUT/ctest.log" >"$OUT/multiplets.txt"
for t in test_krylov_schur test_krylov_schur_multiplets test_mvec_block; do
  exe=$(find . -name "$t" -type f -perm -u+x | head -1)
  compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" cuda >"$OUT/memcheck_$t.log" 2>&1
  code=$?
  echo "memcheck $t cuda: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_$t.log"; }
done
HAMLET_TEST_REQUIRE=h5py ctest -R "^e2e_krylov_schur|^e2e_shift_invert" -V >"$OUT/ctest_e2e.log" 2>&1 || status=1
grep -E "PASS|FAIL|tests passed" "$OUT/ctest_e2e.log" | head -40
echo "device_krylov_schur: exit $status at $SECONDS s"
exit "$status"
