"""hamlet's time evolution against TBPLaS's (its TBPM propagator, calc_corr_dos) on the same graphene
sheet, vector and cores: L x L cells (2 L^2 orbitals, periodic), one random start vector, T steps of
exp(-i H dt) with the same expansion argument (the spectral half-width times dt equals pi in both: TBPLaS's
own time step 2 pi / energy range) and the same tail accuracy (1e-14). TBPLaS: t = -2.7 eV, its interval
set to [-8.1, 8.1] eV (rescale_ham); hamlet: graphene.lattice (t = -1), the Gershgorin interval [-3, 3]
without margin, dt = pi / 3, its default storage (assembled CSR on CPUs, as TBPLaS's) unless --storage.
Prints each code's steps time, its time per step and per step and orbital, the expansion order per step,
and hamlet's speedup.
    PYTHONPATH=TBPLAS_SOURCE /usr/bin/python3 bench/tbplas_evolution.py HAMLET [--cells L] [--steps T] [--storage S]
TBPLaS's Fortran and Cython modules are built from its repository with CMake (bench/tbplas.md says how);
OMP_NUM_THREADS sets both codes' threads."""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time

DECK = """[run]
backend = cpu
[hamiltonian]
model = lattice
lattice_file = {lattice}
nx = {L}
ny = {L}
nz = 1
boundary = periodic periodic open
storage = {storage}
[solver]
method = evolution
[kpm]
bounds = gershgorin
bounds_margin = 0
[evolution]
dt = {dt!r}
steps = {T}
accuracy = 1e-14
start = random
vectors = 1
"""


def run_tbplas(L, T, work):
    import tbplas as tb
    t0 = time.perf_counter()
    cell = tb.make_graphene_diamond()
    sample = tb.Sample(tb.SuperCell(cell, dim=(L, L, 1), pbc=(True, True, False)))
    sample.rescale_ham(8.1)  # 3 |t|: the band edges
    config = tb.Config()
    config.generic["nr_time_steps"] = T
    config.generic["nr_random_samples"] = 1
    config.generic["Bessel_precision"] = 1e-14
    solver = tb.Solver(sample, config, echo_details=False, prefix="corr", directory=work)
    order = len(solver._get_bessel_series(2 * math.pi / sample.energy_range))
    sample.init_hop()
    built = time.perf_counter() - t0
    t0 = time.perf_counter()
    solver.calc_corr_dos()
    return built, time.perf_counter() - t0, order


def run_hamlet(hamlet, L, T, work, storage):
    lattice = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inputs", "lattices", "graphene.lattice")
    deck = os.path.join(work, "evolution.ini")
    with open(deck, "w") as f:
        f.write(DECK.format(lattice=os.path.abspath(lattice), L=L, T=T, dt=math.pi / 3, storage=storage))
    t0 = time.perf_counter()
    text = subprocess.run([hamlet, "run", deck, "-o", os.path.join(work, "evolution.h5")], capture_output=True,
                          text=True, check=True).stdout
    wall = time.perf_counter() - t0
    steps = float(re.search(r"steps ([0-9.]+) s", text).group(1))
    order = int(re.search(r"\((\d+) terms each", text).group(1))
    return wall, steps, order


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("hamlet")
    p.add_argument("--cells", type=int, default=512)
    p.add_argument("--steps", type=int, default=64)
    p.add_argument("--storage", choices=("auto", "assembled", "matrix_free"), default="auto",
                   help="hamlet's [hamiltonian] storage (auto: assembled on CPUs for graphene)")
    a = p.parse_args()
    n = 2 * a.cells**2
    with tempfile.TemporaryDirectory() as work:
        wall, h_steps, h_order = run_hamlet(os.path.abspath(a.hamlet), a.cells, a.steps, work, a.storage)
        built, t_steps, t_order = run_tbplas(a.cells, a.steps, work)
    threads = os.environ.get("OMP_NUM_THREADS", "all")
    for name, seconds, order in (("hamlet", h_steps, h_order), ("TBPLaS", t_steps, t_order)):
        per = seconds / a.steps
        print(f"{name:7s} N = {n}, {a.steps} steps, order {order}: {seconds:.2f} s, {per * 1e3:.2f} ms per step, "
              f"{per / n * 1e9:.2f} ns per step and orbital ({threads} threads)")
    print(f"hamlet's whole run {wall:.2f} s; TBPLaS's sample build {built:.2f} s; "
          f"steps: hamlet {t_steps / h_steps:.2f}x faster")


if __name__ == "__main__":
    sys.exit(main())
