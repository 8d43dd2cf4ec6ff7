#!/usr/bin/env python3
"""KITE (github quantum-kite/kite) as a KPM peer of hamlet.

KITEx reads one HDF5 file that KITE's Python front end (kite.py, on top of pybinding) writes.
This module writes that file directly with numpy + h5py for the two benchmark lattices, and
checks what KITEx computed against the exact Bloch spectrum:

  write graphene --cells L1 L2 ...     2 orbitals, 3 neighbours, hopping -t, periodic
                                       (inputs/lattices/graphene.lattice)
  write ti --cells NX NY NZ ...        hamlet's Wilson-Dirac TI (physics/ti/ti.c), periodic
  check FILE [--mode random|ones|site] KITE's moments (/Calculation/dos/MU) against exact ones
  encoding FILE                        decode the written Hamiltonian back into H(k) and compare
                                       with the model's Bloch matrix (no KITE needed)
  divisions --cells ... --threads 16   KITE's thread grid for a lattice

KITE's conventions, read from kite.py and KITEx's sources (snapshot 560a4c9):
- H is stored per orbital of the unit cell (rows of /Hamiltonian/Hoppings and /Hamiltonian/d):
  entry (a -> b, R) has code sum_i (R_i + 1) 3^i + b 3^D (so |R_i| <= 1: nearest cells only) and
  value <a,0|H|b,R> / EnergyScale; the on-site block is the R = 0 entry. Both H(R) and H(-R) =
  H(R)^dagger are listed.
- KITEx runs exactly prod(Divisions) OpenMP threads (OMP_NUM_THREADS is ignored) and needs
  L_i divisible by Divisions_i * TILE (TILE = 8 at compile time).
- One random vector at a time, normalized to 1 (mu_0 ~ 1); no Chebyshev doubling: M moments
  cost M products of H with one vector, R random vectors cost R times that.
- The SEED environment variable: unset = std::random_device per thread; a number = the same
  sequence in every thread's domain (the domains then repeat one random pattern);
  "ones" = the uniform vector (a k = 0 state: exact moments u^+ T_n(H(0)) u, u = (1..1)/sqrt(n_orb));
  "deterministic" (2D only) = the unit vector of orbital 0 of cell (0, 0): exact moments
  <0|T_n(H)|0> = mean over k of [T_n(H(k))]_00.
"""
import argparse
import itertools
import os
import subprocess
import sys
import time

import h5py
import numpy as np

TILE = 8  # KITEx's compile-time tile (Src/Generic.hpp)
KITE_VERSION = "560a4c9"  # the snapshot bench/kite_build.sh builds


class BadInput(Exception):
    """A request KITE cannot run (the message says what is allowed); exit status 2."""


# ----------------------------------------------------------------------------- the two models
def graphene_blocks(t):
    """Cell blocks {R: H(R)} of graphene as inputs/lattices/graphene.lattice has it (hamlet's
    `model = lattice` deck inputs/graphene_dos.ini): a1 = (1, 0), a2 = (1/2, sqrt(3)/2), A at
    (a1 + a2)/3, B at 2 (a1 + a2)/3; A(c) hops with -t to B(c), B(c - a1) and B(c - a2)."""
    hop = np.zeros((2, 2), dtype=complex)
    hop[0, 1] = -t
    blocks = {}
    for r in [(0, 0), (-1, 0), (0, -1)]:
        blocks[r] = blocks.get(r, np.zeros((2, 2), complex)) + hop
        minus = tuple(-x for x in r)
        blocks[minus] = blocks.get(minus, np.zeros((2, 2), complex)) + hop.conj().T
    vectors = np.array([[1.0, 0.0], [0.5, np.sqrt(3) / 2]])
    positions = np.array([(vectors[0] + vectors[1]) / 3, 2 * (vectors[0] + vectors[1]) / 3])
    return blocks, vectors, positions


def ti_gammas():
    """G1 = tau_z (x) sigma_0 and G_{j+2} = tau_x (x) sigma_j, orbital o = 2 tau + sigma
    (as physics/ti/ti.c orders them)."""
    s0 = np.eye(2)
    sx = np.array([[0, 1], [1, 0]], complex)
    sy = np.array([[0, -1j], [1j, 0]])
    sz = np.diag([1.0, -1.0]).astype(complex)
    tz, tx = sz, sx
    return np.kron(tz, s0), [np.kron(tx, s) for s in (sx, sy, sz)]


def ti_blocks(t, m):
    """hamlet's Wilson-Dirac TI (physics/ti/ti.c): H(0) = m G1, H(+e_j) = <n|H|n+e_j> =
    -t/2 (G1 + i G_{j+2}), H(-e_j) = H(+e_j)^+; Bloch H(k) = (m - t sum cos k_j) G1 +
    t sum sin k_j G_{j+2}, bands +-sqrt((m - t sum cos)^2 + t^2 sum sin^2), each twice."""
    g1, gj = ti_gammas()
    blocks = {(0, 0, 0): m * g1.astype(complex)}
    for j in range(3):
        e = [0, 0, 0]
        e[j] = 1
        up = -0.5 * t * (g1 + 1j * gj[j])
        blocks[tuple(e)] = up
        blocks[tuple(-x for x in e)] = up.conj().T
    return blocks, np.eye(3), np.zeros((4, 3))


