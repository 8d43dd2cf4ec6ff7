#!/bin/bash
# The shift-and-invert check on real matrices that are not in the repository: for each Matrix Market file
# given (real or complex symmetric/Hermitian), hamlet's LOBPCG for the 4 smallest (Jacobi), the 4
# largest (no preconditioner) and the 4 nearest 0 by shift-and-invert, tol 1e-8, on 1 and 2 ranks,
# each against the dense eigenvalues (numpy eigvalsh): converged count, iterations, the largest
# relative difference, wall time.
#   bash bench/real_matrix_check.sh BUILD_DIR FILE.mtx [FILE.mtx ...]
# (SuiteSparse's HB/1138_bus and HB/bcsstk03 were used: bench/README.md.)
set -euo pipefail
build=${1:?build folder}; shift
hamlet=$(cd "$build" && pwd)/bin/hamlet
PYTHON=${HAMLET_TEST_PYTHON:-/usr/bin/python3}
MPIEXEC=${MPIEXEC:-mpiexec}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for mtx in "$@"; do
  name=$(basename "$mtx" .mtx)
  for case in smallest largest shift_invert; do
    extra="which = smallest
precond = jacobi"
    [ "$case" = largest ] && extra="which = largest
precond = none"
    [ "$case" = shift_invert ] && extra="transform = shift_invert
shift = 0"
    printf '[run]\nbackend = cpu\n[hamiltonian]\nmodel = mtx\nmatrix = %s\n[solver]\nmethod = lobpcg\nnev = 4\ntol = 1e-8\nmaxit = 5000\n%s\n' \
      "$(cd "$(dirname "$mtx")" && pwd)/$(basename "$mtx")" "$extra" >"$work/$name-$case.ini"
    for np in 1 2; do
      start=$(date +%s.%N)
      code=0
      OMP_NUM_THREADS=1 "$MPIEXEC" -n "$np" "$hamlet" run "$work/$name-$case.ini" -o "$work/$name-$case-$np.h5" \
        >"$work/$name-$case-$np.log" 2>&1 || code=$?
      echo "$name $case $np $code $(echo "$(date +%s.%N) - $start" | bc)" >>"$work/runs.txt"
    done
  done
done
"$PYTHON" - "$work" "$@" <<'PY'
import sys, os, h5py, numpy as np, scipy.io
work, files = sys.argv[1], sys.argv[2:]
print("| matrix | N | condition | case | ranks | exit | converged | iterations | max rel. diff | wall (s) |")
print("|---|---|---|---|---|---|---|---|---|---|")
runs = [l.split() for l in open(os.path.join(work, "runs.txt"))]
for f in files:
    name = os.path.basename(f)[:-4]
    w = np.linalg.eigvalsh(scipy.io.mmread(f).toarray())
    ref = {"smallest": w[:4], "largest": w[-4:], "shift_invert": w[np.argsort(np.abs(w))[:4]]}
    for n, case, np_, code, t in (r for r in runs if r[0] == name):
        conv = it = diff = "-"
        if code == "0":
            e = h5py.File(os.path.join(work, f"{n}-{case}-{np_}.h5"), "r")["/eigen"]
            v = np.sort(e["values"][:]); r = np.sort(ref[case])
            conv, it = int(e.attrs["converged"]), int(e.attrs["iterations"])
            diff = "%.1e" % np.max(np.abs(v - r) / np.abs(r))
        print(f"| {n} | {len(w)} | {abs(w).max() / abs(w).min():.2e} | {case} | {np_} | {code} | {conv} | {it} | {diff} | {float(t):.2f} |")
PY
