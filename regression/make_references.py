#!/usr/bin/python3
"""Remake the references of the regression cases whose reference comes from an independent solver.
Usage (from the repository root): /usr/bin/python3 regression/make_references.py
Nothing of hamlet runs: every matrix is built in NumPy from the deck (tests/support/hamiltonians.py)
and solved by NumPy's LAPACK:
- fem_well_lobpcg: the lowest nev eigenvalues of K/2 + V against the mass matrix (Q1, 3-point Gauss);
- convdiff_idr:    x from a dense direct solve of the central-difference matrix, b = ones;
- ti_green_ldos:   G_(io,io)(E + i eta) from all eigenpairs of the TI lattice H;
- ti_slab_dots:    the KPM moments of each random-phase vector from all eigenpairs of H (dots and
                   disorder), on the Gershgorin interval, and the Jackson-damped DOS summed directly on the Chebyshev nodes.
Usage with a case name remakes that case only."""
import os, re, sys
import h5py, numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tests", "support"))
import hamiltonians as hm  # noqa: E402


def deck(case):
    return hm.read_deck(os.path.join(here, case, "deck.ini"))


def write(case, datasets, attributes=None):
    with h5py.File(os.path.join(here, case, "reference.h5"), "w") as f:
        for path, data in datasets.items():
            f[path] = data
        for path, attrs in (attributes or {}).items():
            obj = f.require_group(path)
            for name, value in attrs.items():
                obj.attrs[name] = value


wanted = sys.argv[1:]


def remake(case):
    return not wanted or case in wanted


# fem_well_lobpcg: generalized dense eigenvalues
if remake("fem_well_lobpcg"):
    d = deck("fem_well_lobpcg")
    H, M = hm.fem(d)
    write("fem_well_lobpcg", {"/eigen/values": hm.generalized_eigvalsh(H, M)[: d["solver"].getint("nev")]})

# convdiff_idr: direct solve
if remake("convdiff_idr"):
    A = hm.convdiff(deck("convdiff_idr"))
    x = np.linalg.solve(A.dense(), np.ones(A.n))
    write("convdiff_idr", {"/solution/x": x.reshape(-1, 1)})


def green_ldos():
    """ti_green_ldos: spectral sum over all eigenpairs, G_(io,io)(z) = sum_n |psi_n(io)|^2 / (z - E_n)."""
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


if remake("ti_green_ldos"):
    green_ldos()


def slab_dots():
    """ti_slab_dots: KPM from the exact spectrum. The README defines what hamlet writes: random-phase
    vectors v_r(i) = exp(2 pi i u(seed, r, i)) (u: the documented SplitMix64 counter generator),
    mu_(r,n) = <v_r|T_n(scale (H - shift))|v_r> / N, the Gershgorin interval widened by bounds_margin
    on each side, and rho(E) = scale N / (pi sqrt(1 - x^2)) [g_0 mu_0 + 2 sum_n g_n mu_n T_n(x)] per
    vector (Jackson g_n, Weisse et al. 2006), its mean over the vectors and the standard error of
    that mean. Here mu_(r,n) = sum_k |<psi_k|v_r>|^2 T_n(x_k) / N from all eigenpairs of H (LAPACK)."""
    d = deck("ti_slab_dots")
    h, k = d["hamiltonian"], d["kpm"]
    assert k.get("bounds") == "gershgorin" and k.get("kernel") == "jackson", "the reference assumes these"
    H = hm.ti(d)
    A = H.dense()
    N = H.n
    M, R, seed = k.getint("moments"), k.getint("vectors"), k.getint("seed")
    margin = k.getfloat("bounds_margin", 0.05)
    radius = np.abs(A).sum(axis=1) - np.abs(np.diag(A))
    lo, hi = (np.diag(A).real - radius).min(), (np.diag(A).real + radius).max()
    emin, emax = lo - margin * (hi - lo), hi + margin * (hi - lo)
    scale, shift = 2.0 / (emax - emin), 0.5 * (emax + emin)
    E, V = np.linalg.eigh(A)
    x = scale * (E - shift)
    assert np.all(np.abs(x) < 1)
    rows = np.arange(N, dtype=np.uint64)
    phases = np.stack([np.exp(2j * np.pi * hm.uniform(seed, r, rows)) for r in range(R)], axis=1)
    weight = np.abs(V.conj().T @ phases) ** 2 / N  # [k, r]
    T = np.cos(np.outer(np.arange(M), np.arccos(x)))  # T_n(x_k)
    mu_r = (T @ weight).T  # [r, n]
    a = np.pi / (M + 1)
    n = np.arange(M)
    g = ((M - n + 1) * np.cos(a * n) + np.sin(a * n) / np.tan(a)) / (M + 1)
    assert k.getint("energies") == 0, "the reference evaluates the DOS on the 2M Chebyshev nodes"
    theta = np.pi * (np.arange(2 * M)[::-1] + 0.5) / (2 * M)  # x = cos(theta) ascending
    energy = shift + np.cos(theta) / scale
    series = g[0] * mu_r[:, :1] + 2 * (g[1:] * mu_r[:, 1:]) @ np.cos(np.outer(n[1:], theta))
    per_state = {"states": N, "unit": 1}[k.get("normalize", "states")]
    rho_r = scale * per_state * series / (np.pi * np.sin(theta))
    rho = rho_r.mean(axis=0)
    error = rho_r.std(axis=0, ddof=1) / np.sqrt(R)
    nnz = H.nnz()
    kpm_attrs = {"N": np.int64(N), "emin": emin, "emax": emax, "scale": scale, "shift": shift,
                 "moments": np.int64(M), "moments_done": np.int64(M), "vectors": np.int64(R),
                 "seed": np.uint64(seed), "bounds_margin": margin, "lambda": k.getfloat("lambda", 4.0)}
    ham_attrs = {"N": np.int64(N), "nnz": np.int64(nnz)}
    for key in ("nx", "ny", "nz", "dot_period_x", "dot_period_y", "dot_depth"):
        ham_attrs[key] = np.int64(h.getint(key))
    for key in ("t", "m", "dot_radius", "dot_v0", "disorder_w"):
        ham_attrs[key] = h.getfloat(key)
    ham_attrs["disorder_seed"] = np.uint64(h.getint("disorder_seed"))
    write("ti_slab_dots", {"/kpm/moments": mu_r.mean(axis=0), "/kpm/moments_per_vector": mu_r,
                           "/dos/energy": energy, "/dos/rho": rho, "/dos/error": error},
          {"/kpm": kpm_attrs, "/hamiltonian": ham_attrs, "/dos": {"lambda": k.getfloat("lambda", 4.0)}})


if remake("ti_slab_dots"):
    slab_dots()
print("references written")
