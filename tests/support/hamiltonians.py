"""Hamiltonians of hamlet decks built in NumPy alone, from the physics the README states and not from
hamlet's code, so that end-to-end checks and regression references do not trust hamlet to check
itself. Models: ti (Wilson-Dirac lattice, dots, Anderson disorder from the documented SplitMix64
counter generator), convdiff (central differences), mtx (a Matrix Market coordinate file read here).
A matrix is a COO triple (rows, cols, vals) with N; `apply` multiplies blocks of vectors."""
import configparser
import os
import numpy as np


def read_deck(path_or_text):
    text = open(path_or_text).read() if os.path.exists(path_or_text) else path_or_text
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), comment_prefixes=(";", "#"))
    cp.read_string(text)
    return cp


class Coo:
    def __init__(self, n, rows, cols, vals):
        self.n, self.rows, self.cols, self.vals = n, np.asarray(rows), np.asarray(cols), np.asarray(vals)

    def apply(self, x):
        """H x for x of shape (N,) or (N, k)."""
        x2 = x.reshape(self.n, -1)
        y = np.zeros(x2.shape, dtype=np.result_type(self.vals, x2))
        for j in range(x2.shape[1]):
            contrib = self.vals * x2[self.cols, j]
            y[:, j] = np.bincount(self.rows, contrib.real, self.n) + (
                1j * np.bincount(self.rows, contrib.imag, self.n) if np.iscomplexobj(contrib) else 0)
        return y.reshape(x.shape)

    def dense(self):
        d = np.zeros((self.n, self.n), dtype=self.vals.dtype)
        np.add.at(d, (self.rows, self.cols), self.vals)
        return d

    def nnz(self):
        return len(np.unique(self.rows.astype(np.int64) * self.n + self.cols))


# --- ti -------------------------------------------------------------------------------------------
MASK = (1 << 64) - 1


def _mix64(z):
    """SplitMix64's finalizer on uint64 arrays (linalg/core/random.h documents the generator)."""
    z = (z + np.uint64(0x9E3779B97F4A7C15)) & np.uint64(MASK)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def uniform(seed, stream, counter):
    with np.errstate(over="ignore"):
        s = _mix64(np.uint64(seed))
        u = _mix64(_mix64(s ^ np.uint64(stream)) ^ np.asarray(counter, dtype=np.uint64))
    return (u >> np.uint64(11)).astype(np.float64) * 2.0**-53


def ti(deck):
    h = deck["hamiltonian"]
    nx, ny, nz = (h.getint(k, 8) for k in ("nx", "ny", "nz"))
    t, m = h.getfloat("t", 1.0), h.getfloat("m", 2.0)
    bc = h.get("boundary", "periodic periodic periodic").split()
    n = (nx, ny, nz)
    sites = nx * ny * nz
    x, y, z = np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij")
    x, y, z = (a.transpose(2, 1, 0).ravel() for a in (x, y, z))  # site s = x + nx (y + ny z)
    s = x + nx * (y + ny * z)
    # Dirac matrices, orbital o = 2 tau + sigma: G1 = tau_z (x) 1, G_{j+2} = tau_x (x) sigma_j
    sx, sy, sz, s0 = (np.array(a, complex) for a in ([[0, 1], [1, 0]], [[0, -1j], [1j, 0]], [[1, 0], [0, -1]], np.eye(2)))
    g1 = np.kron(sz, s0)
    gj = [np.kron(sx, sig) for sig in (sx, sy, sz)]
    # on-site: m G1 + V(site); V = dots + disorder
    pot = np.zeros(sites)
    words = h.get("potential", "none").split()
    if "dots" in words:
        px, py = h.getint("dot_period_x", 1), h.getint("dot_period_y", 1)
        radius, depth, v0 = h.getfloat("dot_radius", 1.0), h.getint("dot_depth", 0), h.getfloat("dot_v0", 0.0)
        cx, cy = x % px + 0.5 - px / 2.0, y % py + 0.5 - py / 2.0
        inside = (cx * cx + cy * cy < radius * radius) & ((depth == 0) | (z >= nz - depth))
        pot += np.where(inside, v0, 0.0)
    if "disorder" in words:
        w = h.getfloat("disorder_w")
        pot += w * (uniform(h.getint("disorder_seed", 1), 0x7469, s.astype(np.uint64)) - 0.5)
    rows, cols, vals = [], [], []

    def block(r_site, c_site, mat):
        for a in range(4):
            for b in range(4):
                if mat[a, b] != 0:
                    rows.append(4 * r_site + a)
                    cols.append(4 * c_site + b)
                    vals.append(np.full(len(r_site), mat[a, b]))
    for o in range(4):
        rows.append(4 * s + o)
        cols.append(4 * s + o)
        vals.append(pot + m * g1[o, o])
    coord = (x, y, z)
    stride = (1, nx, nx * ny)
    for j in range(3):
        # hopping to n + e_j: -t (G1 + i G_{j+2})/2, its conjugate transpose back
        fwd = coord[j] + 1
        ok = fwd < n[j] if bc[j] == "open" else np.ones(sites, bool)
        nb = s + ((fwd % n[j]) - coord[j]) * stride[j]
        T = -t * (g1 + 1j * gj[j]) / 2
        block(s[ok], nb[ok], T)
        block(nb[ok], s[ok], T.conj().T)
    r, c, v = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    return Coo(4 * sites, r, c, v)


