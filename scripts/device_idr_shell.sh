#!/bin/bash
# Session 28 (issue 32 leftovers): why shift-and-invert's IDR(s) inner solve stalled at relative
# residual 1 on the CUDA backend. Session 29 found the same stall on that host's CPU backend (its
# rounding), and the library's inner solve is MINRES since; the `library` lines and `app` check it. On the lent GPU machine (`.debs` carried): the CUDA build, then
#   test    test_idr_shell_gpu on 1 and 2 ranks: IDR(s) on an indefinite shifted system through the
#           matrix, shell (hm_matrix_apply only) and shifted-shell (hm_matrix_apply + hm_mvec_axpby, as
#           shifted_solve.c's apply_shifted) operators and the library's hm_shifted_solve itself, real and
#           complex, 1 and 2 columns, CUDA against the CPU and a dense reference; every line of it (iterations, true residuals, distances;
#           the residual history of any solve that did not converge) is printed;
#   app     the indefinite case of e2e_shift_invert_inner with backend = cuda and inner = iterative
#           (MINRES since session 29), 1 and 2 ranks, and the same on
#           the CPU backend: exit codes, the inner-solve message or the eigenvalues and inner counts;
#   sanitize compute-sanitizer memcheck and racecheck on test_idr_shell_gpu.
# Logs under $OUT.
#   run: bash scripts/device_idr_shell.sh        STEPS="test app sanitize" (default all)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-test app sanitize}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
cd build-gpu || exit 1
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra # the carried MPICH
status=0
export HAMLET_TEST_REQUIRE=gpu # a test that would skip fails
if want test; then
  for np in 1 2; do
    log="$OUT/idr_shell_np$np.log"
    "$MPIEXEC" -n "$np" linalg/tests/test_idr_shell_gpu >"$log" 2>&1
    code=$?
    [ "$code" -eq 0 ] || status=1
    echo "== test_idr_shell_gpu, $np rank(s): exit $code"
    grep -vE "^\s*$" "$log" | cut -c1-1500 | head -80
  done
fi
if want app; then
  work=$(mktemp -d)
  "${HAMLET_TEST_PYTHON:-python3}" ../tests/support/shift_invert_matrices.py "$work" >/dev/null
  for backend in cuda cpu; do
    printf '[run]\nbackend = %s\n[hamiltonian]\nmodel = mtx\nmatrix = %s/indefinite.mtx\n[solver]\nmethod = lobpcg\nnev = 4\ntol = 1e-8\nmaxit = 300\ntransform = shift_invert\nshift = %s\ninner = iterative\n' \
      "$backend" "$work" "$(cat "$work/indefinite.shift")" >"$work/$backend.ini"
    for np in 1 2; do
      log="$OUT/app_${backend}_np$np.log"
      "$MPIEXEC" -n "$np" bin/hamlet run "$work/$backend.ini" -o "$work/$backend.$np.h5" \
        >"$log" 2>&1
      code=$?
      echo "== hamlet indefinite shift_invert inner = iterative, backend $backend, $np rank(s): exit $code"
      grep -iE "idr|inner|error|converged|eigenvalue" "$log" | cut -c1-600 | head -12
      [ "$backend" = cpu ] && [ "$code" -ne 0 ] && status=1
    done
  done
  "${HAMLET_TEST_PYTHON:-python3}" - "$work" <<'PY' || true
import sys, h5py, numpy as np
w = sys.argv[1]
ref = np.loadtxt(w + "/indefinite.ref")
for b in ("cuda", "cpu"):
    for n in (1, 2):
        try:
            f = h5py.File("%s/%s.%d.h5" % (w, b, n), "r")
            v, e = f["/eigen/values"][:], f["/eigen"].attrs
            print("%s %d ranks: max rel. diff to dense %.2e, inner iterations %s, solves %s" %
                  (b, n, (abs(v - ref) / abs(ref)).max(), e.get("inner_iterations"), e.get("inner_solves")))
        except Exception as exc:
            print("%s %d ranks: no result (%s)" % (b, n, exc))
PY
fi
if want sanitize; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 9 linalg/tests/test_idr_shell_gpu >"$OUT/${tool}_idr_shell.log" 2>&1
    code=$?
    echo "$tool test_idr_shell_gpu: exit $code" | tee -a "$OUT/sanitizer.txt"
    [ "$code" -eq 0 ] || { status=1; grep -E "ERROR|Invalid|hazard" "$OUT/${tool}_idr_shell.log" | head -20; }
  done
fi
echo "done at $SECONDS s, status $status"
exit "$status"
