#!/bin/bash
# Session 32's closing checks on the lent GPU machine (`.debs` carried), in parts chosen by STEPS:
#   check     every GPU test with HAMLET_TEST_REQUIRE=gpu,h5py (a skip fails), -j4 (the staged TI
#             kernel is now the default up to 4 vectors; the multi-shift blocks are packed);
#   memcheck  compute-sanitizer memcheck of test_stencil_free cuda on its TI-shaped trials (50-55,
#             the staged kernel by default) and of test_idr_multishift_gpu;
#   bench     bench_stencil TI 200 x 100 x 40 at R = 1, 2, 4 with the automatic choice and =site, and
#             bench_multishift on session 30's case (TI 40 x 40 x 16, 101 energies, 8 right-hand sides);
#   cpu       bench_stencil on the host's 16 cores (issue 27's CPU target: 1.3x the floor at R = 16), TI
#             200 x 100 x 40, graphene 2048 x 2048, wannier30 128 x 128 x 64, two runs each.
# Logs under $OUT (few files: at most 8 come back), a summary line per step on stdout.
#   run: STEPS="check memcheck bench" bash scripts/device_session32.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-check memcheck bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
status=0
if want check; then
  (cd build-gpu && OMP_NUM_THREADS=2 ctest -L gpu -j4 --timeout 300 --output-on-failure >"$OUT/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_gpu.log" | head -20
  echo "check done at $SECONDS s"
fi
if want memcheck; then
  : >"$OUT/memcheck.log"
  for run in "build-gpu/linalg/tests/test_stencil_free cuda 50-55" "build-gpu/linalg/tests/test_idr_multishift_gpu"; do
    # shellcheck disable=SC2086 # the command splits into words on purpose
    OMP_NUM_THREADS=4 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 $run >>"$OUT/memcheck.log" 2>&1
    code=$?
    echo "memcheck $(basename "${run%% *}"): exit $code"
    [ "$code" -eq 0 ] || status=1
  done
  grep -E "ERROR SUMMARY" "$OUT/memcheck.log"
fi
if want bench; then
  for kernel in site auto; do # auto: the variable empty, as unset
    HAMLET_STENCIL_KERNEL=$([ "$kernel" = site ] && echo site) timeout 100 build-gpu/bench/bench_stencil --backend cuda \
      --nx 200 --ny 100 --nz 40 --R 1,2,4 --steps 20 >>"$OUT/bench.log" 2>&1 || status=1
    grep -E "^R = " "$OUT/bench.log" | tail -3 | sed "s/^/TI 200 x 100 x 40 $kernel: /"
  done
  OMP_NUM_THREADS=16 timeout 150 build-gpu/bench/bench_multishift --backend cuda --copy-mib 1024 --ti 40 40 16 \
    --energies 101 --rhs-per-solve 0 --per-energy-every 10 >"$OUT/bench_multishift.txt" 2>&1 || status=1
  grep -vE "^energy" "$OUT/bench_multishift.txt" | cut -c1-250 | tail -14
fi
if want cpu; then
  for run in 1 2; do
    for model in "ti 200 100 40 1,2,16" "graphene 2048 2048 1 2,16" "wannier30 128 128 64 2,16,32"; do
      read -r name nx ny nz Rs <<<"$model"
      OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores timeout 200 build-gpu/bench/bench_stencil --backend cpu \
        --model "$name" --nx "$nx" --ny "$ny" --nz "$nz" --R "$Rs" --steps 10 >>"$OUT/bench_cpu.log" 2>&1 || status=1
      grep -E "copy bandwidth|^R = " "$OUT/bench_cpu.log" | tail -4 | sed "s/^/cpu run $run $name: /" | cut -c1-160
    done
  done
fi
echo "done at $SECONDS s, status $status"
exit $status
