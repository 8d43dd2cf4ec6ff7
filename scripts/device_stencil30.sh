#!/bin/bash
# Issue 27, session 30, on the lent GPU machine (`.debs` carried): the few-orbital matrix-free step
# (gpu/stencil_small_cuda.cu, graphene- and Wannier-like models) after session 29's failures.
#   1. the CUDA build (scripts/device_build.sh), with -lineinfo so the sanitizer names source lines;
#   2. the stencil tests with HAMLET_TEST_REQUIRE=gpu (a skip fails): test_stencil_free_cuda and
#      _cuda_mpi2 (automatic choice: the new kernel for 1 and 2 orbitals), _cuda_small and
#      _cuda_small_mpi2 (forced, also 4 orbitals), _cuda_site (the per-site kernel forced),
#      _cuda_mma, and the CPU replay of the kernel's index arithmetic (test_stencil_small_plan);
#   3. session 29's failing seed replayed (HAMLET_TEST_SEED=1795661320: trials 27 and 29) with the
#      new kernel forced and with the per-site kernel, 1 and 2 ranks;
#   4. compute-sanitizer on test_stencil_free with the new kernel forced: memcheck (must report 0
#      errors; backtraces with lines), racecheck and synccheck (shared memory, barriers), 1 rank;
#   5. bench_stencil, graphene 4096 x 2048 and wannier30 160 x 160 x 64 at R = 8 and 32, the
#      per-site kernel (HAMLET_STENCIL_KERNEL=site) and the new one (=small), alternating, two rounds.
# Prints the ratio lines (time per vector-step / the floor 48 N / copy bandwidth of the same run).
#   run: bash scripts/device_stencil30.sh        (logs under $OUT; STEPS="test replay sanitize bench")
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-test replay sanitize bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
HAMLET_DEVICE_CMAKE_FLAGS="${HAMLET_DEVICE_CMAKE_FLAGS:-} -DCMAKE_CUDA_FLAGS=-lineinfo"
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh
status=0
test_exe=build-gpu/linalg/tests/test_stencil_free
if want test; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu ctest -R '^test_stencil_(free_cuda|small_plan)' --timeout 400 \
    --output-on-failure >"$OUT/ctest_stencil.log" 2>&1) || status=1
  grep -E "Test +#|tests passed|HAMLET_TEST_SEED|FAIL" "$OUT/ctest_stencil.log" | head -40
fi
if want replay; then
  for kernel in small site; do
    for n in 1 2; do
      HAMLET_TEST_SEED=1795661320 HAMLET_STENCIL_KERNEL=$kernel timeout 300 mpiexec -n $n "$test_exe" cuda \
        >"$OUT/replay_${kernel}_np$n.txt" 2>&1
      code=$?
      echo "replay seed 1795661320, kernel $kernel, $n rank(s): exit $code"
      [ "$code" -eq 0 ] || { status=1; grep -E "FAIL" "$OUT/replay_${kernel}_np$n.txt" | head -5; }
    done
  done
fi
if want sanitize; then
  for tool in memcheck racecheck synccheck; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--show-backtrace device)
    HAMLET_TEST_SEED=1795661320 HAMLET_STENCIL_KERNEL=small timeout 400 compute-sanitizer --tool "$tool" \
      "${extra[@]}" --error-exitcode 9 "$test_exe" cuda >"$OUT/${tool}_stencil_small.log" 2>&1
    code=$?
    echo "$tool stencil_small: exit $code, $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/${tool}_stencil_small.log" | tail -1)" |
      tee -a "$OUT/sanitizer.txt"
    [ "$code" -eq 0 ] || { status=1; grep -m 12 -E "Invalid|at .*stencil|by thread|Address" "$OUT/${tool}_stencil_small.log"; }
  done
fi
bench() { # bench KERNEL MODEL NX NY NZ R-LIST; KERNEL: site (per-site kernel) or small (new)
  echo "== $2 $3 x $4 x $5, HAMLET_STENCIL_KERNEL=$1"
  HAMLET_STENCIL_KERNEL=$1 timeout 200 build-gpu/bench/bench_stencil --backend cuda \
    --model "$2" --nx "$3" --ny "$4" --nz "$5" --R "$6" --steps 20 >"$OUT/bench_${2}_$1_$round.txt" 2>&1 || status=1
  grep -E "ratio|bandwidth|R = " "$OUT/bench_${2}_$1_$round.txt"
}
if want bench; then
  for round in 1 2; do
    for kernel in site small; do
      bench "$kernel" graphene 4096 2048 1 8,32
      bench "$kernel" wannier30 160 160 64 8,32
    done
  done
fi
echo "done at $SECONDS s, status $status"
exit $status
