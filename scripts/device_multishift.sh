#!/bin/bash
# Issue 29 on the lent GPU machine (`.debs` carried): the CUDA build with HAMLET_TEST_REQUIRE=gpu,h5py,
# the GPU tests (test_idr_multishift_gpu compares the fused shift update over a list of active shifts
# and the whole multi-shift solve with the CPU backend on fresh random inputs), compute-sanitizer
# memcheck on that test, and the benchmarks (each under its own time limit: 200 + 90 + 60 s at most):
#   bench     bench_multishift on the GPU: the 3.2e6-orbital TI (200 x 100 x 40, open z) LDOS at 101
#             energies in [-3, 3], eta 0.05, tol 1e-8, two sites (8 site orbitals, 1 per solve: each
#             keeps (s + 2) x 101 vectors, 31 GB), multi-shift IDR(4) with its profile and the fraction
#             of the traffic bound, against the per-energy batches at every 10th energy (11 energies,
#             their time scaled to 101; PER_EVERY=1 runs them all, ~10x longer);
#   errors    bench/multishift_green.sh: multi-shift, per-energy and KPM (Lorentz) LDOS, each with its
#             error against the exact spectral sum on a 6 x 6 x 4 lattice, and KPM's time on the large
#             lattice (multi-shift's and per-energy's large times come from `bench`);
#   cpubench  bench_multishift on the host's 16 cores (2 ranks x 8 threads, 101
#             energies, all of them per energy too; 24 x 24 x 12 TI).
#   run: bash scripts/device_multishift.sh     STEPS="gpu sanitize bench errors cpubench" (default all)
#   NX NY NZ: the large lattice (default 200 100 40), NE (101); POLISH_COLUMNS: the most columns of one
#   batched polish solve (default 0: by memory; the bench prints the polish solves, columns and why).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize bench errors cpubench}
NX=${NX:-200} NY=${NY:-100} NZ=${NZ:-40} NE=${NE:-101}
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
  OMP_NUM_THREADS=16 timeout 200 build-gpu/bench/bench_multishift --backend cuda --ti "$NX" "$NY" "$NZ" --energies "$NE" \
    --rhs-per-solve "${RHS:-1}" --per-energy-every "${PER_EVERY:-10}" --polish-columns "${POLISH_COLUMNS:-0}" \
    --copy-mib 1024 2>&1 | tee "$OUT/bench_gpu.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; echo "bench_multishift (cuda) failed or ran past 200 s"; }
fi
if want errors; then
  NX=$NX NY=$NY NZ=$NZ NE=$NE RANKS=1 BW=2985 OMP_NUM_THREADS=16 BACKEND=cuda LARGE_METHODS=kpm \
    timeout 90 bash bench/multishift_green.sh build-gpu/bin/hamlet 2>&1 | tee "$OUT/errors_gpu.txt"
fi
if want cpubench; then
  OMP_NUM_THREADS=8 timeout 60 "$MPIEXEC" -n 2 build-gpu/bench/bench_multishift --ti "${CPU_NX:-24}" "${CPU_NY:-24}" \
    "${CPU_NZ:-12}" --energies "$NE" 2>&1 | tee "$OUT/bench_cpu.txt"
fi
exit $status
