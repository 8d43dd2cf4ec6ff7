"""Wannier90's seedname_hr.dat, seedname_wsvec.dat and band files read from their documented layout
alone (Wannier90's user guide and ws_distance.F90's ws_write_vec), and its Bloch Hamiltonian
    H_mn(k) = sum_R sum_{T in T(R,m,n)} H_mn(R) / (deg(R) |T(R,m,n)|) exp(2 pi i k . (R + T))
(use_ws_distance = true; without the wsvec file every T(R,m,n) = {0}): the independent reference of
the end-to-end Wannier90 tests."""
import numpy as np


def read_hr(path):
    """(num_wann, R [nrpts][3], deg [nrpts], H [nrpts][num_wann][num_wann]) with H as written (not divided)."""
    lines = open(path).read().split("\n")
    nw, nr = int(lines[1]), int(lines[2])
    deg, k = [], 3
    while len(deg) < nr:
        deg.extend(int(x) for x in lines[k].split())
        k += 1
    R = np.zeros((nr, 3), int)
    H = np.zeros((nr, nw, nw), complex)
    for r in range(nr):
        for e in range(nw * nw):
            w = lines[k].split()
            k += 1
            R[r] = [int(x) for x in w[:3]]
            H[r, int(w[3]) - 1, int(w[4]) - 1] = float(w[5]) + 1j * float(w[6])
    return nw, R, np.array(deg), H


def read_wsvec(path):
    """{(R1, R2, R3, m, n) 1-based: [T, ...]} and the header line."""
    lines = [l for l in open(path).read().split("\n")]
    images, k = {}, 1
    while k < len(lines) and lines[k].strip():
        key = tuple(int(x) for x in lines[k].split())
        count = int(lines[k + 1])
        images[key] = [tuple(int(x) for x in lines[k + 2 + c].split()) for c in range(count)]
        k += 2 + count
    return images, lines[0]


def terms(nw, R, deg, H, images=None):
    """The hoppings as Wannier90 interpolates them: (m, n, R + T, H_mn(R) / (deg(R) |T|)) as arrays."""
    M, N, V, A = [], [], [], []
    for r in range(len(R)):
        for m in range(nw):
            for n in range(nw):
                Ts = images[tuple(R[r]) + (m + 1, n + 1)] if images is not None else [(0, 0, 0)]
                for T in Ts:
                    M.append(m), N.append(n), V.append(R[r] + np.array(T)), A.append(H[r, m, n] / (deg[r] * len(Ts)))
    return np.array(M), np.array(N), np.array(V), np.array(A)


def bloch(k, nw, t):
    """H(k) of terms t, k in reduced coordinates (turns per cell)."""
    M, N, V, A = t
    Hk = np.zeros((nw, nw), complex)
    np.add.at(Hk, (M, N), A * np.exp(2j * np.pi * (V @ np.asarray(k, float))))
    return Hk


def read_band_kpt(path):
    lines = open(path).read().split("\n")
    n = int(lines[0])
    return np.array([[float(x) for x in lines[1 + i].split()[:3]] for i in range(n)])


def read_band_dat(path):
    """E [band][kpoint]: the blocks of 'x E' lines, one block per band."""
    bands, cur = [], []
    for line in open(path):
        w = line.split()
        if not w:
            if cur:
                bands.append(cur)
            cur = []
            continue
        cur.append(float(w[1]))
    if cur:
        bands.append(cur)
    return np.array(bands)
