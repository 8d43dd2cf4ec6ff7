"""Eigenpairs without an iteration history (method = interior, dense, lobpcg): what `hamlet plot` draws
for them (plot_dos.py calls plot_eigen).

- left: the eigenvalues as levels (value against index), the window's edges where the run had one;
- right, where /eigen/vectors was written and /hamiltonian gives the cells (nx, ny, nz) with a whole
  number of orbitals per cell: the density of the level nearest the window's centre (nearest 0 without
  a window), summed over each cell's orbitals and averaged over the level's degenerate copies (a sum
  that does not depend on the basis the solver returned for them): per layer z where nz > 1, as a map
  of x and y for a single layer. Rows are cells with their orbitals innermost, x fastest (model = ti,
  lattice, structure).
It prints where the level's weight lies: the share on the outermost layers (z = 0 and nz - 1)."""

from plot_output import write_figure


def level_density(f, fail):
    """(energy, copies, density[nz][ny][nx]) of the level nearest the window's centre, or None where
    the file holds no vectors or no cell grid."""
    import numpy as np
    e = f["/eigen"]
    values = e["values"][()]
    h = f["/hamiltonian"].attrs if "hamiltonian" in f else {}
    if "vectors" not in e or not all(k in h for k in ("nx", "ny", "nz")) or len(values) == 0:
        return None
    nx, ny, nz = (int(h[k]) for k in ("nx", "ny", "nz"))
    vectors = e["vectors"][()]
    rows = vectors.shape[0]
    if rows % (nx * ny * nz):
        fail(f"/eigen/vectors has {rows} rows, not a whole number of orbitals per cell of {nx} x {ny} x {nz}")
    centre = 0.5 * (e.attrs["window_min"] + e.attrs["window_max"]) if "window_min" in e.attrs else 0.0
    nearest = values[np.argmin(np.abs(values - centre))]
    scale = max(1.0, np.abs(values).max())
    copies = np.flatnonzero(np.abs(values - nearest) <= 1e-8 * scale)
    if vectors.ndim == 3:  # complex: (re, im) last
        amplitude = vectors[:, copies, 0] ** 2 + vectors[:, copies, 1] ** 2
    else:
        amplitude = vectors[:, copies] ** 2
    per_cell = amplitude.sum(axis=1).reshape(nz, ny, nx, rows // (nx * ny * nz)).sum(axis=3) / len(copies)
    return nearest, len(copies), per_cell


def plot_eigen(f, args, plt, fail, title):
    import numpy as np
    e = f["/eigen"]
    values = np.sort(e["values"][()])
    density = level_density(f, fail)
    fig, axes = plt.subplots(1, 2 if density else 1, figsize=(10 if density else 6, 4.2), squeeze=False)
    ax = axes[0][0]
    ax.plot(range(len(values)), values, "o", markersize=4, label="eigenvalues")
    if "window_min" in e.attrs:
        for edge in (e.attrs["window_min"], e.attrs["window_max"]):
            ax.axhline(edge, color="gray", linestyle="--", linewidth=0.8)
    method = e.attrs.get("method", b"")
    method = method.decode() if isinstance(method, bytes) else str(method)
    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))
    ax.set_xlabel("index")
    ax.set_ylabel("E")
    ax.set_title(f"{len(values)} eigenvalues ({method or 'eigenpairs'})", fontsize=10)
    summary = ""
    if density:
        energy, copies, rho = density
        ax = axes[0][1]
        nz = rho.shape[0]
        if nz > 1:
            layers = rho.sum(axis=(1, 2))
            ax.bar(range(nz), layers)
            ax.set_xlabel("layer z")
            ax.set_ylabel("weight")
            share = (layers[0] + layers[-1]) / layers.sum()
            summary = (f"; the level at E = {energy:.6g} ({copies} copies) has {100 * share:.1f}% of its weight on "
                       f"layers 0 and {nz - 1}")
        else:
            image = ax.imshow(rho[0], origin="lower", interpolation="nearest")
            fig.colorbar(image, ax=ax, label="weight")
            ax.set_xlabel("x (cells)")
            ax.set_ylabel("y (cells)")
            summary = f"; the level at E = {energy:.6g} ({copies} copies) mapped over x and y"
        ax.set_title(f"density of the level at E = {energy:.4g} ({copies} copies)", fontsize=10)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    write_figure(fig, args.output, fail, note=summary)
