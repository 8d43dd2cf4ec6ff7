#!/bin/bash
# Issue 32 part 2 on the lent GPU machine (`.debs` carried, with SuiteSparse's: see the report of
# branch s26-shinv): the CUDA build, e2e_shift_invert with backend auto (= cuda there: the blocks of
# LOBPCG on the device, the inner solves gathered to the host's CHOLMOD/UMFPACK), compute-sanitizer
# on one shift-and-invert run, and bench/shift_invert_peer.py (GPU rank against SciPy's ARPACK).
#   run: bash scripts/device_shift_invert.sh        logs under $OUT
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
status=0
(cd build-gpu && HAMLET_TEST_REQUIRE=h5py ctest -R e2e_shift_invert -V >"$OUT/ctest_shift_invert.log" 2>&1) || status=1
grep -E "PASS|FAIL|tests passed" "$OUT/ctest_shift_invert.log" | head -20
work=$(mktemp -d)
"${HAMLET_TEST_PYTHON:-python3}" tests/support/shift_invert_matrices.py "$work" 7 20 >/dev/null
printf '[run]\nbackend = cuda\n[hamiltonian]\nmodel = mtx\nmatrix = %s/indefinite.mtx\n[solver]\nmethod = lobpcg\nnev = 4\ntransform = shift_invert\nshift = %s\n' \
  "$work" "$(cat "$work/indefinite.shift")" >"$work/si.ini"
compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/bin/hamlet run "$work/si.ini" -o "$work/si.h5" \
  >"$OUT/memcheck_shift_invert.log" 2>&1 || status=1
tail -3 "$OUT/memcheck_shift_invert.log"
"${HAMLET_TEST_PYTHON:-python3}" bench/shift_invert_peer.py build-gpu/bin/hamlet 45 | tee "$OUT/bench_shift_invert.md"
exit $status
