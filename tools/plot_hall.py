#!/usr/bin/python3
"""sigma_xy against the chemical potential from several hamlet conductivity results (e.g. a
semi-magnetic TI slab with +Bz and -Bz on its top layer), with the +-e^2/2h lines: docs/hall_plateau.png.

    /usr/bin/python3 tools/plot_hall.py plus.h5 minus.h5 -o docs/hall_plateau.png

Each file's xy component (temperature 0 or its first) is drawn with a band of +-its stochastic
error; the legend names the top layer's exchange field Bz and the title the sizes (cells, M, R).
Two files with opposite Bz also get their odd part +-(sigma(+Bz) - sigma(-Bz)) / 2 (black).
"""
import argparse
import sys


def text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def main():
    parser = argparse.ArgumentParser(description="sigma_xy of hamlet results with the +-1/2 lines")
    parser.add_argument("files", nargs="+", help="hamlet results (HDF5) with /conductivity holding xy")
    parser.add_argument("-o", "--output", default="hall_plateau.png", help="image to write")
    args = parser.parse_args()
    import h5py
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.2))
    title, curves = "", []
    for path in args.files:
        with h5py.File(path, "r") as f:
            if "conductivity" not in f:
                sys.exit(f"plot_hall.py: '{path}' has no /conductivity group")
            c, h = f["/conductivity"], f["/hamiltonian"].attrs
            comps = text(c.attrs["components"]).split()
            if "xy" not in comps:
                sys.exit(f"plot_hall.py: '{path}' holds {' '.join(comps)}, not xy")
            i = comps.index("xy")
            E, s, e = c["energy"][()], c["sigma"][i, 0], c["error"][i, 0]
            unit = text(c.attrs["unit"])
            line = ax.plot(E, s, marker=".", label=f"B_z = {h.get('zeeman_z', float('nan')):+g} on the top layer")[0]
            ax.fill_between(E, s - e, s + e, color=line.get_color(), alpha=0.25, linewidth=0)
            curves.append((h.get("zeeman_z", 0.0), E, s))
            title = (f"TI slab {int(h['nx'])}×{int(h['ny'])}×{int(h['nz'])} (N = {int(h['N'])}), Kubo-Bastin KPM, "
                     f"M = {c['moments'].shape[1]}, R = {int(c.attrs['vectors'])}")
    if len(curves) == 2 and curves[0][0] == -curves[1][0] != 0 and len(curves[0][1]) == len(curves[1][1]):
        # time reversal maps Bz to -Bz and sigma_xy to -sigma_xy: the odd part is the Hall
        # conductance, the even part the runs' common stochastic error (same seed)
        (bz, E, s1), (_, _, s2) = curves
        odd = (s1 - s2) / 2 * (1 if bz > 0 else -1)
        for sign in (1, -1):
            ax.plot(E, sign * odd, color="black", linewidth=1.2,
                    label="±(σ(+B_z) − σ(−B_z))/2" if sign > 0 else None)
        ax.axvspan(-abs(bz), abs(bz), color="gray", alpha=0.08, linewidth=0, label="top gap at the zone centre")
    for half in (0.5, -0.5):
        ax.axhline(half, color="gray", linestyle="--", linewidth=0.8, label="±e²/2h" if half > 0 else None)
    ax.axhline(0, color="gray", linewidth=0.5)
    ax.set_xlabel("chemical potential μ (units of t)")
    ax.set_ylabel(f"σ_xy [{unit}]")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="best", frameon=False, fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=150)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
