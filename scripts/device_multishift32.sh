#!/bin/bash
# Issue 29, session 32, one GPU (`.debs` and `.device` carried): the packed shift update and the
# claimed-only true-residual checks against the code before them, in the same call.
#   check  build build-gpu (this tree); test_shift_update, test_idr_multishift(_gpu) and memcheck
#          of test_idr_multishift_gpu
#   ab     build-gpu-old from .device/old.tar (`git archive 17b0987 -o .device/old.tar`: main before
#          session 32) and bench_multishift on session 30's case (TI 40 x 40 x 16, 101 energies,
#          8 right-hand sides in one solve), old / new interleaved, AB_ROUNDS times
#   kernel bench_shift_update: the update kernel alone (settled, packing, whole layouts) against the
#          copy bandwidth, session 30's shape (102400 rows, 101 shifts x 8 right-hand sides, 628 running)
#   large  the issue's case: TI 200 x 100 x 40 (3.2e6 orbitals), 101 energies, 2 sites, 2 right-hand
#          sides per solve (memory), with the per-energy batches at every 20th energy
# Logs in $OUT (at most 8 files come back); a summary on stdout.
#   run: STEPS="check ab" bash scripts/device_multishift32.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-check ab}
AB_ROUNDS=${AB_ROUNDS:-2}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
status=0
# shellcheck source=scripts/device_build_tree.sh
source scripts/device_build_tree.sh
bench() { # bench DIR NAME ARGS...
  local dir=$1 name=$2; shift 2
  OMP_NUM_THREADS=16 timeout "${BENCH_LIMIT:-280}" "$dir/bench/bench_multishift" --backend cuda --copy-mib 1024 "$@" \
    >>"$OUT/bench_$name.txt" 2>&1 || status=1
  echo "$name: $(grep -E "^multi-shift \(" "$OUT/bench_$name.txt" | tail -1 | cut -c1-120)"
  grep -E "^  bound|seconds: seed|per seed step|^per-energy|ratio" "$OUT/bench_$name.txt" | tail -5 | cut -c1-260
}
build_tree . build-gpu test_shift_update test_idr_multishift test_idr_multishift_gpu bench_multishift bench_shift_update || exit 1
if want check; then
  (cd build-gpu && timeout 200 ctest -R "test_shift_update|test_idr_multishift" --output-on-failure >"$OUT/ctest.log" 2>&1) ||
    status=1
  grep -E "Test +#|tests passed" "$OUT/ctest.log" | head -10
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/linalg/tests/test_idr_multishift_gpu \
    >"$OUT/memcheck.log" 2>&1
  echo "memcheck test_idr_multishift_gpu: exit $? ($(grep -c "Invalid" "$OUT/memcheck.log") invalid accesses)"
fi
if want kernel; then
  for r in 628 300; do
    timeout 60 build-gpu/bench/bench_shift_update --backend cuda --running "$r" --reps 50 | tee -a "$OUT/kernel.txt"
  done
fi
if want ab; then
  mkdir -p old-src && tar -xf .device/old.tar -C old-src && build_tree old-src build-gpu-old bench_multishift || exit 1
  for r in $(seq "$AB_ROUNDS"); do
    for v in old new; do
      dir=build-gpu; [ "$v" = old ] && dir=build-gpu-old
      echo "round $r"; bench "$dir" "ab_$v" --ti 40 40 16 --energies 101 --rhs-per-solve 0 --per-energy 0
    done
  done
fi
if want large; then
  BENCH_LIMIT=540 bench build-gpu large --ti 200 100 40 --energies 101 --sites 2 --rhs-per-solve 2 --per-energy-every 20
fi
echo "done at $SECONDS s, status $status"
exit $status
