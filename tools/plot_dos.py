#!/usr/bin/python3
"""Plot the main result of a hamlet result file (what `hamlet plot` runs).

    /usr/bin/python3 tools/plot_dos.py OUT.h5 -o out.png

- /dos (KPM): rho(E) with a shaded band of +-error (the stochastic error from the spread over the
  random vectors); the title names the lattice and the KPM sizes (moments M, vectors R);
- /ldos (Green's functions or KPM): the LDOS of each site against energy;
- /conductivity (Kubo-Bastin KPM): sigma of each component and temperature against the chemical
  potential, with a band of +-error; with /conductivity/sigma_omega, Re (solid) and Im (dashed) of the
  optical sigma against the frequency instead;
- /eigen (LOBPCG): the relative residual of each eigenpair against the iteration; without a history
  (interior, dense): the eigenvalues as levels and a level's density per layer (plot_eigen.py);
- /solver (IDR(s)): the relative residual against the operator applications;
- /marker (local Chern marker): a map over the cells of a layer, or C against x (sites = line) or
  against the layer (layers).
- /spectral (A(k, E) by KPM): the ARPES-like image, one panel per layer (plot_spectral.py).
- /evolution (time evolution): sigma(E, t) and D(E, t) against t, or a wave packet's spread and
  position (plot_evolution.py).
Uses Debian's python3-h5py and python3-matplotlib (Agg backend: no display needed).
"""
import argparse
import sys

from plot_output import write_figure


def fail(message):
    print(f"plot_dos.py: {message}", file=sys.stderr)
    sys.exit(1)


