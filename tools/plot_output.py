"""Writing a figure for `hamlet plot` (plot_dos.py and the plot modules it imports): one place that
turns a failed write into the script's error and says what was written."""


def write_figure(fig, output, fail, dpi=150, note=""):
    """Save fig to output (an error through fail where the file cannot be written), then print
    'wrote OUTPUT' and the note."""
    try:
        fig.savefig(output, dpi=dpi)
    except OSError as e:
        fail(f"cannot write '{output}': {e}")
    print(f"wrote {output}{note}")
