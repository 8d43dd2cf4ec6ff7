#!/usr/bin/python3
"""Remake the references of the regression cases whose reference comes from an independent solver.
Usage (from the repository root): /usr/bin/python3 regression/make_references.py
Nothing of hamlet runs: every matrix is built in NumPy from the deck (tests/support/hamiltonians.py)
and solved by NumPy's LAPACK:
- fem_well_lobpcg: the lowest nev eigenvalues of K/2 + V against the mass matrix (Q1, 3-point Gauss);
- convdiff_idr:    x from a dense direct solve of the central-difference matrix, b = ones;
- ti_green_ldos:   G_(io,io)(E + i eta) from all eigenpairs of the TI lattice H.
ti_slab_dots is a plain regression reference made by hamlet (README.md); its KPM moments are checked
against the exact spectrum by tests/e2e/residuals.sh on random lattices instead."""
import os, re, sys
import h5py, numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tests", "support"))
import hamiltonians as hm  # noqa: E402


def deck(case):
    return hm.read_deck(os.path.join(here, case, "deck.ini"))


def write(case, datasets):
    with h5py.File(os.path.join(here, case, "reference.h5"), "w") as f:
        for path, data in datasets.items():
            f[path] = data


# fem_well_lobpcg: generalized dense eigenvalues
d = deck("fem_well_lobpcg")
H, M = hm.fem(d)
write("fem_well_lobpcg", {"/eigen/values": hm.generalized_eigvalsh(H, M)[: d["solver"].getint("nev")]})

# convdiff_idr: direct solve
A = hm.convdiff(deck("convdiff_idr"))
x = np.linalg.solve(A.dense(), np.ones(A.n))
write("convdiff_idr", {"/solution/x": x.reshape(-1, 1)})

# ti_green_ldos: spectral sum over all eigenpairs, G_(io,io)(z) = sum_n |psi_n(io)|^2 / (z - E_n)
d = deck("ti_green_ldos")
E, V = np.linalg.eigh(hm.ti(d).dense())
h, g = d["hamiltonian"], d["green"]
nx, ny = h.getint("nx"), h.getint("ny")
lo, hi, count = g.get("energies").split()
energies = np.linspace(float(lo), float(hi), int(count))
eta = g.getfloat("eta")
sites = [list(map(int, s.split())) for s in g.get("sites").split(";")]
G = np.zeros((len(energies), len(sites), 4), complex)
for e, En in enumerate(energies):
    for i, (x0, y0, z0) in enumerate(sites):
        for o in range(4):
            row = 4 * (x0 + nx * (y0 + ny * z0)) + o
            G[e, i, o] = np.sum(np.abs(V[row, :]) ** 2 / (En + 1j * eta - E))
write("ti_green_ldos", {"/green/G": np.stack([G.real, G.imag], axis=-1), "/ldos/rho": -G.imag.sum(axis=2) / np.pi})
print("references written")
