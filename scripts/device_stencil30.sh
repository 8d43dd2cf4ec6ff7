#!/bin/bash
# Issue 27, session 30, on the lent GPU machine (`.debs` carried): the few-orbital matrix-free step
# (gpu/stencil_small_cuda.cu, graphene- and Wannier-like models) after session 29's failures. One
# short run, four files under $OUT (build.log, tests.log, memcheck.log, bench.log), a summary line
# per step on stdout:
#   1. the CUDA build (-lineinfo: the sanitizer names source lines) of test_stencil_free and
#      bench_stencil only;
#   2. test_stencil_free on the GPU with HAMLET_TEST_REQUIRE=gpu (a skip fails): session 29's
#      failing seed (HAMLET_TEST_SEED=1795661320, trials 27 and 29) with the new kernel forced
#      (HAMLET_STENCIL_KERNEL=small, also 4 orbitals) and, as the control, with the per-site kernel
#      forced (=site), 1 rank; fresh seeds: the new kernel forced on 2 ranks, the automatic choice
#      (the new kernel for 1 and 2 orbitals) on 1 and 2 ranks;
#   3. compute-sanitizer memcheck of the forced kernel on that seed, the small-lattice trials
#      (24-29 faces, 38-49 1..7 cells) only, so that it fits its 150 s: must say 0 errors;
#   4. bench_stencil, graphene 4096 x 2048 and wannier30 160 x 160 x 64 at R = 32, the per-site
#      kernel (HAMLET_STENCIL_KERNEL=site) against the new one (=small), one round.
#   run: bash scripts/device_stencil30.sh        (STEPS="test memcheck bench" by default)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-test memcheck bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
# shellcheck disable=SC2086 # the flag list splits into words on purpose
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON -DCMAKE_CUDA_FLAGS=-lineinfo \
  ${HAMLET_DEVICE_CMAKE_FLAGS:-} >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
cmake --build build-gpu -j 16 --target test_stencil_free bench_stencil >>"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
echo "built at $SECONDS s"
status=0
exe=build-gpu/linalg/tests/test_stencil_free
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra # the carried MPICH
run_test() { # run_test NAME RANKS KERNEL SEED (KERNEL: auto, small or site; SEED: a replay or "fresh")
  local env=(HAMLET_TEST_REQUIRE=gpu)
  [ "$3" = auto ] || env+=("HAMLET_STENCIL_KERNEL=$3")
  [ "$4" = fresh ] || env+=("HAMLET_TEST_SEED=$4")
  echo "=== $1: $2 rank(s), kernel $3, seed $4" >>"$OUT/tests.log"
  env "${env[@]}" OMP_NUM_THREADS=4 timeout 120 "$MPIEXEC" -n "$2" "$exe" cuda >>"$OUT/tests.log" 2>&1
  local code=$?
  echo "$1: exit $code ($SECONDS s)"
  [ "$code" -eq 0 ] || status=1
}
if want test; then
  : >"$OUT/tests.log"
  run_test replay_small_np1 1 small 1795661320
  run_test replay_site_np1 1 site 1795661320
  run_test small_np2 2 small fresh
  run_test auto_np1 1 auto fresh
  run_test auto_np2 2 auto fresh
  grep -E "^FAIL|HAMLET_TEST_SEED" "$OUT/tests.log" | head -12
fi
if want memcheck; then
  HAMLET_TEST_REQUIRE=gpu HAMLET_TEST_SEED=1795661320 HAMLET_STENCIL_KERNEL=small timeout 150 \
    compute-sanitizer --tool memcheck --show-backtrace device --error-exitcode 9 "$exe" cuda 24-29,38-49 \
    >"$OUT/memcheck.log" 2>&1
  code=$?
  echo "memcheck (forced, trials 24-29,38-49): exit $code, $(grep -E "ERROR SUMMARY" "$OUT/memcheck.log" | tail -1)"
  [ "$code" -eq 0 ] || { status=1; grep -m 8 -E "Invalid|at .*stencil.*:[0-9]+|Address" "$OUT/memcheck.log"; }
fi
if want bench; then
  : >"$OUT/bench.log"
  for model in "graphene 4096 2048 1" "wannier30 160 160 64"; do
    read -r name nx ny nz <<<"$model"
    for kernel in site small; do
      echo "=== $name $nx x $ny x $nz, R = 32, HAMLET_STENCIL_KERNEL=$kernel" >>"$OUT/bench.log"
      HAMLET_STENCIL_KERNEL=$kernel timeout 100 build-gpu/bench/bench_stencil --backend cuda --model "$name" \
        --nx "$nx" --ny "$ny" --nz "$nz" --R 32 --steps 10 >>"$OUT/bench.log" 2>&1 || status=1
      echo "$name $kernel: $(grep -E "ratio|R = " "$OUT/bench.log" | tail -1)"
    done
  done
fi
echo "done at $SECONDS s, status $status"
exit $status
