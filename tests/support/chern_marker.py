"""Dense reference of the local Chern marker (Bianco and Resta): C(r) = -(4 pi / A) Im sum_o
[P X Q Y P]_(ro, ro) with P from numpy's eigh: either the exact step theta(mu - E) or the same
Jackson-damped Chebyshev series of the step that hamlet applies (include/hamlet/marker.h), written
from the documented formulas alone."""
import numpy as np


def jackson(M):
    a = np.pi / (M + 1)
    n = np.arange(M)
    return ((M - n + 1) * np.cos(a * n) + np.sin(a * n) / np.tan(a)) / (M + 1)


def series_step(w, mu, M, scale, shift):
    """f(E) = sum_n g_n c_n T_n(scale (E - shift)), the damped Chebyshev series of theta(mu - E)."""
    phi = np.arccos(np.clip(scale * (mu - shift), -1, 1))
    n = np.arange(1, M)
    c = np.concatenate(([1 - phi / np.pi], -2 * np.sin(n * phi) / (n * np.pi))) * jackson(M)
    x = np.arccos(np.clip(scale * (np.asarray(w) - shift), -1, 1))
    return np.cos(np.outer(x, np.arange(M))) @ c


def marker(H, x, y, rows, f_of_w, area=1.0):
    """-(4 pi / area) Im <r|P X Q Y P|r> for every row r, with P = U f(w) U^H."""
    w, U = np.linalg.eigh(H)
    P = (U * f_of_w(w)) @ U.conj().T
    Q = np.eye(len(H)) - P
    M = P @ np.diag(x) @ Q @ np.diag(y) @ P
    return -4 * np.pi * np.diag(M)[rows].imag / area


def flake_positions(nx, ny, nz, orbitals):
    """x, y of every row (cubic cells, orbitals at the cell origin), centred on the flake."""
    r = np.arange(nx * ny * nz * orbitals) // orbitals
    return r % nx - (nx - 1) / 2.0, (r // nx) % ny - (ny - 1) / 2.0