def model_blocks(model, t, m):
    if model == "graphene":
        return graphene_blocks(t)
    return ti_blocks(t, m)


def bloch(blocks, k):
    """H(k) = sum_R H(R) exp(i k.R), k in units where the cell displacement R is an integer."""
    n = next(iter(blocks.values())).shape[0]
    h = np.zeros((n, n), complex)
    for r, b in blocks.items():
        h += b * np.exp(1j * np.dot(k, r))
    return h


def k_grid(cells):
    axes = [2 * np.pi * np.arange(n) / n for n in cells]
    return np.array(list(itertools.product(*axes)))


def bloch_eigen(blocks, cells):
    """Eigenvalues (nk, n_orb) and eigenvectors (nk, n_orb, n_orb) on the periodic lattice's k grid."""
    return np.linalg.eigh(bloch_many(blocks, k_grid(cells)))


def bloch_many(blocks, ks):
    """H(k) for each row of ks, stacked."""
    n = next(iter(blocks.values())).shape[0]
    hs = np.zeros((len(ks), n, n), complex)
    for r, b in blocks.items():
        hs += np.exp(1j * (ks @ np.asarray(r, float)))[:, None, None] * b
    return hs


def spectral_radius(blocks):
    """max |E| over the Brillouin zone (an even grid: it holds k_i = 0 and pi), for the energy scale."""
    dim = len(next(iter(blocks)))
    n = 48 if dim == 2 else 24
    grid = k_grid([n] * dim)
    return np.abs(np.linalg.eigvalsh(bloch_many(blocks, grid))).max()


