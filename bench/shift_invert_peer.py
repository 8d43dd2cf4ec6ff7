"""Shift-and-invert peer benchmark: hamlet (LOBPCG on (A - shift B)^-1 B, CHOLMOD/UMFPACK
on rank 0) against SciPy's ARPACK shift-invert (eigsh with sigma: Lanczos + SuperLU) and, with
--slepc, SLEPc 3.18 (bench/peers/slepc_shift_invert.c: Krylov-Schur + STSINVERT and LOBPCG
preconditioned by the same factorization, PETSc's own LU / Cholesky) on the same generated matrices
(tests/support/shift_invert_matrices.py), nev 4, tol 1e-8, one thread per process.

Usage: /usr/bin/python3 bench/shift_invert_peer.py HAMLET_BINARY [GRID]   (GRID x GRID unknowns, 45)
         [--slepc DIR] [--repeat N] [--seed 7] [--reference dense|sparse] [--outer lobpcg|krylov_schur] [--trust]
--outer krylov_schur: hamlet's thick-restart Lanczos on the transform instead of LOBPCG.
--trust (with --slepc and --outer krylov_schur): hamlet also with verify_copies = no (no search for
missed copies of degenerate eigenvalues after convergence), and both runs' column solves.
Without --slepc: hamlet on 1 and 2 ranks next to SciPy (the table of bench/README.md).
With --slepc DIR (the folder of build_petsc_peers.sh's programs; run `source
bench/peers/unpack_peers.sh .debs-peers PREFIX` first, which exports PEERS_MPIEXEC, Open MPI from
the prefix): every solver on 1 rank, each case run --repeat times (interleaved), and one table of
the median time to solution (min-max), the converged count and the largest relative difference of
the eigenvalues from the dense reference (SciPy's eigh of the same matrices, shift-and-invert form;
--reference sparse: SciPy's eigsh at tol 1e-14, for grids where the dense solve costs minutes).
Times to solution: hamlet /timing setup + solve (gather, factorization, LOBPCG, residuals); SciPy
eigsh (SuperLU factorization + ARPACK); SLEPc EPSSetUp (factorization) + EPSSolve. Reading and
assembling the matrices are timed by none."""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
import h5py
import numpy as np
import scipy.io as sio
import scipy.sparse.linalg as sla

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../tests/support"))
from shift_invert_matrices import nearest  # noqa: E402 (the dense reference of the tests)

CASES = ["spd_cond13", "pencil", "penalty", "hermitian", "indefinite"]
NEV, TOL = 4, 1e-8
# Cholesky where A - shift B is known positive definite (shift 0 below an SPD spectrum); LU elsewhere.
# PETSc's own Cholesky on a complex matrix factors it as symmetric, not Hermitian: LU there.
SLEPC_FACTOR = {"spd_cond13": "cholesky", "pencil": "cholesky", "penalty": "cholesky", "hermitian": "lu",
                "indefinite": "lu"}
# SLEPc's LOBPCG finds the smallest eigenvalues: "nearest the shift" only where the shift lies below
# the spectrum (every case but the indefinite one, whose shift is inside it)
SLEPC_LOBPCG = {"spd_cond13", "pencil", "penalty", "hermitian"}