def text(value):
    """HDF5 strings come back as bytes or str depending on how they were written."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def title_of(f, path):
    parts = []
    if "hamiltonian" in f:
        h = f["hamiltonian"].attrs
        if all(k in h for k in ("nx", "ny", "nz")):
            parts.append(f"{text(h.get('model', 'lattice'))} {int(h['nx'])}x{int(h['ny'])}x{int(h['nz'])}")
        if "N" in h:
            parts.append(f"N = {int(h['N'])}")
    if "kpm" in f:
        k = f["kpm"].attrs
        if "moments" in k:
            parts.append(f"M = {int(k['moments'])}")
        if "vectors" in k:
            parts.append(f"R = {int(k['vectors'])}")
        if "kernel" in k:
            parts.append(f"{text(k['kernel'])} kernel")
    return ", ".join(parts) if parts else path


def site_label(f, site):
    """'site (x, y, z)', with 'surface' or 'interior' where the lattice has an open boundary."""
    x, y, z = (int(c) for c in site)
    label = f"site ({x}, {y}, {z})"
    h = f["hamiltonian"].attrs if "hamiltonian" in f else {}
    open_axes = [(c, int(h[f"n{a}"])) for a, c in zip("xyz", (x, y, z))
                 if text(h.get(f"boundary_{a}", "")) == "open" and f"n{a}" in h]
    if open_axes:
        on_surface = any(c in (0, n - 1) for c, n in open_axes)
        label += " surface" if on_surface else " interior"
    return label


def plot_other(f, args, plt):
    """LDOS per site, LOBPCG residual histories, or an IDR residual history."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    if "conductivity" in f and "sigma_omega" in f["/conductivity"]:
        c = f["/conductivity"]
        omega, so = c["frequency"][()], c["sigma_omega"][()]  # [component][T][mu][omega][re, im]
        temps, energy, comps = c["temperature"][()], c["energy"][()], text(c.attrs["components"]).split()
        curves = [(i, t, e) for i in range(len(comps)) for t in range(len(temps)) for e in range(len(energy))]
        for i, t, e in curves[:6]:  # a few (mu, T) are readable; hamlet post picks others
            line = ax.plot(omega, so[i, t, e, :, 0], label=f"Re σ_{comps[i]}, μ = {energy[e]:g}, T = {temps[t]:g}")[0]
            ax.plot(omega, so[i, t, e, :, 1], linestyle="--", color=line.get_color(), label=f"Im σ_{comps[i]}")
        ax.axhline(0, color="gray", linewidth=0.5)
        ax.set_xlabel("frequency ω (units of t, ħ = 1)")
        ax.set_ylabel(f"σ(ω) [{text(c.attrs['unit'])}]")
        ax.set_title(f"{title_of(f, args.file)}; optical KPM, M = {c['moments'].shape[1]}, "
                     f"η = {c.attrs.get('eta', 0):g}", fontsize=10)
    elif "conductivity" in f:
        c = f["/conductivity"]
        energy, sigma, error = c["energy"][()], c["sigma"][()], c["error"][()]
        temps, comps = c["temperature"][()], text(c.attrs["components"]).split()
        spin = text(c.attrs.get("current", "charge")).split(":")[0]  # charge, or spin_z / spin_x / spin_y
        which = "" if spin == "charge" else "^S" + spin[-1]
        for i, name in enumerate(comps):
            for t, temp in enumerate(temps):
                line = ax.plot(energy, sigma[i, t], label=f"σ{which}_{name}, T = {temp:g}")[0]
                ax.fill_between(energy, sigma[i, t] - error[i, t], sigma[i, t] + error[i, t],
                                color=line.get_color(), alpha=0.25)
        ax.axhline(0, color="gray", linewidth=0.5)
        if spin == "charge" and text(c.attrs["unit"]).startswith("e^2/h") and any(n[0] != n[1] for n in comps):
            for half in (0.5, -0.5):  # a gapped TI surface's half-quantized Hall conductance
                ax.axhline(half, color="gray", linestyle="--", linewidth=0.8,
                           label="±e²/2h" if half > 0 else None)
        ax.set_xlabel("chemical potential μ (units of t)")
        ax.set_ylabel(f"σ [{text(c.attrs['unit'])}]")
        ax.set_title(f"{title_of(f, args.file)}; Kubo-Bastin KPM, M = {c['moments'].shape[1]}, "
                     f"{text(c.attrs['kernel'])} kernel")
    elif "ldos" in f:
        energy, rho, sites = f["/ldos/energy"][()], f["/ldos/rho"][()], f["/ldos/sites"][()]
        dense = len(energy) > 30  # a scan over many energies reads better as lines than as dots
        for i in range(rho.shape[1]):
            ax.plot(energy, rho[:, i], marker=None if dense else "o", linewidth=1.6 if dense else 1.2,
                    label=site_label(f, sites[i]))
        if "green" in f:  # IDR(s) Green's functions, or KPM with the sites' orbitals as start vectors
            method = text(f["/ldos"].attrs.get("method", ""))
            solver = " by multi-shift IDR(s)" if "multi-shift" in method else ""
            how = (f"Green's function{solver}, η = {f['/green'].attrs.get('eta', float('nan')):g}, "
                   f"{len(energy)} energies")
        else:  # the title already names the KPM sizes and kernel
            how = "KPM LDOS"
        ax.set_xlabel("E (units of t)")
        ax.set_ylabel("LDOS ρ_i(E) [states/energy]")
        title = f"{title_of(f, args.file)}; {how}"
        ax.set_title(title, fontsize=10 if len(title) > 60 else None)
        ax.set_ylim(bottom=0)
    elif "eigen" in f and "history" in f["eigen"]:
        res = f["/eigen/history/residuals"][()]
        for j in range(res.shape[1]):
            ax.semilogy(range(res.shape[0]), res[:, j], label=f"pair {j}")
        ax.axhline(f["/eigen"].attrs["tol"], color="gray", linestyle="--", label="tol")
        ax.set_xlabel("iteration")
        ax.set_ylabel("||Ax - λBx|| / (|λ| ||Bx||)")
        ax.set_title(f"LOBPCG, {title_of(f, args.file)}")
    elif "solver" in f and "history" in f["solver"]:
        h = f["/solver/history"][()]
        ax.semilogy(range(len(h)), h, label=f"IDR({int(f['/solver'].attrs['s'])})")
        ax.axhline(f["/solver"].attrs["tol"], color="gray", linestyle="--", label="tol")
        ax.set_xlabel("operator applications")
        ax.set_ylabel("||r|| / ||b||")
        ax.set_title(f"IDR(s), {title_of(f, args.file)}")
    else:
        fail(f"'{args.file}' holds nothing to plot (no /dos, /ldos, /conductivity, /eigen or /solver/history)")
    ax.legend(loc="best", frameon=False)
    fig.tight_layout()
    write_figure(fig, args.output, fail)


