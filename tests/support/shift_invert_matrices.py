"""Matrix Market files with the structure of the hard SuiteSparse cases (stiff SPD pencils, indefinite, clustered), made at test time, and the
dense reference of the eigenvalues nearest a shift (SciPy's eigh, not hamlet):
  spd_cond13   SPD, condition ~1e13 (graded FEM-like stiffness, as mhd4800b), shift 0
  pencil       K x = lambda M x with eigenvalues from ~1e3 to ~1e14 (as bcsstk26/bcsstm26), shift 0
  penalty      SPD with one 1e15 penalty entry next to O(100) entries (as aft01), shift 0
  hermitian    complex Hermitian (magnetic Laplacian, graded), shift 0
  indefinite   symmetric indefinite (Anderson model), shift inside the spectrum
  singular     the shift is exactly an eigenvalue (a decoupled row whose diagonal equals it)
Usage: shift_invert_matrices.py OUTDIR [SEED] [GRID] (GRID x GRID unknowns, 14; the references
only where GRID <= 30, as the benchmark's larger matrices need none); writes NAME.mtx (and pencil_M.mtx), NAME.shift and
NAME.ref (the 4 eigenvalues nearest the shift, ascending, from the dense problem)."""
import sys
import numpy as np
import scipy.linalg as sl


def laplacian_2d(m, weights=None):
    """Graph Laplacian of an m x m grid (Neumann) with per-edge weights."""
    n = m * m
    A = np.zeros((n, n))
    edges = [(i * m + j, i * m + j + 1) for i in range(m) for j in range(m - 1)]
    edges += [(i * m + j, (i + 1) * m + j) for i in range(m - 1) for j in range(m)]
    for e, (a, b) in enumerate(edges):
        w = 1.0 if weights is None else weights[e]
        A[a, a] += w; A[b, b] += w; A[a, b] -= w; A[b, a] -= w
    return A, len(edges)


def write_mtx(path, A):
    cplx = np.iscomplexobj(A)
    rows, cols = np.nonzero(np.tril(A))
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate %s %s\n" % ("complex" if cplx else "real",
                                                              "hermitian" if cplx else "symmetric"))
        f.write("%d %d %d\n" % (A.shape[0], A.shape[1], len(rows)))
        for i, j in zip(rows, cols):
            v = A[i, j]
            f.write("%d %d %.17g %.17g\n" % (i + 1, j + 1, v.real, v.imag) if cplx else "%d %d %.17g\n" % (i + 1, j + 1, v))


def nearest(A, B, shift, k=4):
    """The k eigenvalues nearest the shift: dense shift-and-invert (eigh of B against A - shift B, a
    Cholesky where A - shift B is definite) or plain eigh for an indefinite A - shift B."""
    n = A.shape[0]
    B = np.eye(n) if B is None else B
    S = A - shift * B
    try:
        theta = sl.eigh(B, S, eigvals_only=True)  # B v = theta (A - shift B) v, theta = 1/(lambda - shift)
        lam = shift + 1.0 / theta
    except np.linalg.LinAlgError:
        lam = sl.eigh(A, B, eigvals_only=True)
    lam = lam[np.argsort(np.abs(lam - shift))][:k]
    return np.sort(lam)


def cases(rng, m=14):
    n = m * m
    perm = rng.permutation(n)
    # SPD, condition ~1e13: weighted Laplacian + small grounding, graded by a diagonal scaling
    L, ne = laplacian_2d(m, rng.uniform(0.5, 2.0, 2 * m * (m - 1)))
    K = L + 1e-2 * np.eye(n)
    s = 10.0 ** np.linspace(0, -6, n)[perm]
    yield "spd_cond13", s[:, None] * K * s[None, :] * 1e4, None, 0.0
    # pencil: stiffness with materials spanning 1e10, lumped-plus-consistent mass
    w = 10.0 ** rng.uniform(0, 12, ne)
    Kp, _ = laplacian_2d(m, w)
    Kp = 20 * (Kp + 1e-2 * np.diag(10.0 ** rng.uniform(0, 12, n)))
    Mp = np.diag(rng.uniform(1.0, 2.0, n))
    for i in range(n - 1):
        Mp[i, i + 1] = Mp[i + 1, i] = 0.1
    yield "pencil", Kp, Mp, 0.0
    # penalty: entries below ~200, smallest eigenvalue ~1e-4, one 1e15 diagonal entry
    Lq, _ = laplacian_2d(m, rng.uniform(20, 45, 2 * m * (m - 1)))
    P = Lq + 1e-3 * np.diag(rng.uniform(0.5, 1.5, n))
    P[perm[0], perm[0]] += 1e15
    yield "penalty", P, None, 0.0
    # complex Hermitian: magnetic Laplacian with random fluxes, graded
    H = np.zeros((n, n), dtype=complex)
    for i in range(m):
        for j in range(m):
            a = i * m + j
            for b in ([a + 1] if j < m - 1 else []) + ([a + m] if i < m - 1 else []):
                ph = np.exp(2j * np.pi * rng.uniform())
                H[a, b] -= ph; H[b, a] -= np.conj(ph); H[a, a] += 1; H[b, b] += 1
    H += 1e-3 * np.eye(n)
    g = 10.0 ** np.linspace(0, -5, n)[rng.permutation(n)]
    yield "hermitian", g[:, None] * H * g[None, :], None, 0.0
    # indefinite: Anderson model, shift between two eigenvalues near the middle
    An, _ = laplacian_2d(m)
    An = An - 4 * np.eye(n) + np.diag(rng.uniform(-3, 3, n))
    ev = np.linalg.eigvalsh(An)
    mid = n // 2
    yield "indefinite", An, None, float(ev[mid] + 0.3 * (ev[mid + 1] - ev[mid]))
    # singular: a decoupled row whose diagonal is exactly the shift
    Sg = An.copy()
    Sg[perm[1], :] = 0; Sg[:, perm[1]] = 0; Sg[perm[1], perm[1]] = 0.5
    yield "singular", Sg, None, 0.5


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
    m = int(sys.argv[3]) if len(sys.argv) > 3 else 14
    for name, A, B, shift in cases(rng, m):
        write_mtx("%s/%s.mtx" % (out, name), A)
        if B is not None:
            write_mtx("%s/%s_M.mtx" % (out, name), B)
        open("%s/%s.shift" % (out, name), "w").write("%.17g\n" % shift)
        if name != "singular" and m <= 30:
            np.savetxt("%s/%s.ref" % (out, name), nearest(A, B, shift))
            print("%-11s n = %d  cond(A) = %.2g  ref = %s" % (name, A.shape[0], np.linalg.cond(A),
                  " ".join("%.10g" % x for x in np.loadtxt("%s/%s.ref" % (out, name)))))


if __name__ == "__main__":
    main()
