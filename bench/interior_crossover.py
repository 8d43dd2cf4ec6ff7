"""Interior eigenpairs: Chebyshev filter diagonalization (method = interior) against shift-and-invert
(hamlet's Krylov-Schur on (H - 0)^-1 with a direct factorization, and SciPy's eigsh with sigma = 0:
ARPACK + SuperLU) on the same disordered TIs (4 orbitals, W = 0.5): slabs of L x L x 8 sites (N = 32 L^2,
periodic in the plane) or cubes of L^3 sites (N = 4 L^3, open on every face), the K eigenpairs nearest E = 0
(surface Dirac-cone states): shift-and-invert finds them first and its largest |E| sets the window
[-1.0001 |E|_K, 1.0001 |E|_K] that ChebFD is asked for. The matrices SciPy reads are hamlet's own
(`hamlet export`). Every time is one run's wall clock of the whole program (deck to result; SciPy:
read to eigenvalues, reading not counted), on the same machine and threads; the table gives the
ratios and fits t ~ N^p for each method, and from the fits the size where ChebFD overtakes each peer.

Usage: /usr/bin/python3 bench/interior_crossover.py HAMLET_BINARY [L ...]   (default 16 24 32 48)
         [--nev K] (16) [--ranks R] (1) [--geometry slab | cube] (slab) [--no-scipy] (sizes where SuperLU's
         fill takes too long: its column and fit are left out)"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
import h5py
import numpy as np
import scipy.io as sio
import scipy.sparse.linalg as sla

MODEL = """[hamiltonian]
model = ti
nx = {L}
ny = {L}
nz = {nz}
boundary = {boundary}
potential = disorder
disorder_w = 0.5
disorder_seed = 3
"""


def run(hamlet, work, name, text, ranks, args=("run",)):
    """Wall seconds of `hamlet run` (or the given subcommand) on the deck `text`."""
    with open(os.path.join(work, name + ".ini"), "w") as f:
        f.write(text)
    cmd = [os.environ.get("MPIEXEC", "mpiexec"), "-n", str(ranks), hamlet, *args, name + ".ini"]
    cmd += ["-o", name + (".mtx" if args[0] == "export" else ".h5")] + (["--quiet"] if args[0] == "run" else [])
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    if r.returncode:
        sys.exit("hamlet %s %s failed (exit %d): %s" % (args[0], name, r.returncode, r.stderr.strip()[-400:]))
    return seconds


def values(work, name):
    with h5py.File(os.path.join(work, name + ".h5"), "r") as f:
        return np.sort(f["/eigen/values"][:])


def fit(n, t):
    """(p, c) of t = c N^p by least squares in logs."""
    p, logc = np.polyfit(np.log(n), np.log(t), 1)
    return p, np.exp(logc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("hamlet")
    ap.add_argument("L", nargs="*", type=int, default=[16, 24, 32, 48])
    ap.add_argument("--nev", type=int, default=16)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--geometry", choices=("slab", "cube"), default="slab")
    ap.add_argument("--no-scipy", action="store_true")
    a = ap.parse_args()
    hamlet = os.path.abspath(a.hamlet)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for L in a.L:
            cube = a.geometry == "cube"
            sides = "open open open" if cube else "periodic periodic open"
            slab = MODEL.format(L=L, nz=L if cube else 8, boundary=sides)
            t_si = run(hamlet, work, "si", slab + "[solver]\nmethod = lobpcg\nnev = %d\ntransform = shift_invert\n"
                       "shift = 0\ninner = direct\ntol = 1e-9\n" % a.nev, a.ranks)
            w_si = values(work, "si")
            edge = 1.0001 * np.abs(w_si).max()
            t_cf = run(hamlet, work, "cf", slab + "[solver]\nmethod = interior\n[interior]\nwindow = %.17g %.17g\n"
                       "tol = 1e-9\n" % (-edge, edge), a.ranks)
            w_cf = values(work, "cf")
            if a.no_scipy:
                w_sp, t_sp = w_si, np.nan
            else:
                run(hamlet, work, "H", slab + "[solver]\nmethod = kpm\n", a.ranks, ("export",))
                H = sio.mmread(os.path.join(work, "H.mtx")).tocsc()
                t0 = time.perf_counter()
                w_sp = np.sort(sla.eigsh(H, k=a.nev, sigma=0, which="LM", tol=1e-9, return_eigenvectors=False))
                t_sp = time.perf_counter() - t0
            nearest = np.sort(w_cf[np.argsort(np.abs(w_cf))][:a.nev])  # ChebFD's window may hold a copy more
            agree = max(np.abs(w_si - w_sp).max(), np.abs(nearest - w_sp).max()) if len(w_cf) >= a.nev else np.nan
            rows.append((4 * L * L * (L if cube else 8), len(w_cf), t_cf, t_si, t_sp, agree))
            print("N %8d: ChebFD %6.2f s (%d pairs in the window), hamlet shift-invert %6.2f s, SciPy eigsh %6.2f s; "
                  "the %d values agree to %.1e" % (rows[-1][0], t_cf, len(w_cf), t_si, t_sp, a.nev, rows[-1][-1]),
                  flush=True)
    n = np.array([r[0] for r in rows], float)
    print("\n| N | ChebFD s | hamlet shift-invert s | SciPy eigsh s | shift-invert / ChebFD | SciPy / ChebFD |")
    print("|---|---|---|---|---|---|")
    for N, _, cf, si, sp, _ in rows:
        print("| %d | %.2f | %.2f | %.2f | %.2f | %.2f |" % (N, cf, si, sp, si / cf, sp / cf))
    if len(rows) >= 2:
        peers = (("ChebFD", 2), ("shift-invert", 3)) + ((("SciPy", 4),) if not a.no_scipy else ())
        fits = {k: fit(n, np.array([r[i] for r in rows])) for k, i in peers}
        print("\nfits t = c N^p: " + ", ".join("%s p = %.2f" % (k, v[0]) for k, v in fits.items()))
        pc, cc = fits["ChebFD"]
        for peer in [k for k in fits if k != "ChebFD"]:
            pp, cp = fits[peer]
            cross = (cc / cp) ** (1 / (pp - pc)) if pp > pc else float("inf")
            print("ChebFD overtakes %s at N = %.3g (from the fits)" % (peer, cross))


if __name__ == "__main__":
    main()
