#!/usr/bin/env python3
"""One table from the logs that bench/peers/run_cpu_peers.sh (or run_gpu_peers.sh) leaves in its folder:
LOBPCG (ms per iteration, per nev) and linear solves (seconds to solution), hamlet first, each
peer with its time relative to hamlet's (peer / hamlet: above 1 means hamlet is faster).

  peers_table.py LOGDIR"""
import glob
import os
import re
import sys

# bench_lobpcg, lobpcg_peers.py and slepc_lobpcg print the same line (the peers with a name first)
LOBPCG = re.compile(r"^\s*(?P<who>[a-z]+)?\s*nev =\s*(?P<nev>\d+): (?P<its>\d+) iterations in (?P<sec>[\d.]+) s"
                    r".*?(?P<ms>[\d.]+) ms per iteration.*lambda\[0\] = (?P<lam>\S+) \((?P<what>residual|error estimate)"
                    r" (?P<res>\S+)\)")
# idr_peers.py, eigen_idrs and petsc_ksp: solver [system] n nnz matvecs seconds relres status
SOLVE = re.compile(r"^(?P<who>(scipy|cupy|eigen|petsc)-\S+)\s+(?:(?P<system>\S.*?)\s+)?(?P<n>\d+)\s+(?P<nnz>\d+)\s+"
                   r"(?P<mv>\d+)\s+(?P<sec>[\d.]+)\s+(?P<res>\S+)\s+(?P<status>(NOT )?converged)")
# hamlet run: "idr(4)       converged after 157 iterations: residual ... (true)" (problem = linear) or
# "green        1 energies x 1 sites (eta = 0.05): all converged, at most 89 iterations per system"
# (problem = green), and "timing ... solve 0.130 s"
HAMLET_IDR = re.compile(r"^\s*idr\((?P<s>\d+)\)\s+(?P<status>\S+( \S+)?) after (?P<its>\d+) iterations: .*?, (?P<res>\S+) \(true\)")
HAMLET_GREEN = re.compile(r"^\s*green\s+.*: (?P<status>.*?), at most (?P<its>\d+) iterations per system")
HAMLET_SOLVE = re.compile(r"timing .*solve (?P<sec>[\d.]+) s")


def config(path):
    """The first line of each log is '# config: ...' (ranks x threads), written by the runner."""
    with open(path) as f:
        first = f.readline()
    return first[len("# config:"):].strip() if first.startswith("# config:") else ""


def main():
    logdir = sys.argv[1]
    lob, lin = [], []
    for path in sorted(glob.glob(os.path.join(logdir, "*.log"))):
        name, cfg = os.path.basename(path)[:-4], config(path)
        text = open(path, errors="replace").read().splitlines()
        for line in text:
            m = LOBPCG.match(line)
            if m and name.startswith("lobpcg"):  # lobpcg_fem_*: the FEM pencil, the others the Laplacian
                lob.append((int(m["nev"]), m["who"] or "hamlet", cfg, float(m["ms"]), int(m["its"]),
                            m["lam"], m["res"], "fem" if name.startswith("lobpcg_fem") else "laplacian"))
            m = SOLVE.match(line)
            if m and name.startswith("idr"):  # Eigen and PETSc solve the convection-diffusion system only
                system = "TI" if (m["system"] or "").startswith("TI") else "convdiff"
                lin.append((system, m["who"], cfg, int(m["mv"]), float(m["sec"]), m["res"], m["status"]))
        if name.startswith("idr_hamlet"):  # one hamlet run per log: idr_hamlet[_ti]_s<s>
            s = re.search(r"_s(\d+)$", name)
            s = s.group(1) if s else "?"
            sol = next((HAMLET_SOLVE.search(l) for l in text if HAMLET_SOLVE.search(l)), None)
            idr = next((HAMLET_IDR.match(l) for l in text if HAMLET_IDR.match(l)), None)
            green = next((HAMLET_GREEN.match(l) for l in text if HAMLET_GREEN.match(l)), None)
            if idr and sol:
                lin.append(("convdiff", f"hamlet-idr({s})+smooth", cfg, int(idr["its"]), float(sol["sec"]),
                            idr["res"], "converged" if idr["status"] == "converged" else "NOT converged"))
            elif green and sol:  # 4 orbital systems batched; products = 4 x the most per system
                lin.append(("TI", f"hamlet-idr({s})+smooth k=4", cfg, 4 * int(green["its"]), float(sol["sec"]),
                            "<= tol", "converged" if green["status"] == "all converged" else "NOT converged"))
    for problem, title in (("laplacian", "7-point Laplacian"), ("fem", "FEM Q1 pencil K x = lambda M x")):
        rows_p = [r for r in lob if r[7] == problem]
        if not rows_p:
            continue
        print(f"LOBPCG, {title}, fixed iterations, no preconditioner (ms per iteration; ratio = peer / hamlet)")
        print(f"{'nev':>4} {'solver':<10} {'ranks x threads':<30} {'ms/iter':>10} {'ratio':>7} {'its':>5} "
              f"{'lambda[0]':>16} {'res/err':>9}")
        for nev in sorted({r[0] for r in rows_p}):
            rows = [r for r in rows_p if r[0] == nev]
            ref = min((r[3] for r in rows if r[1] == "hamlet"), default=None)  # hamlet's best layout
            for r in sorted(rows, key=lambda r: (r[1] != "hamlet", r[3])):
                ratio = f"{r[3] / ref:.2f}" if ref else "-"
                print(f"{nev:>4} {r[1]:<10} {r[2]:<30} {r[3]:>10.3f} {ratio:>7} {r[4]:>5} {r[5]:>16} {r[6]:>9}")
        print()
    for system in ("convdiff", "TI"):
        rows = [r[1:] for r in lin if r[0] == system]
        if not rows:
            continue
        what = ("convection-diffusion, b = ones" if system == "convdiff" else
                "shifted TI z - H, the 4 orbital unit vectors of the central site (matvecs: all 4 systems)")
        print(f"Linear solves to the same relative tolerance from x = 0: {what} (seconds; ratio = peer / hamlet)")
        print(f"{'solver':<26} {'ranks x threads':<30} {'matvecs':>8} {'seconds':>9} {'ratio':>7} "
              f"{'true relres':>11}  status")
        ref = min((r[3] for r in rows if r[0].startswith("hamlet") and r[5] == "converged"), default=None)
        for r in sorted(rows, key=lambda r: (not r[0].startswith("hamlet"), r[3])):
            ratio = f"{r[3] / ref:.2f}" if ref else "-"
            print(f"{r[0]:<26} {r[1]:<30} {r[2]:>8} {r[3]:>9.3f} {ratio:>7} {r[4]:>11}  {r[5]}")
        print()
    if not lob and not lin:
        print(f"no results found in {logdir}/*.log")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
