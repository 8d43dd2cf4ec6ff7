#!/bin/bash
# Issue 29 on the lent GPU machine (`.debs` carried): the CUDA build with HAMLET_TEST_REQUIRE=gpu,h5py,
# the GPU tests (test_idr_multishift_gpu compares the fused shift update and the whole multi-shift
# solve with the CPU backend on fresh random inputs), compute-sanitizer memcheck on the multi-shift
# GPU test, and the benchmark bench/multishift_green.sh: the TI LDOS at 101 energies by multi-shift
# IDR(s), by the per-energy batches and by KPM (Lorentz), each with its error on a small lattice, and
# the traffic bound of the multi-shift steps, on the GPU (1 rank) and on the host's 16 cores.
#   run: bash scripts/device_multishift.sh     STEPS="gpu sanitize bench cpubench" (default all)
#   NX NY NZ: the large lattice (default 100 100 40 on the GPU: 1.6e6 orbitals; 3.2e6 needs the
#   right-hand sides in groups, see the report), NE (101).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize bench cpubench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
status=0
export HAMLET_TEST_REQUIRE=gpu,h5py
if want gpu; then
  (cd build-gpu && ctest -L gpu --output-on-failure >"$OUT/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|Failed|Skipped|Not Run" "$OUT/ctest_gpu.log" | head -20
  (cd build-gpu && ctest -R "multishift" -LE gpu -j 8 --output-on-failure >"$OUT/ctest_multishift_cpu.log" 2>&1) || status=1
  grep -E "tests passed|Failed" "$OUT/ctest_multishift_cpu.log" | head
fi
if want sanitize; then
  exe=$(find build-gpu -name test_idr_multishift_gpu -type f -perm -u+x | head -1)
  compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" >"$OUT/memcheck_multishift.log" 2>&1
  code=$?
  echo "memcheck test_idr_multishift_gpu: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_multishift.log"; }
fi
export MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra
if want bench; then
  NX=${NX:-100} NY=${NY:-100} NZ=${NZ:-40} RANKS=1 BW=2985 OMP_NUM_THREADS=16 BACKEND=cuda \
    bash bench/multishift_green.sh build-gpu/bin/hamlet 2>&1 | tee "$OUT/bench_gpu.txt"
fi
if want cpubench; then
  # the host's 16 cores: the copy bandwidth of the host is measured by bench_copy where built; 100 GB/s assumed
  NX=${CPU_NX:-40} NY=${CPU_NY:-40} NZ=${CPU_NZ:-20} RANKS=2 BW=${CPU_BW:-100} BACKEND=cpu OMP_NUM_THREADS=8 \
    bash bench/multishift_green.sh build-gpu/bin/hamlet 2>&1 | tee "$OUT/bench_cpu.txt"
fi
exit $status
