#!/bin/bash
# Issue 27 section 2 on the lent GPU machine (`.debs` carried, as device_reliability.sh): the CUDA
# build, the GPU tests (test_stencil_free_cuda: the matrix-free operator on the GPU against the CPU
# reference CSR of fresh random descriptions, R = 1, 4, 32), compute-sanitizer memcheck on it, and
# bench_stencil: the TI's fused KPM step per vector-step next to 48 R N / copy bandwidth (same run)
# at R = 2, 8, 32 on 200 x 100 x 40 sites and at R = 2 on 500 x 500 x 1000 sites (N = 10^9
# orbitals), with the build time and the peak device memory; graphene (2 orbitals, 3 hoppings per
# orbital, 4096 x 2048 cells) and wannier30 (2 orbitals, 38 hoppings per orbital, 160 x 160 x 64) at
# R = 32 on the GPU against their floors; the CPU step on THREADS host cores (default 16) for the
# three models at R = 1, 2, 4, 16 against the host's copy bandwidth (same run); and `host`: the
# ti_billion deck on the CPU backend at N = 2e8 orbitals (500 x 500 x 200 sites), R = 2, 16 moments,
# its summary's host peak and bytes per orbital (expected about 64 B per orbital for the two 2-column
# blocks, 12.8 GB, plus the Lanczos bound vectors and ~0.2 GB of libraries: 13 to 23 GB in all).
#   run: bash scripts/device_stencil.sh        STEPS="gpu sanitize bench billion host" (default all)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize bench billion host}
THREADS=${THREADS:-16}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
cd build-gpu || exit 1
status=0
if want gpu; then
  HAMLET_TEST_REQUIRE=gpu ctest -L gpu --output-on-failure >"$OUT/ctest_gpu.log" 2>&1 || status=1
  grep -E "tests passed|Failed|Skipped|Not Run" "$OUT/ctest_gpu.log" | head -20
fi
if want sanitize; then
  exe=$(find . -name test_stencil_free -type f -perm -u+x | head -1)
  compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$exe" cuda >"$OUT/memcheck_stencil.log" 2>&1
  code=$?
  echo "memcheck test_stencil_free cuda: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_stencil.log"; }
fi
if want bench; then
  ./bench/bench_stencil --backend cuda --nx 200 --ny 100 --nz 40 --R 2,8,32 --steps 50 | tee "$OUT/bench_ti.txt" || status=1
  ./bench/bench_stencil --backend cuda --model graphene --nx 4096 --ny 2048 --nz 1 --R 32 --steps 20 | tee "$OUT/bench_graphene.txt" || status=1
  ./bench/bench_stencil --backend cuda --model wannier30 --nx 160 --ny 160 --nz 64 --R 32 --steps 20 | tee "$OUT/bench_wannier30.txt" || status=1
  # the CPU step: bound threads, three runs each (a shared host's bandwidth varies between runs)
  for run in 1 2 3; do
    echo "CPU run $run of 3, $THREADS threads" | tee -a "$OUT/bench_ti_cpu.txt" "$OUT/bench_graphene_cpu.txt" "$OUT/bench_wannier30_cpu.txt"
    OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close OMP_PLACES=cores ./bench/bench_stencil --backend cpu --nx 200 --ny 100 --nz 40 \
      --R 1,2,4,16 --steps 10 | tee -a "$OUT/bench_ti_cpu.txt" || status=1
    OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close OMP_PLACES=cores ./bench/bench_stencil --backend cpu --model graphene --nx 2048 \
      --ny 2048 --nz 1 --R 1,2,4,16 --steps 10 | tee -a "$OUT/bench_graphene_cpu.txt" || status=1
    OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close OMP_PLACES=cores ./bench/bench_stencil --backend cpu --model wannier30 --nx 128 \
      --ny 128 --nz 64 --R 1,2,16,32 --steps 10 | tee -a "$OUT/bench_wannier30_cpu.txt" || status=1
  done
fi
if want billion; then
  ./bench/bench_stencil --backend cuda --nx 500 --ny 500 --nz 1000 --R 2 --steps 10 | tee "$OUT/bench_billion.txt" || status=1
  nvidia-smi --query-gpu=memory.used --format=csv,noheader | tee -a "$OUT/bench_billion.txt"
fi
if want host; then
  # bench/ti_billion.ini on the CPU at N = 2e8: backend cpu, nz 200, 16 moments, the lattice file by path
  sed -e 's/^backend = cuda/backend = cpu/' -e 's/^nz = 1000/nz = 200/' -e 's/^moments = 128/moments = 16/' \
    -e "s|^lattice_file = .*|lattice_file = $PWD/../inputs/lattices/ti.lattice|" \
    -e "s|^output = .*|output = $OUT/ti_host_2e8.h5|" ../bench/ti_billion.ini >"$OUT/ti_host_2e8.ini"
  OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close OMP_PLACES=cores /usr/bin/time -v ./bin/hamlet run "$OUT/ti_host_2e8.ini" \
    >"$OUT/ti_host_2e8.log" 2>&1 || status=1
  grep -E "^  (timing|memory|per orbital)|Maximum resident" "$OUT/ti_host_2e8.log" | tee "$OUT/ti_host_2e8.txt"
  rm -f "$OUT/ti_host_2e8.h5"
fi
exit $status
