"""Shift-and-invert overheads, two hamlet builds side by side (bench/README.md,
shift-and-invert): the five cases of e2e_shift_invert (tests/support/shift_invert_matrices.py) on a
GRID x GRID grid, nev 4, tol 1e-8, 1 rank, 1 thread; each build runs each case REPEAT times,
interleaved (noisy machine), and one table gives the medians of /timing setup and solve, the
column solves (/eigen inner_solves), the solve phase per column solve and the largest relative
difference of the eigenvalues between the builds.

Usage: /usr/bin/python3 bench/shift_invert_overheads.py BEFORE_HAMLET AFTER_HAMLET [GRID] [--repeat 3]"""
import argparse
import os
import subprocess
import sys
import tempfile
import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
CASES = ["spd_cond13", "pencil", "penalty", "hermitian", "indefinite"]


def write_decks(work, grid):
    subprocess.run([sys.executable, os.path.join(here, "../tests/support/shift_invert_matrices.py"), work, "7", grid],
                   check=True, stdout=subprocess.DEVNULL)
    for c in CASES:
        shift = float(open(os.path.join(work, c + ".shift")).read())
        mass = "mass = %s_M.mtx\n" % c if os.path.exists(os.path.join(work, c + "_M.mtx")) else ""
        open(os.path.join(work, c + ".ini"), "w").write(
            "[hamiltonian]\nmodel = mtx\nmatrix = %s.mtx\n%s[solver]\nmethod = lobpcg\nnev = 4\ntol = 1e-08\n"
            "maxit = 300\ntransform = shift_invert\nshift = %r\n" % (c, mass, shift))


def run(binary, work, case, tag, env):
    """(setup ms, solve ms, column solves, iterations, eigenvalues) of one `hamlet run`."""
    out = os.path.join(work, "%s.%s.h5" % (case, tag))
    if os.path.exists(out):
        os.remove(out)
    subprocess.run([os.environ.get("MPIEXEC", "/usr/bin/mpiexec.mpich"), "-n", "1", binary, "run", case + ".ini",
                    "-o", out, "--quiet"], cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with h5py.File(out, "r") as f:
        e = f["/eigen"].attrs
        return (1e3 * float(np.sum(f["/timing/setup"][()])), 1e3 * float(np.sum(f["/timing/solve"][()])),
                int(e["inner_solves"]), int(e["iterations"]), f["/eigen/values"][:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("grid", nargs="?", default="45")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    bins = {"before": os.path.abspath(args.before), "after": os.path.abspath(args.after)}
    work = tempfile.mkdtemp(prefix="shinv-overheads-")
    write_decks(work, args.grid)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    res = {}
    for _ in range(args.repeat):
        for c in CASES:
            for tag, binary in bins.items():
                res.setdefault((c, tag), []).append(run(binary, work, c, tag, env))
    print("| case | iterations | column solves | setup ms before / after | solve ms before / after | "
          "setup + solve ms before / after | solve ms per column solve before / after | max rel. diff of eigenvalues |")
    print("|---|---|---|---|---|---|---|---|")
    for c in CASES:
        b, a = res[(c, "before")], res[(c, "after")]
        med = lambda runs, i: float(np.median([r[i] for r in runs]))  # noqa: E731
        tot = lambda runs: float(np.median([r[0] + r[1] for r in runs]))  # noqa: E731
        diff = max(float(np.max(np.abs(r[4] - b[0][4]) / np.abs(b[0][4]))) for r in a)
        both = lambda i: "%d" % b[0][i] if b[0][i] == a[0][i] else "%d / %d" % (b[0][i], a[0][i])  # noqa: E731
        print("| %s | %s | %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.3f / %.3f | %.1e |"
              % (c, both(3), both(2), med(b, 0), med(a, 0), med(b, 1), med(a, 1), tot(b), tot(a),
                 med(b, 1) / b[0][2], med(a, 1) / a[0][2], diff))


if __name__ == "__main__":
    main()
