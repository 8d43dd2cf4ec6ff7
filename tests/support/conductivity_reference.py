"""Dense references for method = conductivity, from the formulas alone (the end-to-end tests):
velocity operators v_a = i [H, X_a] of a supercell (nearest-image displacements), the exact
two-dimensional Chebyshev moments Tr[v_a T_n(H~) v_b T_m(H~)] / N from eigenpairs, the Jackson
kernel and the Kubo-Greenwood sigma_xx with kernel-smoothed delta functions."""
import numpy as np


def velocity(H, orbitals, cells, cell, positions, direction):
    """V_rs = i (r_s - r_r)_direction H_rs, rows r = orbitals * (cx + nx (cy + ny cz)) + i, the cell
    difference taken to its nearest image (|d| <= n/2) in every direction."""
    nx, ny, nz = cells
    N = len(H)
    idx = np.arange(N)
    site, orb = idx // orbitals, idx % orbitals
    c = np.stack([site % nx, (site // nx) % ny, site // (nx * ny)], axis=1)
    d = c[None, :, :] - c[:, None, :]  # cell of column minus cell of row
    n = np.array(cells)
    d = d - n * np.round(d / n)  # nearest image
    cell = np.asarray(cell, float).reshape(3, 3)
    pos = np.asarray(positions, float).reshape(orbitals, 3)
    disp = d @ cell + pos[orb][None, :, :] - pos[orb][:, None, :]
    return 1j * disp[:, :, direction] * H


def chebyshev_table(w, moments, scale, shift):
    """T[n, k] = T_n(scale (w_k - shift))."""
    x = np.clip(scale * (np.asarray(w) - shift), -1, 1)
    return np.cos(np.arange(moments)[:, None] * np.arccos(x)[None, :])


def moments(H, va, vb, M, scale, shift):
    """mu[n, m] = Tr[va T_n(H~) vb T_m(H~)] / N = sum_kl (va)_lk T_n(E_k) (vb)_kl T_m(E_l) / N."""
    w, U = np.linalg.eigh(H)
    A, B = U.conj().T @ va @ U, U.conj().T @ vb @ U
    T = chebyshev_table(w, M, scale, shift)
    # Tr[va T_n vb T_m] = sum_{k,l} A_lk T_n(k) B_kl T_m(l)
    return np.einsum("nk,lk,kl,ml->nm", T, A, B, T, optimize=True) / len(H)


def jackson(M):
    """Jackson kernel g_n, n < M (Weisse et al., Rev. Mod. Phys. 78, 275 (2006), eq. 71)."""
    n = np.arange(M)
    q = np.pi / (M + 1)
    return ((M - n + 1) * np.cos(q * n) + np.sin(q * n) / np.tan(q)) / (M + 1)


def kpm_delta(E, w, M, scale, shift):
    """delta_KPM(E - w_k) for every eigenvalue: the M-term Chebyshev series of the delta function
    with Jackson damping, in energy units (1 / energy)."""
    g = jackson(M)
    x = scale * (E - shift)
    Tx = np.cos(np.arange(M) * np.arccos(x))
    Tk = chebyshev_table(w, M, scale, shift)
    coef = g * Tx * np.where(np.arange(M) == 0, 1.0, 2.0)
    return scale * (coef @ Tk) / (np.pi * np.sqrt(1 - x * x))


def kubo_greenwood_xx(H, vx, energies, M, scale, shift, density):
    """sigma_xx(mu, T = 0) in e^2/h: 2 pi^2 (density / N) sum_kl |v_kl|^2 d(mu - E_k) d(mu - E_l) with
    the Jackson-smoothed deltas d (hbar = e = 1, so e^2/h = 1 / (2 pi) and sigma = pi / Omega Tr[v d v d])."""
    w, U = np.linalg.eigh(H)
    V2 = np.abs(U.conj().T @ vx @ U) ** 2
    out = []
    for E in energies:
        d = kpm_delta(E, w, M, scale, shift)
        out.append(2 * np.pi**2 * density / len(H) * d @ V2 @ d)
    return np.array(out)
