#!/bin/bash
# Issue 28 section 3 (A(k, E) by KPM) on the lent GPU machine (`.debs` carried, as for
# device_reliability.sh): the CUDA build with HAMLET_TEST_REQUIRE=gpu,h5py (a GPU test that skips
# fails); the spectral tests (test_spectral_start_cuda: device moments of plane waves on fresh random
# k against the TI's Bloch bands and against the CPU, bulk and slab layers; e2e_spectral and
# test_spectral_start on the CPU); compute-sanitizer memcheck on test_spectral_start cuda; one timing
# of a 3.0e6-orbital TI slab (125 x 125 x 48, open z) A(k, E) on the GPU, 8 k points x 2 layers x 4
# orbitals = 64 plane-wave columns (one batch), M = 512, next to the KPM DOS step of the same slab at
# R = 64 random vectors: "us per vector per step" of each (Gershgorin bounds in both: no Lanczos).
#   run: bash scripts/device_spectral.sh      STEPS="gpu sanitize bench" (default all)
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
  ctest -R "spectral" --output-on-failure >"$OUT/ctest_spectral.log" 2>&1 || status=1
  grep -E "Test +#|tests passed|FAIL" "$OUT/ctest_spectral.log" | head -30
fi
if want sanitize; then
  compute-sanitizer --tool memcheck --error-exitcode 9 ./linalg/tests/test_spectral_start cuda \
    >"$OUT/memcheck_spectral.log" 2>&1
  code=$?
  echo "memcheck test_spectral_start cuda: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_spectral.log"; }
fi
if want bench; then
  slab='[run]
backend = cuda
[hamiltonian]
model = ti
nx = 125
ny = 125
nz = 48
boundary = periodic periodic open
[kpm]
moments = 512
bounds = gershgorin'
  printf '%s\nvectors = 64\n[solver]\nmethod = kpm\n' "$slab" >"$OUT/bench_kpm.ini"
  printf '%s\n[solver]\nmethod = spectral\n[spectral]\nk_path = X G\npoints = 7\nlayers = 48 24\n' "$slab" \
    >"$OUT/bench_spectral.ini"
  for method in kpm spectral; do
    ./bin/hamlet run "$OUT/bench_$method.ini" -o "$OUT/bench_$method.h5" --quiet >"$OUT/bench_$method.txt" 2>&1 ||
      { status=1; tail -20 "$OUT/bench_$method.txt"; }
    echo "== $method"
    grep -E "hamiltonian|moments|timing|memory" "$OUT/bench_$method.txt"
  done
  rm -f "$OUT"/bench_*.h5
fi
echo "device_spectral: exit $status at $SECONDS s"
exit "$status"