def plot_marker(f, args, plt):
    """The local Chern marker: a colour map where the cells cover an x-y patch, else a line."""
    import numpy as np
    m = f["/marker"]
    C, sites = m["C"][()], m["sites"][()].astype(int)
    a = m.attrs
    how = f"local Chern marker, μ = {a['mu']:g}, M = {int(a['moments'])}"
    xs, ys, zs = (sorted(set(sites[:, k])) for k in range(3))
    if len(xs) > 1 and len(ys) > 1:  # a map of one layer (the middle one of those given)
        z = zs[len(zs) // 2]
        grid = np.full((max(ys) + 1, max(xs) + 1), np.nan)
        for c, (x, y, zz) in zip(C, sites):
            if zz == z:
                grid[y, x] = c
        fig, ax = plt.subplots(figsize=(6, 5))
        lim = 1.5 * max(1.0, np.nanpercentile(np.abs(grid), 75))  # the bulk's scale; the edges saturate
        im = ax.imshow(grid, origin="lower", cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
        fig.colorbar(im, ax=ax, label="C(r)", extend="both")
        ax.set_xlabel("x (cells)")
        ax.set_ylabel("y (cells)")
        ax.set_title(f"{title_of(f, args.file)}\n{how}, layer z = {z}", fontsize=9)
    else:
        fig, ax = plt.subplots(figsize=(7, 4.2))
        k = 2 if text(a.get("sites", "cells")) == "layers" else (0 if len(xs) > 1 else 1)
        ax.plot(sites[:, k], C, marker="o", label="C(r)")
        ax.axhline(0, color="gray", linewidth=0.5)
        ax.set_xlabel(("x", "y", "layer z")[k] + " (cells)")
        ax.set_ylabel("C(r)")
        ax.set_title(f"{title_of(f, args.file)}; {how}", fontsize=9)
        ax.legend(loc="best", frameon=False)
    fig.tight_layout()
    write_figure(fig, args.output, fail)


def main():
    parser = argparse.ArgumentParser(description="Plot the DOS stored in a hamlet HDF5 result file.")
    parser.add_argument("file", help="hamlet result file (HDF5) with a /dos group")
    parser.add_argument("-o", "--output", default="dos.png", help="image to write (default dos.png)")
    parser.add_argument("--window", nargs=2, type=float, metavar=("EMIN", "EMAX"),
                        help="draw the DOS between these energies only")
    args = parser.parse_args()
    if args.window and not args.window[0] < args.window[1]:
        fail(f"--window {args.window[0]:g} {args.window[1]:g}: want EMIN < EMAX")

    try:
        import h5py
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        fail(f"needs h5py and matplotlib (Debian: apt install python3-h5py python3-matplotlib): {e}")

    try:
        f = h5py.File(args.file, "r")
    except OSError as e:
        fail(f"cannot open '{args.file}' as an HDF5 file: {e}")
    with f:
        if args.window and "dos" not in f:
            fail(f"--window applies to a density of states; '{args.file}' has no /dos group")
        if "marker" in f:
            plot_marker(f, args, plt)
            return
        if "evolution" in f:  # method = evolution: sigma(E, t) or a packet's spread (plot_evolution.py)
            from plot_evolution import plot_evolution
            plot_evolution(f, args, plt, fail)
            return
        if "spectral" in f:  # method = spectral: the ARPES-like image (plot_spectral.py)
            from plot_spectral import plot_spectral
            plot_spectral(f, args, plt, fail)
            return
        if "dos" not in f and "eigen" in f and "history" not in f["eigen"]:  # interior, dense (plot_eigen.py)
            from plot_eigen import plot_eigen
            plot_eigen(f, args, plt, fail, title_of(f, args.file))
            return
        if "dos" not in f and ("ldos" in f or "conductivity" in f or "eigen" in f or "solver" in f):
            plot_other(f, args, plt)
            return
        if "dos" not in f:
            fail(f"'{args.file}' has no /dos group: it holds no density of states (was the run finished?)")
        dos = f["dos"]
        missing = [name for name in ("energy", "rho") if name not in dos]
        if missing:
            fail(f"'{args.file}' /dos lacks {', '.join('/dos/' + m for m in missing)}")
        energy = dos["energy"][()]
        rho = dos["rho"][()]
        error = dos["error"][()] if "error" in dos else None
        e_unit = text(dos["energy"].attrs.get("unit", "energy"))
        rho_unit = text(dos["rho"].attrs.get("unit", ""))
        ham = f["hamiltonian"].attrs if "hamiltonian" in f else {}
        if "energy_unit" in ham:  # a model in physical units (model = structure: eV)
            unit = text(ham["energy_unit"])
            e_unit = unit
            rho_unit = (f"states/{unit}" if rho_unit.startswith("states") else f"1/{unit}") if rho_unit else ""
        norm = text(dos.attrs.get("normalization", ""))
        title = title_of(f, args.file)
    if args.window:
        keep = (energy >= args.window[0]) & (energy <= args.window[1])
        if keep.sum() < 2:
            fail(f"--window {args.window[0]:g} {args.window[1]:g} holds fewer than two of the DOS's energies "
                 f"({energy.min():g} .. {energy.max():g})")
        energy, rho = energy[keep], rho[keep]
        error = error[keep] if error is not None else None

    fig, ax = plt.subplots(figsize=(7, 4.2))
    if error is not None:
        ax.fill_between(energy, rho - error, rho + error, color="tab:blue", alpha=0.3, linewidth=0,
                        label="± stochastic error")
    ax.plot(energy, rho, color="tab:blue", linewidth=1.2, label="KPM DOS")
    # "energy (units of t)" -> "E (units of t)"
    ax.set_xlabel("E " + e_unit[len("energy "):] if e_unit.startswith("energy ") else f"E [{e_unit}]")
    ylabel = "ρ(E)"
    if norm:
        ylabel += f" (normalised to {norm})"
    ax.set_ylabel(f"{ylabel} [{rho_unit}]" if rho_unit else ylabel)
    ax.set_title(title)
    ax.set_xlim(energy.min(), energy.max())
    ax.set_ylim(bottom=min(0.0, float((rho - error).min()) if error is not None else float(rho.min())))
    ax.legend(loc="best", frameon=False)
    fig.tight_layout()
    write_figure(fig, args.output, fail)


if __name__ == "__main__":
    main()
