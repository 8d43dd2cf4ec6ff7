#!/bin/bash
# Session 31's multi-shift IDR(s) call on the lent GPU machine (`.debs` carried; issue 29): the shift
# update reads and writes only the running (shift, right-hand side) columns, from a column list the
# device keeps until a system freezes (before: every column of a shift with a running column, the
# frozen ones rewritten with zeros).
#   check   test_shift_update, test_idr_multishift (1, 2, 3 ranks), test_idr_multishift_gpu and
#           e2e_green_multishift with HAMLET_TEST_REQUIRE=gpu,h5py (a skip fails), then compute-sanitizer
#           memcheck on test_idr_multishift_gpu (limit 150 s);
#   bench   bench_multishift on the GPU, session 30's case: TI 40 x 40 x 16 (n = 102400), 101 energies
#           in [-3, 3], eta 0.05, tol 1e-8, s = 4, all 8 site orbitals in one solve, the per-energy
#           batches at every 10th energy (scaled); then the same multi-shift solve with
#           `--whole-shifts 1` (session 30's kernel work, no per-energy part) for the same-run comparison.
#   run: bash scripts/device_multishift31.sh      (STEPS="check bench" by default; STEPS=bench skips the tests)
# Logs under $OUT; stdout has one summary line per step. What to read: "bound of the running columns"
# (the issue's 85%), "of all columns", the two multi-shift times and the per-energy batches' time.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-check bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
export OMP_NUM_THREADS=16
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# shellcheck disable=SC2086 # the flag list splits into words on purpose
timeout 120 cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { echo "configure failed"; tail -20 "$OUT/configure.log"; exit 1; }
timeout 400 cmake --build build-gpu -j "$(nproc)" --target hamlet_app hamlet_testhooks test_shift_update test_idr_multishift \
  test_idr_multishift_gpu bench_multishift >"$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error|Error" "$OUT/build.log" | head -20; exit 1; }
echo "built at $SECONDS s"
status=0
if want check; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu,h5py timeout 300 ctest \
    -R "^(test_shift_update|test_idr_multishift|test_idr_multishift_mpi2|test_idr_multishift_mpi3|test_idr_multishift_gpu|e2e_green_multishift)$" \
    --timeout 200 --output-on-failure >"$OUT/ctest_multishift.log" 2>&1) || status=1
  echo "ctest: $(grep -E "tests passed" "$OUT/ctest_multishift.log" || echo "no summary (see ctest_multishift.log)")"
  grep -E "\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_multishift.log" | head -10
  exe=build-gpu/linalg/tests/test_idr_multishift_gpu
  timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" >"$OUT/memcheck_multishift.log" 2>&1
  code=$?
  echo "memcheck test_idr_multishift_gpu: exit $code ($(grep -E "ERROR SUMMARY" "$OUT/memcheck_multishift.log" || echo "no summary"))"
  [ "$code" -eq 0 ] || { status=1; tail -8 "$OUT/memcheck_multishift.log"; }
fi
bench() { # bench NAME LIMIT ARGS...: bench_multishift on the GPU, its output in $OUT/bench_NAME.txt
  local name=$1 limit=$2; shift 2
  timeout "$limit" build-gpu/bench/bench_multishift --backend cuda --copy-mib 1024 --ti 40 40 16 --energies 101 \
    --rhs-per-solve 0 "$@" >"$OUT/bench_$name.txt" 2>&1
  local code=$?
  [ "$code" -eq 0 ] || status=1
  local ms bound pe
  ms=$(grep -E "^multi-shift \(" "$OUT/bench_$name.txt" | sed -E 's/.*: ([0-9.]+ s), ([0-9]+ of [0-9]+) systems.*/\1, \2 converged/')
  bound=$(grep -E "bound of the running columns" "$OUT/bench_$name.txt" | sed -E 's/^ *//' | cut -c1-230)
  pe=$(grep -E "^(per-energy batches:|multi-shift / per-energy)" "$OUT/bench_$name.txt" | cut -c1-120 | tr '\n' ' ')
  echo "bench $name (exit $code): multi-shift $ms; $bound${pe:+; $pe}"
}
if want bench; then
  bench columns 200 --per-energy-every 10
  bench whole 120 --per-energy 0 --whole-shifts 1
fi
echo "done at $SECONDS s, status $status"
exit $status