def run_hamlet(hamlet, work, case, ranks, env, deck=None):
    """(time to solution, converged count, eigenvalues) of `hamlet run` on the case's deck (or `deck`)."""
    out = os.path.join(work, "%s.%d.h5" % (deck or case, ranks))
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([os.environ.get("MPIEXEC", "/usr/bin/mpiexec.mpich"), "-n", str(ranks), hamlet, "run",
                        (deck or case) + ".ini", "-o", out, "--quiet"], cwd=work, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if not os.path.exists(out):
        print("hamlet failed on %s (exit %d): %s" % (case, r.returncode, r.stderr.strip()[-300:]), file=sys.stderr)
        return float("nan"), 0, None, 0
    with h5py.File(out, "r") as f:
        t = float(np.sum(f["/timing/setup"][()]) + np.sum(f["/timing/solve"][()]))  # factorization + solve
        conv = int(f["/eigen"].attrs["converged"]) if r.returncode == 0 else min(int(f["/eigen"].attrs["converged"]), NEV - 1)
        return t, conv, f["/eigen/values"][:], int(f["/eigen"].attrs["iterations"])


def hamlet_solves(work, deck, ranks):
    """(column solves, those of the verification) of the last `hamlet run` of deck (Krylov-Schur)."""
    try:
        with h5py.File(os.path.join(work, "%s.%d.h5" % (deck, ranks)), "r") as f:
            e = f["/eigen"].attrs
            return int(e["outer_solves"]), int(e["verify_solves"]) if "verify_solves" in e else 0
    except (OSError, KeyError):
        return -1, -1


def run_scipy(A, B, shift):
    t0 = time.perf_counter()
    try:
        w = np.sort(sla.eigsh(A, k=NEV, M=B, sigma=shift, which="LM", tol=TOL, return_eigenvectors=False))
        return time.perf_counter() - t0, NEV, w
    except Exception as e:  # noqa: BLE001 (a peer failure is a result)
        print("scipy failed: %s" % e, file=sys.stderr)
        return float("nan"), 0, None


def run_slepc(slepc, work, case, shift, method, mass, cplx):
    """(time to solution, converged count, eigenvalues) of slepc_shift_invert's one line."""
    prog = os.path.join(slepc, "slepc_shift_invert_complex" if cplx else "slepc_shift_invert")
    cmd = shlex.split(os.environ.get("PEERS_MPIEXEC", "mpiexec.openmpi")) + ["-n", "1", prog, "-A", case + ".mtx",
          "-sigma", repr(shift), "-nev", str(NEV), "-tol", str(TOL), "-method", method,
          "-factor", SLEPC_FACTOR[case]] + (["-B", case + "_M.mtx"] if mass else [])
    r = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = [x for x in r.stdout.splitlines() if x.startswith("slepc_shift_invert ")]
    if r.returncode or not line:
        print("slepc %s failed on %s (exit %d): %s" % (method, case, r.returncode, r.stderr.strip()[-300:]), file=sys.stderr)
        return float("nan"), 0, None
    fields = dict(kv.split("=", 1) for kv in shlex.split(line[0])[1:])
    if fields["error"] != "none":
        print("slepc %s on %s: %s" % (method, case, fields["error"]), file=sys.stderr)
    values = np.array([float(v) for v in fields["values"].split(",")]) if fields["values"] else None
    return float(fields["time_s"]), min(int(fields["nconv"]), NEV), values


def rel_diff(values, ref):
    if values is None or len(values) != len(ref):
        return float("nan")
    return float(np.max(np.abs(np.sort(values) - ref) / np.abs(ref)))


def cell_time(ts):
    ts = [t for t in ts if t == t]
    if not ts:
        return "-"
    return "%.4f" % np.median(ts) if len(ts) == 1 else "%.4f (%.4f-%.4f)" % (np.median(ts), min(ts), max(ts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("hamlet")
    ap.add_argument("grid", nargs="?", default="45")
    ap.add_argument("--slepc", help="folder of slepc_shift_invert[_complex] (build_petsc_peers.sh)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed", default="7")
    ap.add_argument("--reference", choices=["dense", "sparse"], default="dense",
                    help="sparse: SciPy's eigsh at tol 1e-14, untimed, where a dense solve costs too much (GRID > 60)")
    ap.add_argument("--outer", choices=["lobpcg", "krylov_schur"], default="lobpcg",
                    help="hamlet's eigensolver on the transform ([solver] outer)")
    ap.add_argument("--trust", action="store_true",
                    help="with --slepc and --outer krylov_schur: also hamlet with verify_copies = no (a column "
                         "after hamlet's), and the column solves of both")
    args = ap.parse_args()
    hamlet = os.path.abspath(args.hamlet)
    slepc = os.path.abspath(args.slepc) if args.slepc else None
    work = tempfile.mkdtemp(prefix="shinv-bench-")
    subprocess.run([sys.executable, os.path.join(here, "../tests/support/shift_invert_matrices.py"), work, args.seed,
                    args.grid], check=True, stdout=subprocess.DEVNULL)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    os.environ.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")  # SciPy's BLAS and the SLEPc processes
    solves_rows = []
    if args.slepc:
        print("| case | N | hamlet (s) | conv | %sSciPy eigsh (s) | conv | SLEPc Krylov-Schur (s) | conv | "
              % ("hamlet verify_copies = no (s) | conv | " if args.trust else "") +
              "SLEPc LOBPCG (s) | conv | max rel. diff vs %s: hamlet / %sSciPy / SLEPc KS / SLEPc LOBPCG |"
              % ("dense" if args.reference == "dense" else "eigsh tol 1e-14", "unverified / " if args.trust else ""))
        print("|---|---|" + "---|---|" * (5 if args.trust else 4) + "---|")
    else:
        print("| case | N | hamlet 1 rank (s) | hamlet 2 ranks (s) | iterations | SciPy eigsh (s) | max rel. diff |")
        print("|---|---|---|---|---|---|---|")
    for c in CASES:
        shift = float(open(os.path.join(work, c + ".shift")).read())
        has_mass = os.path.exists(os.path.join(work, c + "_M.mtx"))
        mass = "mass = %s_M.mtx\n" % c if has_mass else ""
        text = ("[hamiltonian]\nmodel = mtx\nmatrix = %s.mtx\n%s[solver]\nmethod = lobpcg\nnev = %d\n"
                "tol = %g\nmaxit = 300\ntransform = shift_invert\nshift = %r\nouter = %s\n" % (c, mass, NEV, TOL, shift,
                                                                                      args.outer))
        open(os.path.join(work, c + ".ini"), "w").write(text)
        open(os.path.join(work, c + ".trust.ini"), "w").write(text + "verify_copies = no\n")
        A = sio.mmread(os.path.join(work, c + ".mtx")).tocsc()
        B = sio.mmread(os.path.join(work, c + "_M.mtx")).tocsc() if has_mass else None
        if not args.slepc:
            times, values, its = [], None, 0
            for ranks in (1, 2):
                t, _, v, n_its = run_hamlet(hamlet, work, c, ranks, env)
                times.append(t)
                if v is not None:
                    values, its = v, n_its
            ts, _, w = run_scipy(A, B, shift)
            diff = np.abs(values - w).max() / np.abs(w).max() if values is not None and w is not None else float("nan")
            print("| %s | %d | %.3f | %.3f | %d | %.3f | %.1e |" % (c, A.shape[0], times[0], times[1], its, ts, diff))
            continue
        if args.reference == "dense":
            ref = nearest(A.toarray(), None if B is None else B.toarray(), shift, NEV)
        else:
            ref = np.sort(sla.eigsh(A, k=NEV, M=B, sigma=shift, which="LM", tol=1e-14, return_eigenvectors=False))
        cplx = np.iscomplexobj(A.data)
        solvers = ["hamlet"] + (["hamlet-trust"] if args.trust else []) + ["scipy", "slepc-ks", "slepc-lobpcg"]
        times = {s: [] for s in solvers}
        conv = dict.fromkeys(solvers, NEV)
        diff = dict.fromkeys(solvers, 0.0)
        for _ in range(args.repeat):
            for s in solvers:
                if s == "hamlet":
                    t, n, v, _ = run_hamlet(hamlet, work, c, 1, env)
                elif s == "hamlet-trust":
                    t, n, v, _ = run_hamlet(hamlet, work, c, 1, env, c + ".trust")
                elif s == "scipy":
                    t, n, v = run_scipy(A, B, shift)
                elif s == "slepc-ks":
                    t, n, v = run_slepc(slepc, work, c, shift, "krylovschur", has_mass, cplx)
                elif c in SLEPC_LOBPCG:
                    t, n, v = run_slepc(slepc, work, c, shift, "lobpcg", has_mass, cplx)
                else:
                    t, n, v = float("nan"), -1, None
                times[s].append(t if n >= NEV else float("nan"))
                conv[s] = min(conv[s], n)
                d = rel_diff(v, ref) if n >= NEV else float("nan")
                diff[s] = max(diff[s], d) if d == d and diff[s] == diff[s] else float("nan")
        cells = []
        for s in solvers:
            if conv[s] < 0:
                cells += ["n/a", "n/a"]
            else:
                cells += [cell_time(times[s]) if conv[s] >= NEV else "-", "%d/%d" % (conv[s], NEV)]
        diffs = " / ".join("n/a" if conv[s] < 0 else "-" if conv[s] < NEV else "%.1e" % diff[s] for s in solvers)
        print("| %s | %d | %s | %s |" % (c, A.shape[0], " | ".join(cells), diffs), flush=True)
        if args.trust:
            solves_rows.append((c, hamlet_solves(work, c, 1), hamlet_solves(work, c + ".trust", 1)))
    if args.slepc:
        print("\nmedian of %d runs per solver (min-max), interleaved; conv: pairs converged (of nev = %d), the fewest "
              "over the runs; '-': not solved; 'n/a': SLEPc's LOBPCG finds only the smallest eigenvalues, and the "
              "shift lies inside the spectrum" % (args.repeat, NEV))
    for c, (s_all, s_verify), (s_trust, _) in solves_rows:
        print("%s: hamlet %d column solves (%d of them the verification), verify_copies = no %d" %
              (c, s_all, s_verify, s_trust))


if __name__ == "__main__":
    main()
