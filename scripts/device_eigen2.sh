#!/bin/bash
# Session 27 (issue 32 leftovers) on the lent GPU machine (`.debs` carried): the CUDA build, the
# gpu-labelled eigensolver tests (e2e_lobpcg_hard_cuda: the matrices of issue 32's structure with
# backend = cuda on 1 and 2 ranks; e2e_shift_invert_inner_cuda: shift-and-invert with the
# distributed iterative inner solve, CG / IDR(s) on the GPU, against dense references), the same two
# on the CPU backend for comparison, and compute-sanitizer memcheck on one shift-and-invert run
# with inner = iterative on the GPU. Logs under $OUT.
#   run: bash scripts/device_eigen2.sh        STEPS="gpu cpu sanitize" (default all)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu cpu sanitize}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
cd build-gpu || exit 1
status=0
export HAMLET_TEST_REQUIRE=gpu,h5py # a test that would skip fails
if want gpu; then
  ctest -R "e2e_(lobpcg_hard|shift_invert_inner)_cuda" --output-on-failure >"$OUT/ctest_gpu.log" 2>&1 || status=1
  grep -E "PASS|FAIL|tests passed|Skipped" "$OUT/ctest_gpu.log" | head -60
fi
if want cpu; then
  ctest -R "^e2e_(lobpcg_hard|shift_invert_inner)$" --output-on-failure >"$OUT/ctest_cpu.log" 2>&1 || status=1
  grep -E "tests passed|FAIL" "$OUT/ctest_cpu.log" | head -20
fi
if want sanitize; then
  work=$(mktemp -d)
  "${HAMLET_TEST_PYTHON:-python3}" ../tests/support/shift_invert_matrices.py "$work" >/dev/null
  printf '[run]\nbackend = cuda\n[hamiltonian]\nmodel = mtx\nmatrix = %s/spd_cond13.mtx\n[solver]\nmethod = lobpcg\nnev = 4\ntol = 1e-8\ntransform = shift_invert\nshift = 0\ninner = iterative\n' \
    "$work" >"$work/si.ini"
  compute-sanitizer --tool memcheck --error-exitcode 9 bin/hamlet run "$work/si.ini" -o "$work/si.h5" \
    >"$OUT/memcheck_shift_invert_inner.log" 2>&1
  code=$?
  echo "memcheck hamlet shift_invert inner = iterative (cuda): exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_shift_invert_inner.log"; }
fi
echo "done at $SECONDS s, status $status"
exit "$status"
