"""Plots of an /evolution result (method = evolution), for `hamlet plot` (plot_dos.py).
With the mean-square displacement (msd): sigma(E, t) against t at a few energies with a band of
+-error (Delta X^2(E, t) where the start is not random, so sigma is not defined), beside D(E, t)
against t; without it: the spread <x^2> - <x>^2 and the mean position along x, y, z against t."""


import numpy as np

from plot_output import write_figure


def text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def pick(count, most=6):
    """At most `most` indices spread evenly over 0 .. count - 1."""
    return sorted(set(np.linspace(0, count - 1, min(count, most)).round().astype(int)))


def plot_msd(g, args, plt):
    t, E, D = g["time"][()], g["energy"][()], g["diffusivity"][()]
    dirs = text(g.attrs.get("msd_directions", "x")).split()
    random = "sigma" in g
    y, err = (g["sigma"][()], g["sigma_error"][()]) if random else (g["msd"][()], g["msd_error"][()])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for a, name in enumerate(dirs[:1] if len(dirs) > 1 else dirs):  # the first direction; the file has all
        for e in pick(len(E)):
            line = axes[0].plot(t[1:], y[a, 1:, e], label=f"E = {E[e]:g}")[0]
            axes[0].fill_between(t[1:], y[a, 1:, e] - err[a, 1:, e], y[a, 1:, e] + err[a, 1:, e],
                                 color=line.get_color(), alpha=0.25, linewidth=0)
            axes[1].plot(t[1:], D[a, 1:, e], color=line.get_color())
        which = name
    axes[0].set_xlabel("t (ħ = 1, 1/energy)")
    axes[0].set_ylabel(f"σ_{which}{which}(E, t) [{text(g.attrs['sigma_unit'])}]" if random
                       else f"ΔX_{which}²(E, t) [length²]")
    axes[1].set_xlabel("t (ħ = 1, 1/energy)")
    axes[1].set_ylabel(f"D_{which}(E, t) = ΔX²/2t")
    axes[0].legend(loc="best", frameon=False, fontsize=8)
    return fig


def plot_packet(g, args, plt):
    t, s, x = g["time"][()], g["spread"][()], g["position"][()]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for a, name in enumerate("xyz"):
        if np.abs(s[:, a]).max() > 0 or np.abs(x[:, a] - x[0, a]).max() > 0:
            axes[0].plot(t, s[:, a], label=f"⟨{name}²⟩ - ⟨{name}⟩²")
            axes[1].plot(t, x[:, a], label=f"⟨{name}⟩")
    axes[0].set_ylabel("spread [length²]")
    axes[1].set_ylabel("mean position [length]")
    for ax in axes:
        ax.set_xlabel("t (ħ = 1, 1/energy)")
        ax.legend(loc="best", frameon=False)
    return fig


def plot_evolution(f, args, plt, fail):
    g = f["/evolution"]
    for name in ("time", "spread", "position"):
        if name not in g:
            fail(f"'{args.file}' /evolution lacks /evolution/{name}")
    fig = plot_msd(g, args, plt) if "msd" in g else plot_packet(g, args, plt)
    fig.suptitle(f"time evolution, start = {text(g.attrs.get('start', ''))}, dt = {g.attrs.get('dt', 0):g}, "
                 f"{len(g['time']) - 1} steps", fontsize=10)
    fig.tight_layout()
    write_figure(fig, args.output, fail, dpi=130)
