#!/bin/bash
# Session 30's multi-shift IDR(s) call on the lent GPU machine (`.debs` carried; issue 29): the seed's
# omega chosen for the whole family of shifts with a fixed seed (the new default) against the rules
# before (the seed's own omega, the seed moved to the laggard each cycle) and the per-energy batches.
#   check   the multi-shift tests on CUDA and CPU with HAMLET_TEST_REQUIRE=gpu,h5py (a skip fails), and
#           compute-sanitizer memcheck on test_idr_multishift_gpu;
#   bench   bench_multishift on the GPU, TI 40 x 40 x 16 (n = 102400), 101 energies in [-3, 3], eta
#           0.05, tol 1e-8, s = 4, all 8 site orbitals in one solve (the app's default): the new rules
#           with the per-energy batches at every 10th energy (scaled), then the old rules
#           (`--omega-rule seed --seed-switch 1`, no per-energy part), each under its own time limit;
#   large   the 3.2e6-orbital TI (200 x 100 x 40) with 2 right-hand sides per solve, per-energy at
#           every 20th energy (not in the default STEPS: it did not finish in 200 s before session 30).
#   run: bash scripts/device_multishift30.sh      STEPS="check bench" (default), STEPS="bench large"
# What to read: "seed steps", "shift columns updated" (per step: x (s + 3) vectors is the traffic),
# "sent to polish" and the two "multi-shift / per-energy time" lines (bench/RESULTS.md, session 30).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-check bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
status=0
if want check; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu,h5py ctest -R "multishift" --timeout 300 --output-on-failure \
    >"$OUT/ctest_multishift.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_multishift.log" | head -20
  exe=$(find build-gpu -name test_idr_multishift_gpu -type f -perm -u+x | head -1)
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" >"$OUT/memcheck_multishift.log" 2>&1
  code=$?
  echo "memcheck test_idr_multishift_gpu: exit $code"
  [ "$code" -eq 0 ] || { status=1; tail -8 "$OUT/memcheck_multishift.log"; }
fi
bench() { # bench NAME LIMIT ARGS...: bench_multishift on the GPU, its output in $OUT/bench_NAME.txt
  local name=$1 limit=$2; shift 2
  OMP_NUM_THREADS=16 timeout "$limit" build-gpu/bench/bench_multishift --backend cuda --copy-mib 1024 "$@" \
    >"$OUT/bench_$name.txt" 2>&1
  local code=$?
  echo "== $name (exit $code)"
  grep -vE "^(energy|  bound)" "$OUT/bench_$name.txt" | cut -c1-260
  [ "$code" -eq 0 ] || status=1
}
if want bench; then
  bench new 200 --ti 40 40 16 --energies 101 --rhs-per-solve 0 --per-energy-every 10
  bench old 120 --ti 40 40 16 --energies 101 --rhs-per-solve 0 --per-energy 0 --omega-rule seed --seed-switch 1
fi
if want large; then
  bench large 300 --ti 200 100 40 --energies 101 --rhs-per-solve 2 --per-energy-every 20
fi
echo "done at $SECONDS s, status $status"
exit $status