# ----------------------------------------------------------------------------- KITE's thread grid
def choose_divisions(cells, threads):
    """The thread grid (prod = threads) with every L_i divisible by d_i * TILE whose domains have
    the smallest ghost surface (sum over faces of the domain), i.e. the most compact domains."""
    best = None
    for d in itertools.product(range(1, threads + 1), repeat=len(cells)):
        if int(np.prod(d)) != threads or any(n % (di * TILE) for n, di in zip(cells, d)):
            continue
        local = [n // di for n, di in zip(cells, d)]
        surface = sum(np.prod(local) / x for x in local)
        if best is None or surface < best[0]:
            best = (surface, d)
    if best is None:
        raise BadInput(f"no thread grid of {threads} threads divides cells {cells} into multiples of "
                         f"TILE = {TILE}: choose cells that are multiples of {TILE} x the grid")
    return list(best[1])


# ----------------------------------------------------------------------------- the input file
def encode(blocks, scale):
    """Per orbital a of the cell: KITE's hopping codes and values (see the module's notes)."""
    dim = len(next(iter(blocks)))
    n_orb = next(iter(blocks.values())).shape[0]
    rows = [dict() for _ in range(n_orb)]
    for r, b in blocks.items():
        if max(abs(x) for x in r) > 1:
            raise BadInput(f"KITE allows hoppings to neighbouring cells only; R = {r}")
        cell_code = sum((x + 1) * 3**i for i, x in enumerate(r))
        for a, c in zip(*np.nonzero(np.abs(b) > 0)):
            code = cell_code + int(c) * 3**dim
            rows[a][code] = rows[a].get(code, 0) + b[a, c] / scale
    width = max(len(row) for row in rows)
    d = np.zeros((n_orb, width), np.int32)
    hop = np.zeros((n_orb, width), complex)
    for a, row in enumerate(rows):
        for i, code in enumerate(sorted(row)):
            d[a, i] = code
            hop[a, i] = row[code]
    return np.array([len(r) for r in rows], np.uint32), d, hop


def decode(nhop, d, hop, dim, scale):
    """The inverse of encode: {R: H(R)} (to check a written file independently of the writer's loop)."""
    n_orb = len(nhop)
    blocks = {}
    for a in range(n_orb):
        for i in range(int(nhop[a])):
            code = int(d[a, i])
            b, rest = divmod(code, 3**dim)
            r = []
            for _ in range(dim):  # digit i is R_i + 1
                rest, digit = divmod(rest, 3)
                r.append(digit - 1)
            key = tuple(r)
            blocks.setdefault(key, np.zeros((n_orb, n_orb), complex))[a, b] += hop[a, i] * scale
    return blocks


KITE_DIRECTIONS = {"xx": 0, "yy": 1, "zz": 2, "xy": 3, "xz": 4, "yx": 5, "yz": 6, "zx": 7, "zy": 8}


def write_calculation(f, calc, moments, randoms, points, scale, direction="xx", temperature=0.0, energies=(0.0,),
                      gamma=0.01):
    """The /Calculation group KITEx reads for one target: dos; conductivity_dc (the full-spectrum
    two-dimensional moments of one component, as hamlet's method = conductivity); optical (KITE's
    conductivity_optical: the same M x M moments plus M one-dimensional ones, as hamlet's
    [conductivity] frequencies reuse its DC moments); singleshot (KITE's
    singleshot_conductivity_dc: sigma_aa at given Fermi energies with broadening gamma, O(N) per energy;
    xx, yy, zz only). Energies, temperature and gamma in the model's energy units (rescaled here)."""
    g = f.create_group("Calculation")
    if calc == "dos":
        c = g.create_group("dos")
        c.create_dataset("NumPoints", data=[points or 2 * moments], dtype=np.int32)
    elif calc == "conductivity_dc":
        c = g.create_group("conductivity_dc")
        c.create_dataset("NumPoints", data=[points or 2 * moments], dtype=np.int32)
        c.create_dataset("Temperature", data=[temperature / scale], dtype=np.float64)
        c.create_dataset("Direction", data=[KITE_DIRECTIONS[direction]], dtype=np.int32)
    elif calc == "optical":
        c = g.create_group("conductivity_optical")
        c.create_dataset("NumPoints", data=[points or 2 * moments], dtype=np.int32)
        c.create_dataset("Temperature", data=[temperature / scale], dtype=np.float64)
        c.create_dataset("Direction", data=[KITE_DIRECTIONS[direction]], dtype=np.int32)
    elif calc == "singleshot":
        if KITE_DIRECTIONS[direction] > 2:
            raise BadInput(f"singleshot conductivity is longitudinal only (xx, yy, zz), not {direction}")
        c = g.create_group("singleshot_conductivity_dc")
        n = len(energies)
        c.create_dataset("Energy", data=[np.asarray(energies, float) / scale], dtype=np.float64)
        c.create_dataset("Gamma", data=[np.full(n, gamma / scale)], dtype=np.float64)
        c.create_dataset("PreserveDisorder", data=[np.zeros(n, int)], dtype=np.int32)
        c.create_dataset("Direction", data=[KITE_DIRECTIONS[direction]], dtype=np.int32)
        c.create_dataset("NumMoments", data=[np.full(n, moments)], dtype=np.int32)
        c.create_dataset("NumRandoms", data=[randoms], dtype=np.int32)
        c.create_dataset("NumDisorder", data=[1], dtype=np.int32)
        return
    else:
        raise BadInput(f"calculation {calc}: allowed are dos, conductivity_dc, optical, singleshot")
    c.create_dataset("NumMoments", data=[moments], dtype=np.int32)
    c.create_dataset("NumRandoms", data=[randoms], dtype=np.int32)
    c.create_dataset("NumDisorder", data=[1], dtype=np.int32)


def write_input(path, model, cells, moments, randoms, divisions, t=1.0, m=2.0, complex_=None,
                scale=None, points=None, calc="dos", **target):
    blocks, vectors, positions = model_blocks(model, t, m)
    dim = len(cells)
    if dim != vectors.shape[0]:
        raise BadInput(f"{model} needs {vectors.shape[0]} cell counts, got {cells}")
    if len(divisions) != dim or any(n % (di * TILE) for n, di in zip(cells, divisions)):
        raise BadInput(f"cells {cells} must be multiples of divisions {divisions} x TILE = {TILE}")
    if moments < 2 or moments % 2 or randoms < 1:
        # KITEx computes moments in pairs: with an odd M its last pair lands past its array.
        raise BadInput(f"moments must be even and >= 2 (got {moments}); random vectors >= 1 (got {randoms})")
    is_complex = any(np.abs(b.imag).max() > 0 for b in blocks.values()) if complex_ is None else complex_
    if scale is None:
        scale = 1.01 * spectral_radius(blocks)  # KPM needs the spectrum inside (-1, 1)
    nhop, d, hop = encode(blocks, scale)
    with h5py.File(path, "w") as f:
        f.create_dataset("IS_COMPLEX", data=int(is_complex), dtype="u4")
        f.create_dataset("PRECISION", data=1, dtype="u4")  # double
        f.create_dataset("L", data=np.asarray(cells), dtype="u4")
        f.create_dataset("Boundaries", data=np.ones(dim), dtype="u4")  # 1 = periodic
        f.create_dataset("BoundaryTwists", data=np.zeros(dim), dtype=float)
        f.create_dataset("Divisions", data=np.asarray(divisions), dtype="u4")
        f.create_dataset("DIM", data=dim, dtype="u4")
        f.create_dataset("LattVectors", data=vectors, dtype=np.float64)
        f.create_dataset("OrbPositions", data=positions, dtype=np.float64)
        f.create_dataset("NOrbitals", data=positions.shape[0], dtype="u4")
        f.create_dataset("EnergyScale", data=scale, dtype=np.float64)
        f.create_dataset("EnergyShift", data=0.0, dtype=np.float64)
        g = f.create_group("Hamiltonian")
        g.create_dataset("NHoppings", data=nhop, dtype="u4")
        g.create_dataset("d", data=d, dtype="i4")
        g.create_dataset("CustomLocalEnergy", data=0, dtype=int)
        g.create_dataset("PrintCustomLocalEnergy", data=0, dtype=int)
        g.create_dataset("Hoppings", data=hop if is_complex else hop.real)
        dis = g.create_group("Disorder")  # none: empty, as kite.py writes it
        for name in ("OnsiteDisorderModelType", "OrbitalNum", "OnsiteDisorderMeanValue", "OnsiteDisorderMeanStdv"):
            dis.create_dataset(name, (1, 0))
        g.create_group("Vacancy")
        g.create_group("StructuralDisorder")
        write_calculation(f, calc, moments, randoms, points, scale, **target)
        # What the checks need to rebuild the model (KITEx ignores this group).
        p = f.create_group("hamlet_peer")
        p.attrs["model"] = model
        p.attrs["t"] = t
        p.attrs["m"] = m
    return scale


# ----------------------------------------------------------------------------- exact moments, DOS
def chebyshev_diag(values, moments):
    """T_n(values) for n < moments (rows n), by the recurrence."""
    out = np.empty((moments,) + values.shape)
    out[0] = 1.0
    if moments > 1:
        out[1] = values
    for n in range(2, moments):
        out[n] = 2 * values * out[n - 1] - out[n - 2]
    return out


def exact_moments(blocks, cells, scale, moments, mode):
    """mode 'random': (1/N) Tr T_n(H/scale) (the DOS); 'ones': u^+ T_n(H(0)/scale) u;
    'site': [T_n(H/scale)]_{00} of one site (orbital 0 of one cell)."""
    if mode == "ones":
        w, v = np.linalg.eigh(bloch(blocks, np.zeros(len(cells))))
        u = np.ones(len(w)) / np.sqrt(len(w))
        weights = np.abs(v.conj().T @ u) ** 2
        return chebyshev_diag(w / scale, moments) @ weights
    w, v = bloch_eigen(blocks, cells)
    if mode == "site":
        weights = np.abs(v[:, 0, :]) ** 2  # |<orbital 0|band alpha, k>|^2
        return (chebyshev_diag(w / scale, moments) * weights).sum(axis=(1, 2)) / w.shape[0]
    return chebyshev_diag(w / scale, moments).mean(axis=(1, 2))


def jackson(moments):
    n = np.arange(moments)
    q = np.pi / (moments + 1)
    return ((moments - n + 1) * np.cos(q * n) + np.sin(q * n) / np.tan(q)) / (moments + 1)


def dos_from_moments(mu, x):
    """Jackson-smoothed DOS per orbital on x in (-1, 1) (scaled energy)."""
    g = jackson(len(mu)) * mu
    t = chebyshev_diag(x, len(mu))
    return (g[0] + 2 * (g[1:, None] * t[1:]).sum(axis=0)) / (np.pi * np.sqrt(1 - x * x))


def read_kite_moments(path):
    with h5py.File(path, "r") as f:
        if "Calculation/dos/MU" not in f:
            raise BadInput(f"{path}: no /Calculation/dos/MU (did KITEx run on it?)")
        mu = np.asarray(f["Calculation/dos/MU"][()])
        if mu.dtype.names:  # h5py reads KITE's complex compound (r, i) as a structured array
            mu = mu["r"] + 1j * mu["i"]
        p = f["hamlet_peer"].attrs
        info = dict(model=str(p["model"]), t=float(p["t"]), m=float(p["m"]),
                    cells=[int(x) for x in f["L"][()]], scale=float(f["EnergyScale"][()]),
                    randoms=int(f["Calculation/dos/NumRandoms"][0]), n_orb=int(f["NOrbitals"][()]))
    return np.asarray(mu).reshape(-1), info


# ----------------------------------------------------------------------------- commands
def cmd_write(a):
    dim = 2 if a.model == "graphene" else 3
    if len(a.cells) != dim:
        raise BadInput(f"{a.model} needs {dim} cell counts, got {a.cells}")
    divisions = a.divisions or choose_divisions(a.cells, a.threads)
    scale = write_input(a.output, a.model, a.cells, a.moments, a.randoms, divisions, a.t, a.m,
                        True if a.complex else None)
    orbitals = int(np.prod(a.cells)) * (2 if a.model == "graphene" else 4)
    print(f"{a.output}: {a.model} cells {'x'.join(map(str, a.cells))} orbitals {orbitals} "
          f"divisions {'x'.join(map(str, divisions))} threads {int(np.prod(divisions))} "
          f"M {a.moments} R {a.randoms} scale {scale:.6f}")


def cmd_encoding(a):
    with h5py.File(a.file, "r") as f:
        p = f["hamlet_peer"].attrs
        blocks, _, _ = model_blocks(str(p["model"]), float(p["t"]), float(p["m"]))
        dim = int(f["DIM"][()])
        hop = np.asarray(f["Hamiltonian/Hoppings"][()])
        if hop.dtype.names:
            hop = hop["r"] + 1j * hop["i"]
        got = decode(f["Hamiltonian/NHoppings"][()], f["Hamiltonian/d"][()], hop, dim,
                     float(f["EnergyScale"][()]))
    rng = np.random.default_rng(7)
    worst = 0.0
    for k in rng.uniform(-np.pi, np.pi, (20, dim)):
        worst = max(worst, np.abs(bloch(got, k) - bloch(blocks, k)).max())
    herm = max(np.abs(got[r] - got[tuple(-x for x in r)].conj().T).max() for r in got)
    print(f"{a.file}: max |H_file(k) - H_model(k)| = {worst:.2e} at 20 random k; "
          f"max |H(R) - H(-R)^+| = {herm:.2e}")
    return 0 if worst < 1e-12 and herm < 1e-12 else 1


def cmd_check(a):
    mu, info = read_kite_moments(a.file)
    blocks, _, _ = model_blocks(info["model"], info["t"], info["m"])
    exact = exact_moments(blocks, info["cells"], info["scale"], len(mu), a.mode)
    n = int(np.prod(info["cells"])) * info["n_orb"]
    if np.abs(mu.imag).max() > 1e-10 * max(1.0, np.abs(mu).max()):
        print(f"FAIL: moments have an imaginary part {np.abs(mu.imag).max():.2e} (H is Hermitian)")
        return 1
    diff = np.abs(mu.real - exact)
    if a.mode == "random":
        # Random-vector trace estimate: standard deviation <= sqrt(2 / (N R)) per moment.
        tol = a.sigmas * np.sqrt(2.0 / (n * info["randoms"]))
    else:
        tol = 1e-9
    x = np.cos(np.pi * (np.arange(400) + 0.5) / 400)
    rho_k, rho_e = dos_from_moments(mu.real, x), dos_from_moments(exact, x)
    l1 = np.sum(np.abs(rho_k - rho_e) * np.pi * np.sqrt(1 - x * x)) / 400  # integral over x, by Gauss-Chebyshev
    status = "ok" if diff.max() <= tol else "FAIL"
    print(f"{status}: {info['model']} {'x'.join(map(str, info['cells']))} mode {a.mode} "
          f"moments {len(mu)}: max |mu_KITE - mu_exact| = {diff.max():.2e} (tolerance {tol:.1e}, "
          f"at n = {int(diff.argmax())}); mu_0 = {mu.real[0]:.6f}; integral |DOS_KITE - DOS_exact| = {l1:.2e}")
    return 0 if status == "ok" else 1


def real_space(blocks, cells):
    """The dense H of the periodic lattice, row (cell, orbital) = n_orb * (c_0 + L_0 (c_1 + L_1 c_2)) + o
    (hamlet's TI order), assembled from the blocks without the k grid."""
    n_orb = next(iter(blocks.values())).shape[0]
    cells = list(cells)
    n_cells = int(np.prod(cells))
    h = np.zeros((n_cells * n_orb, n_cells * n_orb), complex)
    strides = np.cumprod([1] + cells[:-1])
    for c in itertools.product(*[range(n) for n in cells]):
        row = int(np.dot(c, strides))
        for r, b in blocks.items():
            col = int(np.dot([(ci + ri) % n for ci, ri, n in zip(c, r, cells)], strides))
            h[row * n_orb:(row + 1) * n_orb, col * n_orb:(col + 1) * n_orb] += b
    return h


def cmd_selftest(a):
    """Checks of this module that need no KITE: the models against independent references, the
    exact moments against dense diagonalization, the file encoding, the thread grids."""
    failures = []

    def check(ok, what):
        print(("ok: " if ok else "FAIL: ") + what)
        if not ok:
            failures.append(what)

    # The TI against tests/support/hamiltonians.py (the project's NumPy reference of model = ti).
    if a.support:
        sys.path.insert(0, a.support)
        import hamiltonians  # noqa: E402 (the reference lives in the test tree)
        for t, m in [(1.0, 2.0), (0.7, -1.3)]:
            deck = hamiltonians.read_deck(f"[hamiltonian]\nmodel = ti\nnx = 3\nny = 4\nnz = 5\nt = {t}\nm = {m}\n"
                                          "boundary = periodic periodic periodic\n")
            coo = hamiltonians.build(deck)
            ref = np.zeros((coo.n, coo.n), complex)
            np.add.at(ref, (coo.rows, coo.cols), coo.vals)
            mine = real_space(ti_blocks(t, m)[0], [3, 4, 5])
            check(np.abs(mine - ref).max() < 1e-14, f"TI blocks (t = {t}, m = {m}) assemble to hamlet's reference "
                  f"TI on 3x4x5 (max diff {np.abs(mine - ref).max():.1e})")
    # Graphene against hamlet's own lattice file, where this tree has it ("hop R1 R2 R3 i j Re [Im]":
    # a bond given once, its conjugate implied).
    lattice = os.path.join(a.lattices or "", "graphene.lattice")
    if a.lattices and os.path.exists(lattice):
        theirs = {}
        for line in open(lattice):
            w = line.split("#")[0].split()
            if w and w[0] == "hop":
                r, i, j = tuple(int(x) for x in w[1:3]), int(w[4]), int(w[5])
                v = float(w[6]) + 1j * (float(w[7]) if len(w) > 7 else 0.0)
                for key, (p, q, val) in ((r, (i, j, v)), (tuple(-x for x in r), (j, i, np.conj(v)))):
                    theirs.setdefault(key, np.zeros((2, 2), complex))[p, q] += val
        mine = graphene_blocks(1.0)[0]  # the file's hopping value -1 is -t with t = 1
        same = set(mine) == set(theirs) and all(np.abs(mine[r] - theirs[r]).max() < 1e-15 for r in mine)
        check(same, f"graphene blocks = {lattice}")
    elif a.lattices:
        print(f"no {lattice} in this tree: graphene checked against the analytic bands only")
    # Bloch bands against the analytic ones.
    rng = np.random.default_rng(3)
    g, _, _ = graphene_blocks(1.3)
    k = rng.uniform(-np.pi, np.pi, (50, 2))
    got = np.array([np.linalg.eigvalsh(bloch(g, q)) for q in k])
    f = np.abs(1 + np.exp(-1j * k[:, 0]) + np.exp(-1j * k[:, 1]))
    check(np.abs(got - np.stack([-1.3 * f, 1.3 * f], 1)).max() < 1e-12, "graphene bands = +-t |1 + e^-ik1 + e^-ik2|")
    tb, _, _ = ti_blocks(1.0, 2.0)
    k = rng.uniform(-np.pi, np.pi, (50, 3))
    got = np.array([np.linalg.eigvalsh(bloch(tb, q)) for q in k])
    e = np.sqrt((2.0 - np.cos(k).sum(1)) ** 2 + (np.sin(k) ** 2).sum(1))
    check(np.abs(got - np.stack([-e, -e, e, e], 1)).max() < 1e-12, "TI bands = +-sqrt((m - t sum cos)^2 + t^2 sum sin^2), twice")
    # Exact moments (k grid) against a dense diagonalization of the real-space lattice.
    for name, blocks, cells in [("graphene", g, [6, 5]), ("ti", tb, [3, 2, 4])]:
        w, v = np.linalg.eigh(real_space(blocks, cells))
        scale = 1.01 * spectral_radius(blocks)
        tn = chebyshev_diag(w / scale, 40)
        n_orb = blocks[next(iter(blocks))].shape[0]
        u = np.ones(len(w)) / np.sqrt(len(w))
        dense = {"random": tn.mean(axis=1), "site": tn @ (np.abs(v[0]) ** 2),
                 "ones": tn @ (np.abs(v.conj().T @ u) ** 2)}
        for mode, ref in dense.items():
            mine = exact_moments(blocks, cells, scale, 40, mode)
            check(np.abs(mine - ref).max() < 1e-12, f"{name} exact moments ({mode}) = dense diagonalization of "
                  f"{'x'.join(map(str, cells))} x {n_orb} orbitals")
        x = np.cos(np.pi * (np.arange(2000) + 0.5) / 2000)
        integral = np.sum(dos_from_moments(dense["random"], x) * np.pi * np.sqrt(1 - x * x)) / 2000
        check(abs(integral - 1) < 1e-10, f"{name} Jackson DOS per orbital integrates to 1 ({integral:.12f})")
    # The written file decodes to the model, and the chosen thread grids.
    for model, cells in [("graphene", [16, 24]), ("ti", [8, 16, 8])]:
        path = f"{a.workdir}/selftest_{model}.h5"
        write_input(path, model, cells, 32, 1, choose_divisions(cells, 2), 1.0, 2.0)
        check(cmd_encoding(argparse.Namespace(file=path)) == 0, f"{model} file decodes to its Bloch matrix")
    check(choose_divisions([4096, 4096], 16) == [4, 4], "graphene 4096 x 4096 on 16 threads: 4 x 4")
    check(sorted(choose_divisions([256, 256, 128], 16)) == [2, 2, 4], "TI 256 x 256 x 128 on 16 threads: 2 x 4 x 2")
    try:
        choose_divisions([20, 20], 16)
        check(False, "20 x 20 has no 16-thread grid with TILE 8: refused")
    except BadInput as err:
        check("multiples of 8" in str(err), f"20 x 20 on 16 threads refused: {err}")
    print(f"selftest: {len(failures)} failures")
    return 1 if failures else 0


def peak_rss(pid):
    """The process's own high-water resident set (VmHWM, bytes), 0 where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run_measured(cmd, log, env=None, timeout=None):
    """Run cmd (output to log); wall seconds and its peak resident set in bytes. The peak is read
    from /proc while it runs: the rusage of a child that Python forked keeps the forked
    interpreter's pages (~50 MiB with numpy) as its maximum. A run past timeout s is stopped."""
    start = time.perf_counter()
    peak = 0
    with open(log, "w") as out:
        child = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        while True:
            peak = max(peak, peak_rss(child.pid))
            pid, status, _ = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if timeout and time.perf_counter() - start > timeout:
                child.kill()
                os.wait4(child.pid, 0)
                child.returncode = -9
                raise BadInput(f"{' '.join(cmd)} ran past {timeout} s and was stopped; see {log}")
            time.sleep(0.02)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    child.returncode = code
    if code != 0:
        raise BadInput(f"{' '.join(cmd)} exited with {code}; see {log}")
    return wall, peak


TABLE_HEADER = ("| peer | lattice | orbitals N | M | R | threads | moment loop (s) | s / (moment * orbital) "
                "| s / (vector-step * orbital) | peak RSS / N (bytes) | RSS above a minimal run / N (bytes) | mu_0 |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|")


def cmd_bench(a):
    """KITEx twice on one lattice, with M0 and M moments (same R): the moment loop's time is the
    difference, so reading, allocation and the random vectors drop out. One table row.
    Peak memory: sampled every 20 ms (KITEx allocates its vectors once, at the start)."""
    dim = 2 if a.model == "graphene" else 3
    if len(a.cells) != dim:
        raise BadInput(f"{a.model} needs {dim} cell counts, got {a.cells}")
    if not 0 < a.moments0 < a.moments:
        raise BadInput(f"need 0 < --moments0 ({a.moments0}) < --moments ({a.moments})")
    divisions = a.divisions or choose_divisions(a.cells, a.threads)
    n = int(np.prod(a.cells)) * (2 if a.model == "graphene" else 4)
    env = dict(os.environ)
    env.pop("SEED", None)  # random vectors from std::random_device in every thread
    env.setdefault("OMP_PROC_BIND", "close")
    env.setdefault("OMP_PLACES", "cores")
    if a.calc != "dos":
        return bench_conductivity(a, divisions, n, env)
    runs = {}
    for moments in (a.moments0, a.moments):
        if moments == a.moments and a.timeout and runs[a.moments0][0] * a.moments / a.moments0 > a.timeout:
            # The short run's time (set-up included) scaled to M moments bounds the long run's.
            print(f"  KITEx {a.name}: M = {moments} would take about {runs[a.moments0][0] * a.moments / a.moments0:.0f} s, "
                  f"more than the {a.timeout:.0f} s allowed: not run (fewer cells or moments fit)")
            return 3
        path = os.path.join(a.workdir, f"{a.name}_M{moments}.h5")
        write_input(path, a.model, a.cells, moments, a.randoms, divisions, a.t, a.m, True if a.complex else None)
        wall, rss = run_measured([a.kitex, path], os.path.join(a.logdir, f"kite_{a.name}_M{moments}.log"), env,
                                 a.timeout)
        runs[moments] = (wall, rss, path)
        print(f"  KITEx {a.name}: M = {moments}, R = {a.randoms}: {wall:.2f} s wall, peak RSS {rss / 2**20:.0f} MiB",
              flush=True)
    # The same threads on the smallest lattice they can tile (8 cells a thread a direction): what
    # KITEx holds whatever the size (program, libraries, HDF5, thread stacks), subtracted per orbital.
    small = [TILE * d for d in divisions]
    n_small = int(np.prod(small)) * (2 if a.model == "graphene" else 4)
    path = os.path.join(a.workdir, f"{a.name}_small.h5")
    write_input(path, a.model, small, 2, 1, divisions, a.t, a.m, True if a.complex else None)
    _, rss_small = run_measured([a.kitex, path], os.path.join(a.logdir, f"kite_{a.name}_small.log"), env, a.timeout)
    loop = runs[a.moments][0] - runs[a.moments0][0]
    dm = a.moments - a.moments0
    mu, _ = read_kite_moments(runs[a.moments][2])
    kind = "complex" if (a.complex or a.model == "ti") else "real"
    row = (f"| KITE {KITE_VERSION} ({kind}, {a.threads} threads) | {a.model} {'x'.join(map(str, a.cells))} | {n} | "
           f"{a.moments} | {a.randoms} | {int(np.prod(divisions))} ({'x'.join(map(str, divisions))}) | "
           f"{loop * a.moments / dm:.2f} | {loop / (dm * n):.3e} | {loop / (dm * a.randoms * n):.3e} | "
           f"{runs[a.moments][1] / n:.1f} | {(runs[a.moments][1] - rss_small) / (n - n_small):.1f} | {mu.real[0]:.4f} |")
    print(row)
    if a.table:
        with open(a.table, "a") as f:
            f.write(row + "\n")
    return 0


def bench_conductivity(a, divisions, n, env):
    """KITEx's conductivity on one lattice with M and R (KITE's velocity needs its complex path):
    conductivity_dc (the M x M moments of one component, as hamlet's method = conductivity),
    optical (conductivity_optical: the same M x M moments and M more) or singleshot (sigma_aa at
    --energies with --gamma). One run; its wall time (set-up included, which the M^2 moment work
    dominates at M = 1024) per random vector and per (work x orbital), work = M^2, or M x energies for
    the single shot, and peak RSS per orbital: the row to set beside hamlet's run of the same lattice."""
    target = {"direction": a.direction}
    if a.calc == "singleshot":
        target.update(energies=a.energies, gamma=a.gamma)
    path = os.path.join(a.workdir, f"{a.name}_{a.calc}.h5")
    write_input(path, a.model, a.cells, a.moments, a.randoms, divisions, a.t, a.m, True, calc=a.calc, **target)
    wall, rss = run_measured([a.kitex, path], os.path.join(a.logdir, f"kite_{a.name}_{a.calc}.log"), env, a.timeout)
    work = a.moments * len(a.energies) if a.calc == "singleshot" else a.moments ** 2
    row = (f"| KITE {KITE_VERSION} {a.calc} {a.direction} ({a.threads} threads) | {a.model} {'x'.join(map(str, a.cells))} | "
           f"{n} | {a.moments} | {a.randoms} | {wall:.2f} | {wall / a.randoms:.3f} | {wall / (a.randoms * work * n):.3e} | "
           f"{rss / n:.1f} |")
    print("| peer | lattice | N | M | R | wall (s) | s / vector | s / (vector * work * orbital), work = M^2 or M x "
          "energies | peak bytes / orbital |")
    print(row)
    if a.table:
        with open(a.table, "a") as f:
            f.write(row + "\n")
    return 0


def cmd_divisions(a):
    print(" ".join(map(str, choose_divisions(a.cells, a.threads))))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write KITEx's input for a DOS")
    w.add_argument("model", choices=["graphene", "ti"])
    w.add_argument("--cells", type=int, nargs="+", required=True, help="L1 L2 (graphene) or NX NY NZ (ti)")
    w.add_argument("--moments", type=int, default=1024)
    w.add_argument("--randoms", type=int, default=2)
    w.add_argument("--threads", type=int, default=16, help="thread grid chosen for this many threads")
    w.add_argument("--divisions", type=int, nargs="+", help="the thread grid itself (default: chosen)")
    w.add_argument("--t", type=float, default=1.0)
    w.add_argument("--m", type=float, default=2.0, help="TI mass (hamlet's default deck: 2)")
    w.add_argument("--complex", action="store_true", help="complex arithmetic even for a real H")
    w.add_argument("-o", "--output", required=True)
    c = sub.add_parser("check", help="compare KITEx's moments with the exact ones")
    c.add_argument("file")
    c.add_argument("--mode", choices=["random", "ones", "site"], default="random",
                   help="how KITEx was run: SEED unset (random), SEED=ones, SEED=deterministic (site)")
    c.add_argument("--sigmas", type=float, default=6.0, help="tolerance in standard deviations (random)")
    e = sub.add_parser("encoding", help="decode the written H back into H(k) and compare with the model")
    e.add_argument("file")
    b = sub.add_parser("bench", help="time KITEx's moment loop and peak memory on one lattice (a table row)")
    b.add_argument("model", choices=["graphene", "ti"])
    b.add_argument("--cells", type=int, nargs="+", required=True)
    b.add_argument("--moments", type=int, default=1024)
    b.add_argument("--moments0", type=int, default=64, help="the short run whose time is subtracted")
    b.add_argument("--randoms", type=int, default=2)
    b.add_argument("--threads", type=int, default=16)
    b.add_argument("--divisions", type=int, nargs="+")
    b.add_argument("--t", type=float, default=1.0)
    b.add_argument("--m", type=float, default=2.0)
    b.add_argument("--complex", action="store_true")
    b.add_argument("--kitex", required=True)
    b.add_argument("--name", default="run")
    b.add_argument("--workdir", default=".")
    b.add_argument("--logdir", default=".")
    b.add_argument("--table", help="append the row to this file")
    b.add_argument("--timeout", type=float, default=0, help="stop a KITEx run after this many seconds (0: never)")
    b.add_argument("--calc", choices=["dos", "conductivity_dc", "optical", "singleshot"], default="dos",
                   help="KITE's target: the DOS (default), full-spectrum conductivity_dc, conductivity_optical or "
                        "singleshot_conductivity_dc")
    b.add_argument("--direction", choices=sorted(KITE_DIRECTIONS), default="xx")
    b.add_argument("--energies", type=float, nargs="+", default=[0.0], help="singleshot: Fermi energies")
    b.add_argument("--gamma", type=float, default=0.01, help="singleshot: broadening (energy units)")
    st = sub.add_parser("selftest", help="checks of this module that need no KITE")
    st.add_argument("--support", help="tests/support (hamlet's NumPy TI reference)")
    st.add_argument("--workdir", default=".")
    st.add_argument("--lattices", help="inputs/lattices (hamlet's graphene.lattice, where present)")
    dv = sub.add_parser("divisions", help="print the thread grid chosen for a lattice")
    dv.add_argument("--cells", type=int, nargs="+", required=True)
    dv.add_argument("--threads", type=int, default=16)
    a = ap.parse_args(argv)
    try:
        return {"write": cmd_write, "check": cmd_check, "encoding": cmd_encoding, "selftest": cmd_selftest, "bench": cmd_bench, "divisions": cmd_divisions}[a.command](a) or 0
    except BadInput as err:
        print(f"kite_input.py {a.command}: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