# --- convdiff -------------------------------------------------------------------------------------
def convdiff(deck):
    h = deck["hamiltonian"]
    n = h.getint("n")
    eps, r = h.getfloat("eps", 1.0), h.getfloat("r", 0.0)
    beta = [h.getfloat(k, 0.0) for k in ("beta_x", "beta_y", "beta_z")]
    hh = 1.0 / (n + 1)
    idx = np.arange(n**3)
    i, j, k = idx % n, (idx // n) % n, idx // (n * n)
    rows, cols, vals = [idx], [idx], [np.full(n**3, 6 * eps / hh**2 + r)]
    for d, (c, st) in enumerate(((i, 1), (j, n), (k, n * n))):
        for step in (-1, 1):
            ok = (c + step >= 0) & (c + step < n)
            rows.append(idx[ok])
            cols.append(idx[ok] + step * st)
            vals.append(np.full(ok.sum(), -eps / hh**2 + step * beta[d] / (2 * hh)))
    return Coo(n**3, np.concatenate(rows), np.concatenate(cols), np.concatenate(vals))


# --- fem -----------------------------------------------------------------------------------------
def fem(deck):
    """Q1 hexahedra on [0, lx] x [0, ly] x [0, lz], Dirichlet walls (unknowns: interior nodes, x
    fastest): H = K/2 + V (V integrated by the 3-point Gauss rule per direction), mass M. Returns
    dense (H, M) on the interior nodes."""
    h = deck["hamiltonian"]
    e = [h.getint(k) for k in ("ex", "ey", "ez")]
    L = [h.getfloat(k, 1.0) for k in ("lx", "ly", "lz")]
    centre = [h.getfloat("centre_" + a, L[d] / 2) for d, a in enumerate("xyz")]
    step = [L[d] / e[d] for d in range(3)]

    def one_d(d):  # global 1D stiffness and mass on the e+1 nodes
        n = e[d] + 1
        K, M = np.zeros((n, n)), np.zeros((n, n))
        for i in range(e[d]):
            K[i:i + 2, i:i + 2] += np.array([[1, -1], [-1, 1]]) / step[d]
            M[i:i + 2, i:i + 2] += np.array([[2, 1], [1, 2]]) * step[d] / 6
        return K, M
    (Kx, Mx), (Ky, My), (Kz, Mz) = one_d(0), one_d(1), one_d(2)
    kron3 = lambda z, y, x: np.kron(z, np.kron(y, x))  # x fastest
    K = kron3(Mz, My, Kx) + kron3(Mz, Ky, Mx) + kron3(Kz, My, Mx)
    M = kron3(Mz, My, Mx)
    H = 0.5 * K
    pot = h.get("potential", "none")
    if pot != "none":
        g = np.array([0.5 - 0.5 * np.sqrt(0.6), 0.5, 0.5 + 0.5 * np.sqrt(0.6)])
        w = np.array([5.0, 8.0, 5.0]) / 18
        omega = [h.getfloat("omega_" + a, 1.0) for a in "xyz"]
        shape = h.get("well_shape", "sphere")
        depth, radius = h.getfloat("well_depth", 0.0), h.getfloat("well_radius", 0.0)
        size = [h.getfloat("well_size_" + a, 0.0) for a in "xyz"]

        def V(x, y, z):
            r = [x - centre[0], y - centre[1], z - centre[2]]
            if pot == "harmonic":
                return 0.5 * sum(omega[d] ** 2 * r[d] ** 2 for d in range(3))
            if pot == "well" and shape == "sphere":
                return np.where(r[0] ** 2 + r[1] ** 2 + r[2] ** 2 < radius ** 2, -depth, 0.0)
            if pot == "well" and shape == "box":
                return np.where(np.all([np.abs(r[d]) < 0.5 * size[d] for d in range(3)], axis=0), -depth, 0.0)
            raise NotImplementedError("fem potential " + pot)
        nodes = [e[d] + 1 for d in range(3)]
        qz, qy, qx = np.meshgrid(range(3), range(3), range(3), indexing="ij")
        qx, qy, qz = qx.ravel(), qy.ravel(), qz.ravel()
        wq = w[qx] * w[qy] * w[qz] * step[0] * step[1] * step[2]
        phi1 = lambda a, t: t if a else 1 - t  # 1D shape function of local node a at t in [0, 1]
        for ek in range(e[2]):
            for ej in range(e[1]):
                for ei in range(e[0]):
                    v = wq * V((ei + g[qx]) * step[0], (ej + g[qy]) * step[1], (ek + g[qz]) * step[2])
                    idx, phis = [], []
                    for az in range(2):
                        for ay in range(2):
                            for ax in range(2):
                                idx.append((ei + ax) + nodes[0] * ((ej + ay) + nodes[1] * (ek + az)))
                                phis.append(phi1(ax, g[qx]) * phi1(ay, g[qy]) * phi1(az, g[qz]))
                    P = np.array(phis)
                    H[np.ix_(idx, idx)] += (P * v) @ P.T
    interior = [(i, j, k) for k in range(1, e[2]) for j in range(1, e[1]) for i in range(1, e[0])]
    keep = np.array([i + (e[0] + 1) * (j + (e[1] + 1) * k) for i, j, k in interior])
    return H[np.ix_(keep, keep)], M[np.ix_(keep, keep)]


def generalized_eigvalsh(H, M):
    """Eigenvalues of H x = lambda M x (M positive definite) by Cholesky, NumPy only."""
    C = np.linalg.cholesky(M)
    A = np.linalg.solve(C, np.linalg.solve(C, H).T).T
    return np.linalg.eigvalsh((A + A.T) / 2)


# --- mtx ------------------------------------------------------------------------------------------
def read_mtx(path):
    with open(path) as f:
        head = f.readline().split()
        field, symmetry = head[3].lower(), head[4].lower()
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        nr, nc, nnz = map(int, line.split())
        data = np.loadtxt(f, ndmin=2, max_rows=nnz)
    r, c = data[:, 0].astype(np.int64) - 1, data[:, 1].astype(np.int64) - 1
    v = data[:, 2] + 1j * data[:, 3] if field == "complex" else (data[:, 2] if field != "pattern" else np.ones(nnz))
    if symmetry in ("symmetric", "hermitian", "skew-symmetric"):
        off = r != c
        mirror = {"symmetric": v[off], "hermitian": np.conj(v[off]), "skew-symmetric": -v[off]}[symmetry]
        r, c, v = np.concatenate([r, c[off]]), np.concatenate([c, r[off]]), np.concatenate([v, mirror])
    return Coo(nr, r, c, v)


def build(deck, deck_dir="."):
    model = deck["hamiltonian"].get("model")
    if model == "ti":
        return ti(deck)
    if model == "convdiff":
        return convdiff(deck)
    if model == "mtx":
        return read_mtx(os.path.join(deck_dir, deck["hamiltonian"].get("matrix")))
    raise NotImplementedError("no NumPy builder for model = %s" % model)
