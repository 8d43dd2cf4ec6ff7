"""Dense reference Hamiltonians of hamlet's lattice models, written from the documented rules alone
(README "Your own model", include/hamlet/stencil.h), for the end-to-end tests: the hamlet file
format, a supercell of nx x ny x nz cells with periodic, open or twisted boundaries, Anderson
disorder per orbital and vacancies from hamlet's counter-based generator (linalg/core/random.h),
and exact Chebyshev moments and Green's functions from numpy's eigh."""
import numpy as np

MASK = (1 << 64) - 1
DISORDER_STREAM = 0x6C64
VACANCY_STREAM = 0x6C76


def mix64(z):
    z = (z + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def uniform(seed, stream, counter):
    """hm_random_uniform: a number in [0, 1) from (seed, stream, counter) alone."""
    return (mix64(mix64(mix64(seed) ^ stream) ^ counter) >> 11) * 2.0**-53


def read_hamlet(path):
    """(orbitals, blocks {R: matrix}) of a hamlet .lattice file; a hop given once gets its conjugate."""
    orbitals, given = 0, {}
    for line in open(path):
        w = line.split("#")[0].split()
        if not w:
            continue
        if w[0] == "orbital":
            orbitals += 1
        elif w[0] == "onsite":
            i = int(w[1])
            given[((0, 0, 0), i, i)] = given.get(((0, 0, 0), i, i), 0) + float(w[2])
        elif w[0] == "hop":
            R = tuple(int(x) for x in w[1:4])
            i, j = int(w[4]), int(w[5])
            t = float(w[6]) + 1j * (float(w[7]) if len(w) > 7 else 0.0)
            given[(R, i, j)] = given.get((R, i, j), 0) + t
    full = dict(given)
    for (R, i, j), t in given.items():
        partner = (tuple(-r for r in R), j, i)
        if partner not in given:
            full[partner] = np.conj(t)
    blocks = {}
    for (R, i, j), t in full.items():
        blocks.setdefault(R, np.zeros((orbitals, orbitals), complex))[i, j] += t
    return orbitals, blocks


def supercell(orbitals, blocks, cells, boundary=("periodic",) * 3, twist=(0, 0, 0), disorder_w=0.0,
              disorder_seed=1, vacancies=0.0, vacancy_seed=1):
    """Dense H of the supercell (row = orbitals * (cx + nx (cy + ny cz)) + i) and the vacant sites."""
    nx, ny, nz = cells
    sites = nx * ny * nz
    N = orbitals * sites
    H = np.zeros((N, N), complex)
    for s in range(sites):
        c = (s % nx, (s // nx) % ny, s // (nx * ny))
        for R, b in blocks.items():
            f, t = 1.0 + 0j, []
            for a in range(3):
                x = c[a] + R[a]
                w = x // cells[a]
                if w != 0:
                    if boundary[a] == "open":
                        f = 0
                    elif boundary[a] == "twisted":
                        f *= np.exp(1j * twist[a] * w)
                t.append(x - w * cells[a])
            if f == 0:
                continue
            s2 = t[0] + nx * (t[1] + ny * t[2])
            H[orbitals * s:orbitals * (s + 1), orbitals * s2:orbitals * (s2 + 1)] += f * b
    if disorder_w:
        H += np.diag([disorder_w * (uniform(disorder_seed, DISORDER_STREAM, r) - 0.5) for r in range(N)])
    vacant = [s for s in range(sites) if vacancies > 0 and uniform(vacancy_seed, VACANCY_STREAM, s) < vacancies]
    for s in vacant:
        rows = slice(orbitals * s, orbitals * (s + 1))
        H[rows, :] = 0
        H[:, rows] = 0
    return H, vacant


def chebyshev_moments(w, moments, scale, shift):
    """mu_n = sum_k T_n(scale (w_k - shift)) / len(w): the exact DOS moments of eigenvalues w."""
    x = np.clip(scale * (np.asarray(w) - shift), -1, 1)
    return np.array([np.cos(n * np.arccos(x)).mean() for n in range(moments)])


def orbital_moments(H, rows, moments, scale, shift):
    """<e_r|T_n(scale (H - shift))|e_r> for each row r: the exact LDOS moments of unit vectors."""
    w, U = np.linalg.eigh(H)
    x = np.clip(scale * (w - shift), -1, 1)
    T = np.array([np.cos(n * np.arccos(x)) for n in range(moments)])  # [n][k]
    return np.array([T @ np.abs(U[r, :]) ** 2 for r in rows])


def green_diagonal(H, rows, z):
    """G_rr(z) = <e_r|(z - H)^-1|e_r> by a direct solve."""
    A = z * np.eye(len(H)) - H
    return np.array([np.linalg.solve(A, np.eye(len(H))[:, r])[r] for r in rows])


def complex_array(a):
    """A complex dataset as numpy complex, whether stored as a compound (r, i) or a trailing axis of 2."""
    if a.dtype.names:
        return a[a.dtype.names[0]] + 1j * a[a.dtype.names[1]]
    if not np.iscomplexobj(a) and a.shape[-1:] == (2,):
        return a[..., 0] + 1j * a[..., 1]
    return a
