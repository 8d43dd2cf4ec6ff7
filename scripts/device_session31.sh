#!/bin/bash
# Session 31's checks on the lent GPU machine (`.debs` carried), in parts chosen by STEPS:
#   check    every GPU test with HAMLET_TEST_REQUIRE=gpu,h5py (a skip fails), -j4;
#   memcheck compute-sanitizer memcheck on the few-orbital stencil kernel, now automatic for 1 and 2
#            orbitals on any rank count: test_stencil_free cuda on 1 rank and on 2 ranks (each rank
#            under its own sanitizer), the trials of 1, 2 and 4 orbitals (30-49);
#   bench    bench_stencil, graphene 4096 x 2048 and wannier30 160 x 160 x 64 at R = 32, the
#            automatic choice (the few-orbital kernel) against the per-site kernel (=site).
# Logs under $OUT, a summary line per step on stdout.
#   run: STEPS="check memcheck bench" bash scripts/device_session31.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-check memcheck bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
status=0
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra # the carried MPICH
exe=build-gpu/linalg/tests/test_stencil_free
if want check; then
  (cd build-gpu && OMP_NUM_THREADS=2 ctest -L gpu -j4 --timeout 300 --output-on-failure >"$OUT/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_gpu.log" | head -20
  echo "check done at $SECONDS s"
fi
if want memcheck; then
  for ranks in 1 2; do
    OMP_NUM_THREADS=4 timeout 200 "$MPIEXEC" -n "$ranks" compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$exe" cuda 30-49 >"$OUT/memcheck_small_np$ranks.log" 2>&1
    code=$?
    echo "memcheck few-orbital kernel, $ranks rank(s): exit $code, $(grep -E "ERROR SUMMARY" "$OUT/memcheck_small_np$ranks.log" | tr '\n' ' ')"
    [ "$code" -eq 0 ] || { status=1; grep -m 6 -E "Invalid|at .*stencil.*:[0-9]+" "$OUT/memcheck_small_np$ranks.log"; }
  done
fi
if want bench; then
  : >"$OUT/bench_stencil.log"
  for model in "graphene 4096 2048 1" "wannier30 160 160 64"; do
    read -r name nx ny nz <<<"$model"
    for kernel in site auto; do # auto: the variable set to an empty value, as unset
      echo "=== $name $nx x $ny x $nz, R = 32, kernel $kernel" >>"$OUT/bench_stencil.log"
      HAMLET_STENCIL_KERNEL=$([ "$kernel" = site ] && echo site) timeout 100 build-gpu/bench/bench_stencil \
        --backend cuda --model "$name" --nx "$nx" --ny "$ny" --nz "$nz" --R 32 --steps 10 >>"$OUT/bench_stencil.log" 2>&1 ||
        status=1
      echo "$name $kernel: $(grep -E "ratio|R = " "$OUT/bench_stencil.log" | tail -1)"
    done
  done
fi
echo "done at $SECONDS s, status $status"
exit $status
