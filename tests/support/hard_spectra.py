"""Matrices with the structure of the SuiteSparse cases LOBPCG once failed on, generated here
(nothing is downloaded), written as Matrix Market files with their dense reference eigenvalues:
  graded    SPD of condition ~1e13 (like mhd4800b): D L D, L a 1D Laplacian, D graded over 10^-5..1
  pencil    K x = lambda M x with eigenvalues from ~5e3 to ~1e14 (like bcsstk26 / bcsstm26): a scaled
            1D stiffness K and a lumped (diagonal) mass M graded over 10^-6..1
  penalty   SPD with entries below 190 and one penalty entry 1e15 on the diagonal (like aft01)
  hermitian complex Hermitian, random sparse pattern, well conditioned
  singular  a graph Laplacian (eigenvalue 0 exactly: the relative test has nothing to scale by)
  indefinite random sparse symmetric with both signs
Usage: hard_spectra.py OUTDIR [SEED]. Writes CASE.mtx (CASE_mass.mtx for the pencil) and
CASE_ref.npy (all eigenvalues, ascending). A dense eigh is accurate to eps ||A|| only, which is
1e-3 relative for the smallest eigenvalues of graded and 0.2 absolute beside a 1e15 penalty; so
the references come from factorizations with high relative accuracy: graded and pencil are
(D G)(D G)^T with G the bidiagonal Cholesky factor of L, their eigenvalues the squared singular
values of the bidiagonal D G (bisection on its Golub-Kahan tridiagonal: every singular value to a
few eps relative, Demmel and Kahan 1990); penalty's others are those of A without the penalty row (they differ from the
true ones by O(a^2 / 1e15) = 1e-11) and its top one 1e15 (+ 1e-12)."""
import sys
import numpy as np
import scipy.linalg as sla


def write_mtx(path, A, field="real"):
    n = A.shape[0]
    entries = [(i, j, A[i, j]) for j in range(n) for i in range(j, n) if A[i, j] != 0]
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate %s %s\n" % (field, "hermitian" if field == "complex" else "symmetric"))
        f.write("%d %d %d\n" % (n, n, len(entries)))
        for i, j, v in entries:
            if field == "complex":
                f.write("%d %d %.17g %.17g\n" % (i + 1, j + 1, v.real, v.imag))
            else:
                f.write("%d %d %.17g\n" % (i + 1, j + 1, v))


def laplacian_1d(n):
    return 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)


def bidiagonal_cholesky_1d(n):
    """G lower bidiagonal with G G^T = laplacian_1d(n): diagonal g, subdiagonal h."""
    g, h = np.zeros(n), np.zeros(n - 1)
    g[0] = np.sqrt(2.0)
    for i in range(1, n):
        h[i - 1] = -1.0 / g[i - 1]
        g[i] = np.sqrt(2.0 - h[i - 1] ** 2)
    return g, h


def squared_bidiagonal_singular_values(scale, g, h):
    """Eigenvalues of (S G)(S G)^T, S = diag(scale), ascending, to high relative accuracy."""
    d, e = scale * g, scale[1:] * h  # S G: row i scaled by scale[i]; lower bidiagonal
    # the Golub-Kahan tridiagonal (zero diagonal, off-diagonal d0 e0 d1 e1 ...) has eigenvalues
    # +-sigma; bisection on it (dstebz, abstol 0) is accurate to a few eps relative
    off = np.zeros(2 * len(d) - 1)
    off[0::2], off[1::2] = d, e
    w = sla.eigvalsh_tridiagonal(np.zeros(2 * len(d)), off, lapack_driver="stebz", tol=0.0)
    return np.sort(w[len(d):] ** 2)


def cases(rng):
    n = 300
    g, h = bidiagonal_cholesky_1d(n)
    d = 10.0 ** rng.uniform(-5, 0, n)
    yield "graded", np.diag(d) @ laplacian_1d(n) @ np.diag(d), None, squared_bidiagonal_singular_values(d, g, h)
    K = 5e7 * laplacian_1d(n)
    m = 10.0 ** rng.uniform(-6, 0, n)
    yield "pencil", K, np.diag(m), squared_bidiagonal_singular_values(np.sqrt(5e7 / m), g, h)
    # penalty: a random weighted graph Laplacian plus a diagonal shift (SPD, entries below 190)
    A = np.zeros((n, n))
    for i in range(n):
        for j in rng.choice(n, 3, replace=False):
            if i != j:
                w = rng.uniform(1, 40)
                A[i, j] = A[j, i] = -w
    A += np.diag(-A.sum(axis=1) + rng.uniform(0.01, 1, n))
    p = n // 3
    rest = np.delete(np.delete(A, p, 0), p, 1)
    A[p, p] = 1e15
    yield "penalty", A, None, np.append(sla.eigh(rest, eigvals_only=True), 1e15)
    H = np.zeros((n, n), complex)
    for i in range(n):
        for j in rng.choice(n, 3, replace=False):
            if i != j:
                H[i, j] = rng.normal() + 1j * rng.normal()
                H[j, i] = np.conj(H[i, j])
    H += np.diag(rng.normal(0, 3, n))
    yield "hermitian", H, None, None
    G = np.zeros((n, n))
    for i in range(n):  # a ring (connected) plus random chords: one zero eigenvalue
        for j in [(i + 1) % n, rng.integers(n)]:
            if i != j:
                G[i, j] = G[j, i] = -rng.uniform(0.5, 2)
    np.fill_diagonal(G, 0)
    G += np.diag(-G.sum(axis=1))
    yield "singular", G, None, None
    S = np.zeros((n, n))
    for i in range(n):
        for j in rng.choice(n, 3, replace=False):
            if i != j:
                S[i, j] = S[j, i] = rng.normal()
    S += np.diag(rng.uniform(-10, 10, n))
    yield "indefinite", S, None, None


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 32)
    for name, A, B, ref in cases(rng):
        field = "complex" if np.iscomplexobj(A) else "real"
        write_mtx("%s/%s.mtx" % (out, name), A, field)
        if B is not None:
            write_mtx("%s/%s_mass.mtx" % (out, name), B)
        np.save("%s/%s_ref.npy" % (out, name), sla.eigh(A, B, eigvals_only=True) if ref is None else ref)


if __name__ == "__main__":
    main()
