"""Shift-and-invert peer benchmark (issue 32): hamlet (LOBPCG on (A - shift B)^-1 B, CHOLMOD/UMFPACK
on rank 0) against SciPy's ARPACK shift-invert (eigsh with sigma: Lanczos + SuperLU) on the same
generated matrices (tests/support/shift_invert_matrices.py), nev 4, tol 1e-8, one thread per
process. SLEPc is the peer issue 32 names, but Debian 12's PETSc/SLEPc are built on Open MPI and
cannot be installed beside hamlet's MPICH without taking over mpicc/mpiexec (see bench/RESULTS.md).
Usage: /usr/bin/python3 bench/shift_invert_peer.py HAMLET_BINARY [GRID]   (GRID x GRID unknowns, 45)"""
import os
import subprocess
import sys
import tempfile
import time
import h5py
import numpy as np
import scipy.io as sio
import scipy.sparse.linalg as sla

here = os.path.dirname(os.path.abspath(__file__))
hamlet, grid = os.path.abspath(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "45"
work = tempfile.mkdtemp(prefix="shinv-bench-")
subprocess.run([sys.executable, os.path.join(here, "../tests/support/shift_invert_matrices.py"), work, "7", grid],
               check=True, stdout=subprocess.DEVNULL)
env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
print("| case | N | hamlet 1 rank (s) | hamlet 2 ranks (s) | iterations | SciPy eigsh (s) | max rel. diff |")
print("|---|---|---|---|---|---|---|")
for c in ["spd_cond13", "pencil", "penalty", "hermitian", "indefinite"]:
    shift = float(open(os.path.join(work, c + ".shift")).read())
    mass = "mass = %s_M.mtx\n" % c if os.path.exists(os.path.join(work, c + "_M.mtx")) else ""
    deck = os.path.join(work, c + ".ini")
    open(deck, "w").write("[hamiltonian]\nmodel = mtx\nmatrix = %s.mtx\n%s[solver]\nmethod = lobpcg\nnev = 4\n"
                          "tol = 1e-8\nmaxit = 300\ntransform = shift_invert\nshift = %r\n" % (c, mass, shift))
    times, values = [], None
    for np_ in (1, 2):
        out = os.path.join(work, "%s.%d.h5" % (c, np_))
        r = subprocess.run([os.environ.get("MPIEXEC", "/usr/bin/mpiexec.mpich"), "-n", str(np_), hamlet, "run", deck, "-o", out, "--quiet"], cwd=work, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode:
            times.append(float("nan"))
            continue
        f = h5py.File(out, "r")
        times.append(float(np.sum(f["/timing/setup"][()]) + np.sum(f["/timing/solve"][()])))  # factorization + solve
        values, its = f["/eigen/values"][:], int(f["/eigen"].attrs["iterations"])
    A = sio.mmread(os.path.join(work, c + ".mtx")).tocsc()
    B = sio.mmread(os.path.join(work, c + "_M.mtx")).tocsc() if mass else None
    t0 = time.perf_counter()
    try:
        w = np.sort(sla.eigsh(A, k=4, M=B, sigma=shift, which="LM", tol=1e-8, return_eigenvectors=False))
        ts = time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001 (a peer failure is a result)
        w, ts = None, float("nan")
        print("scipy failed on %s: %s" % (c, e), file=sys.stderr)
    diff = np.abs(values - w).max() / np.abs(w).max() if values is not None and w is not None else float("nan")
    print("| %s | %d | %.3f | %.3f | %d | %.3f | %.1e |" % (c, A.shape[0], times[0], times[1], its, ts, diff))
