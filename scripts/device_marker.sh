#!/bin/bash
# Issue 28 section 4 (local Chern marker) on the lent GPU machine (`.debs` carried, as for
# device_reliability.sh): the CUDA build with HAMLET_TEST_REQUIRE=gpu,h5py (a GPU test that skips
# fails); the marker tests (test_marker_cuda: GPU marker and projector against the CPU backend on a
# freshly seeded disordered flake, Jackson step and Fermi function; test_marker_exact_cuda: the
# Fermi-projector marker (T = 0.003, M = 8346) on the GPU against the exact step projector from dense
# eigenpairs, 1e-8 on every row; e2e_marker with backend auto, i.e. the app on the GPU);
# compute-sanitizer memcheck on test_marker cuda and test_marker_exact cuda; one timing: the 16 central cells of an open
# L x L Qi-Wu-Zhang flake (N = 2 L^2, one block of 32 rows, 2 (M - 1) products) on the GPU and on
# the host's 16 cores, with the marker values (+1 in the bulk for u = -1).
#   run: bash scripts/device_marker.sh        STEPS="gpu sanitize bench" (default all)
#   BENCH_L (default 1000: N = 2e6), BENCH_M (1024)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
cd build-gpu || exit 1
status=0
export HAMLET_TEST_REQUIRE=gpu,h5py
if want gpu; then
  ctest -R "marker" --output-on-failure >"$OUT/ctest_marker.log" 2>&1 || status=1
  grep -E "Test +#|tests passed|GPU - CPU|central|layers|exact|Fermi" "$OUT/ctest_marker.log" | head -40
fi
if want sanitize; then
  for t in test_marker test_marker_exact; do
    compute-sanitizer --tool memcheck --error-exitcode 9 "./linalg/tests/$t" cuda >"$OUT/memcheck_$t.log" 2>&1
    code=$?
    echo "memcheck $t cuda: exit $code" | tee -a "$OUT/sanitizer.txt"
    [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_$t.log"; }
  done
fi
if want bench; then
  L=${BENCH_L:-1000}; M=${BENCH_M:-1024}; c=$((L / 2))
  sites=""
  for dy in -2 -1 0 1; do for dx in -2 -1 0 1; do sites="$sites$((c + dx)) $((c + dy)) 0; "; done; done
  for backend in cuda cpu; do
    cat >"bench_marker_$backend.ini" <<INI
[run]
backend = $backend
output = bench_marker_$backend.h5
[hamiltonian]
model = lattice
lattice_file = $PWD/../inputs/lattices/qwz.lattice
nx = $L
ny = $L
nz = 1
boundary = open open open
[solver]
method = marker
[marker]
sites = ${sites%; }
moments = $M
INI
    OMP_NUM_THREADS=16 ./bin/hamlet run "bench_marker_$backend.ini" 2>&1 | tee "$OUT/bench_marker_$backend.txt" || status=1
    sec=$(awk '/^  marker / {for (i = 1; i <= NF; i++) if ($i ~ /s$/ && $(i-1) ~ /^[0-9.]+$/) t = $(i-1)} END {print t}' \
      "$OUT/bench_marker_$backend.txt")
    echo "$backend: L = $L (N = $((2 * L * L))), M = $M, 32 rows: ${sec:-?} s, $(awk -v s="${sec:-0}" -v m="$M" \
      'BEGIN {printf "%.3f ms per product of 32 columns", 1000 * s / (2 * (m - 1))}')" | tee -a "$OUT/bench_marker.txt"
  done
fi
echo "device_marker: exit $status at $SECONDS s"
exit "$status"
