#!/usr/bin/python3
"""Plot the density of states of a hamlet result file.

    /usr/bin/python3 scripts/plot_dos.py OUT.h5 -o dos.png

Draws rho(E) from /dos with a shaded band of +-error (the stochastic error from the spread over the
random vectors); the title names the lattice and the KPM sizes (moments M, vectors R).
Uses Debian's python3-h5py and python3-matplotlib (Agg backend: no display needed).
"""
import argparse
import sys


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


def main():
    parser = argparse.ArgumentParser(description="Plot the DOS stored in a hamlet HDF5 result file.")
    parser.add_argument("file", help="hamlet result file (HDF5) with a /dos group")
    parser.add_argument("-o", "--output", default="dos.png", help="image to write (default dos.png)")
    args = parser.parse_args()

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
        norm = text(dos.attrs.get("normalization", ""))
        title = title_of(f, args.file)

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
    try:
        fig.savefig(args.output, dpi=150)
    except OSError as e:
        fail(f"cannot write '{args.output}': {e}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
