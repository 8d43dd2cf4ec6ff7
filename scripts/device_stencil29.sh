#!/bin/bash
# Issue 27, session 29, on the lent GPU machine (`.debs` carried): the matrix-free step of few-orbital
# cells (gpu/stencil_small_cuda.cu: graphene- and Wannier-like models).
#   1. the CUDA build (scripts/device_build.sh);
#   2. the stencil GPU tests with HAMLET_TEST_REQUIRE=gpu (a skip fails): test_stencil_free_cuda
#      (automatic choice: the new kernel for 1 and 2 orbitals), _cuda_mma, _cuda_small (forced,
#      1 rank) and _cuda_small_mpi2 (forced, 2 ranks on the one GPU);
#   3. compute-sanitizer memcheck on test_stencil_free with the new kernel forced;
#   4. bench_stencil, graphene 4096 x 2048 and wannier30 160 x 160 x 64 at R = 8 and 32, the old
#      per-site kernel (HAMLET_STENCIL_KERNEL=site), the new one (=small: 8 x 4-site tiles, 8-column
#      chunks) and the new one on the old kernel's tiles (HAMLET_STENCIL_TILE=linear), alternating,
#      two rounds;
#      then the TI 200 x 100 x 40 with the new kernel forced (4 orbitals; not chosen there) for
#      comparison with the site and mma kernels.
# Prints the ratio lines (time per vector-step / the floor 48 N / copy bandwidth of the same run).
#   run: bash scripts/device_stencil29.sh        (logs under $OUT; STEPS="test sanitize bench")
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-test sanitize bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh
status=0
if want test; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu ctest -R '^test_stencil_free_cuda' --timeout 300 --output-on-failure \
    >"$OUT/ctest_stencil.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_stencil.log" | head -20
fi
if want sanitize; then
  HAMLET_STENCIL_KERNEL=small timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 \
    build-gpu/linalg/tests/test_stencil_free cuda >"$OUT/memcheck_stencil_small.log" 2>&1
  code=$?
  echo "memcheck stencil_small: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_stencil_small.log"; }
fi
bench() { # bench VARIANT MODEL NX NY NZ R-LIST; VARIANT: site (old per-site kernel), small (new), small-linear
  local kernel=${1%%-*} tile=2d
  [ "$1" = small-linear ] && tile=linear
  echo "== $2 $3 x $4 x $5, HAMLET_STENCIL_KERNEL=$kernel HAMLET_STENCIL_TILE=$tile"
  HAMLET_STENCIL_KERNEL=$kernel HAMLET_STENCIL_TILE=$tile timeout 200 build-gpu/bench/bench_stencil --backend cuda \
    --model "$2" --nx "$3" --ny "$4" --nz "$5" --R "$6" --steps 20 >"$OUT/bench_${2}_$1_$round.txt" 2>&1 || status=1
  grep -E "ratio|bandwidth|R = " "$OUT/bench_${2}_$1_$round.txt"
}
if want bench; then
  for round in 1 2; do
    for variant in site small small-linear; do
      bench "$variant" graphene 4096 2048 1 8,32
      bench "$variant" wannier30 160 160 64 8,32
    done
  done
  round=1
  bench small ti 200 100 40 8,32
fi
echo "done at $SECONDS s, status $status"
exit $status
