"""Independent references for model = structure: an extended XYZ reader, bonds by brute force over
the periodic images (no cell lists), the Slater-Koster p_z rule, the s-p table or a radial table, the
supercell as a dense NumPy matrix; and checks of a twisted bilayer cell from its geometry alone."""
import itertools
import re
import numpy as np


def read_xyz(path):
    with open(path) as f:
        lines = f.read().splitlines()
    n = int(lines[0])
    cell = np.array([float(x) for x in re.search(r'Lattice="([^"]*)"', lines[1]).group(1).split()]).reshape(3, 3)
    pbc = re.search(r'pbc="([^"]*)"', lines[1])
    pbc = [w == "T" for w in pbc.group(1).split()] if pbc else [True] * 3
    pos = np.array([[float(x) for x in line.split()[1:4]] for line in lines[2:2 + n]])
    return cell, pbc, pos


def slater_koster_pz(v, vpp_pi=-2.7, vpp_sigma=0.48, a0=2.46 / 3**0.5, d0=3.35, delta0=0.184 * 2.46):
    d = np.linalg.norm(v)
    nz2 = (v[2] / d) ** 2
    return vpp_pi * np.exp(-(d - a0) / delta0) * (1 - nz2) + vpp_sigma * np.exp(-(d - d0) / delta0) * nz2


def slater_koster(v, a, b, vss=0.0, vsp=0.0, vpp_sigma=0.48, vpp_pi=-2.7, a0=2.46 / 3**0.5, d0=3.35,
                  delta0=0.184 * 2.46):
    """The two-centre integral <a, 0|H|b, v> of orbitals a, b in 's px py pz' by the textbook table:
    ss sigma; s-p_b n_b V_sp; p_a-s -n_a V_sp; p_a-p_b n_a n_b V_sigma + (delta_ab - n_a n_b) V_pi."""
    d = np.linalg.norm(v)
    n = np.asarray(v) / d
    near, far = np.exp(-(d - a0) / delta0), np.exp(-(d - d0) / delta0)
    axis = {"px": 0, "py": 1, "pz": 2}
    if a == "s" and b == "s":
        return vss * near
    if a == "s":
        return n[axis[b]] * vsp * near
    if b == "s":
        return -n[axis[a]] * vsp * near
    nn = n[axis[a]] * n[axis[b]]
    return nn * vpp_sigma * far + ((a == b) - nn) * vpp_pi * near


def supercell(cell, pbc, pos, cells, cutoff, rule, onsite=0.0, boundary=("periodic",) * 3, axis=None,
              orbitals=None):
    """H of cells[0] x cells[1] x cells[2] structure cells, row = cell row + rows * (cx + nx (cy + ny cz));
    with axis, the velocity i[H, X_axis] instead: i d_axis t on each bond of vector d. orbitals: per atom
    a list of (kind, on-site energy) (rule(v, kind_a, kind_b) then), else one orbital per atom (rule(v))."""
    if orbitals is None:
        orbitals = [[(None, 0.0)]] * len(pos)
    first = np.concatenate([[0], np.cumsum([len(o) for o in orbitals])])
    na = int(first[-1])
    sites = int(np.prod(cells))
    H = np.zeros((na * sites, na * sites), dtype=float if axis is None else complex)
    reach = [int(np.ceil(cutoff / (abs(np.linalg.det(cell)) / np.linalg.norm(np.cross(cell[(k + 1) % 3],
             cell[(k + 2) % 3]))))) + 1 if pbc[k] else 0 for k in range(3)]
    bonds = []
    atom_bonds = 0
    for R in itertools.product(*[range(-r, r + 1) for r in reach]):
        shift = np.array(R) @ cell
        for i in range(len(pos)):
            v = pos + shift - pos[i]
            d = np.linalg.norm(v, axis=1)
            for j in np.nonzero((d < cutoff) & (d > 1e-6))[0]:
                atom_bonds += 1
                for p, (ka, _) in enumerate(orbitals[i]):
                    for q, (kb, _) in enumerate(orbitals[j]):
                        t = rule(v[j]) if ka is None else rule(v[j], ka, kb)
                        bonds.append((first[i] + p, first[j] + q, R, t if axis is None else 1j * v[j][axis] * t))
    energies = np.array([e for o in orbitals for _, e in o]) + onsite
    for s in range(sites):
        c = (s % cells[0], (s // cells[0]) % cells[1], s // (cells[0] * cells[1]))
        if axis is None:
            H[na * s:na * (s + 1), na * s:na * (s + 1)] += np.diag(energies)
        for i, j, R, t in bonds:
            x = [c[k] + R[k] for k in range(3)]
            if any((x[k] < 0 or x[k] >= cells[k]) and boundary[k] == "open" for k in range(3)):
                continue
            x = [x[k] % cells[k] for k in range(3)]
            target = x[0] + cells[0] * (x[1] + cells[1] * x[2])
            H[i + na * s, j + na * target] += t
    return H, atom_bonds // 2


def check_tbg(path, m, r, a=2.46):
    """The cell's geometry: 4(3m^2 + 3mr + r^2) atoms, the bottom layer on graphene's A and B
    sites, the top layer on them turned by theta, t1 and t2 lattice vectors of both layers."""
    cell, pbc, pos = read_xyz(path)
    D = 3 * m * m + 3 * m * r + r * r
    theta = np.arccos((3 * m * m + 3 * m * r + r * r / 2) / D)
    assert len(pos) == 4 * D, "%d atoms, want %d" % (len(pos), 4 * D)
    assert pbc == [True, True, False]
    A = np.array([[a, 0], [a / 2, a * 3**0.5 / 2]])
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    mid = np.median(pos[:, 2])
    worst = 0
    for layer, turn in ((pos[pos[:, 2] < mid], np.eye(2)), (pos[pos[:, 2] > mid], rot)):
        assert len(layer) == 2 * D
        frac = (layer[:, :2] @ turn) @ np.linalg.inv(A)  # coordinates in the unturned layer's a1, a2
        off = frac - np.round(frac)
        b = frac - 1 / 3 - np.round(frac - 1 / 3)
        d = np.minimum(np.abs(off).max(axis=1), np.abs(b).max(axis=1))
        worst = max(worst, d.max())
        nA = int((np.abs(off).max(axis=1) < 1e-9).sum())
        assert nA == D, "%d A sites in a layer, want %d" % (nA, D)
        f = np.linalg.solve(cell[:2, :2].T, layer[:, :2].T).T % 1.0
        keys = {tuple(np.round(x, 6) % 1.0) for x in f}
        assert len(keys) == 2 * D, "two atoms of a layer at one place modulo the cell"
        for t in cell[:2, :2]:
            f = (t @ turn) @ np.linalg.inv(A)
            assert np.abs(f - np.round(f)).max() < 1e-9, "cell vector %s is not a lattice vector of a layer" % t
    assert worst < 1e-9, "an atom is %.2g off the graphene lattice" % worst
    return theta * 180 / np.pi
