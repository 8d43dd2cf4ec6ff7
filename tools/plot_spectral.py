"""The ARPES-like image of a /spectral result (method = spectral), for `hamlet plot` (plot_dos.py):
k along the path horizontally (distance along the requested path, corners labelled), E vertically,
A(k, E) as colour; one panel per layer (or one for the bulk)."""


import numpy as np

from plot_output import write_figure


def text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def plot_spectral(f, args, plt, fail):
    g = f["/spectral"]
    for name in ("A", "energy", "distance", "layers", "corner_index"):
        if name not in g:
            fail(f"'{args.file}' /spectral lacks /spectral/{name}")
    A, E, x = g["A"][()], g["energy"][()], g["distance"][()]
    layers, corners = g["layers"][()], g["corner_index"][()].astype(int)
    path = text(g.attrs.get("k_path", ""))
    names = path.split() if not any(c.isdigit() for c in path) else [s.strip() for s in path.split(",")]
    names = ["Γ" if n == "G" else n for n in names]
    panels = A.shape[1]
    fig, axes = plt.subplots(1, panels, figsize=(min(3.2 * panels + 1, 14), 4.2), squeeze=False, sharey=True)
    top = float(np.percentile(A, 99.5)) if A.size else 1.0  # the surface cone's apex would wash out the rest
    for l in range(panels):
        ax = axes[0][l]
        image = ax.pcolormesh(x, E, A[:, l, :].T, shading="nearest", cmap="magma", vmin=0, vmax=top)
        for c in corners:
            ax.axvline(x[c], color="white", linewidth=0.5, alpha=0.6)
        ax.set_xticks([x[c] for c in corners])
        ax.set_xticklabels(names if len(names) == len(corners) else [str(c) for c in corners])
        ax.set_title("bulk" if layers[l] == 0 else f"layer {int(layers[l])}")
        if l == 0:
            ax.set_ylabel("E (units of t)")
    fig.colorbar(image, ax=axes[0].tolist(), label="A(k, E) [states/energy]")
    fig.suptitle(f"A(k, E) by KPM, M = {g['moments'].shape[-1]}, {text(g.attrs.get('kernel', ''))} kernel",
                 fontsize=10)
    write_figure(fig, args.output, fail, dpi=110)
