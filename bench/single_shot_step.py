"""The single shot's Chebyshev step on a GPU against its vectors-only floor: runs a single-shot deck at
two expansion orders, takes the step as the difference of their moment times over the difference of M
(set-up and final products cancel), and prints it next to the floor: the 40 vectors of N a step
streams (the two-column step reads V and W and writes W: 6; every second step adds both terms to the
2 x 16 energy accumulators: 34), at the device copy bandwidth CuPy measures in the same process
(bench/copy_size.py, 2 GiB arrays).
    python3 bench/single_shot_step.py HAMLET DECK [--moments M1 M2] [--set SECTION.KEY=VALUE ...]
--set changes deck keys for the run (hamiltonian.gpu_kernel=small for the A/B of two kernels)."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

VECTORS_PER_STEP = 40


def deck_with(text, moments, changes):
    """The deck's text with [conductivity] moments and each SECTION.KEY=VALUE set (added where absent)."""
    pending = dict(changes, **{"conductivity.moments": str(moments)})
    lines, section = [], None

    def add_pending():  # the keys of the section that ends here and were not in it
        for key in [k for k in pending if k.split(".")[0] == section]:
            lines.append(f"{key.split('.')[1]} = {pending.pop(key)}")

    for line in text.splitlines():
        header = re.match(r"\s*\[(\w+)\]", line)
        if header:
            add_pending()
            section = header.group(1)
        else:
            m = re.match(r"\s*(\w+)\s*=", line)
            key = f"{section}.{m.group(1)}" if m else None
            if key in pending:
                line = f"{m.group(1)} = {pending.pop(key)}"
        lines.append(line)
    add_pending()
    if pending:
        sys.exit(f"single_shot_step.py: the deck has no section for {', '.join(pending)}")
    return "\n".join(lines) + "\n"


def run(hamlet, deck, moments, changes):
    """(N, bytes per entry, moment seconds) of one run of the deck at M = moments."""
    folder = os.path.dirname(os.path.abspath(deck))  # the deck's relative paths stay valid
    with tempfile.NamedTemporaryFile("w", suffix=".ini", dir=folder, delete=False) as f:
        f.write(deck_with(open(deck).read(), moments, changes))
    out = f.name[:-4] + ".h5"
    try:
        text = subprocess.run([hamlet, "run", f.name, "-o", out], capture_output=True, text=True, check=True).stdout
    except subprocess.CalledProcessError as e:
        sys.exit(f"hamlet failed on {deck} at M = {moments}:\n{e.stdout}{e.stderr}")
    finally:
        for path in (f.name, out):
            if os.path.exists(path):
                os.remove(path)
    n = int(re.search(r"N = (\d+)", text).group(1))
    shot = re.search(r"single shot .*?(real|complex) arithmetic: ([0-9.]+) s", text)
    print("  " + "\n  ".join(line for line in text.splitlines() if re.search(r"single shot|memory|kernel", line)))
    return n, 8 if shot.group(1) == "real" else 16, float(shot.group(2))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("hamlet")
    p.add_argument("deck")
    p.add_argument("--moments", type=int, nargs=2, default=[512, 4096])
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    a = p.parse_args()
    changes = [s.split("=", 1) for s in a.set]
    if any(len(c) != 2 or "." not in c[0] for c in changes):
        sys.exit("single_shot_step.py: --set takes SECTION.KEY=VALUE")
    m1, m2 = sorted(a.moments)
    if m1 == m2:
        sys.exit("single_shot_step.py: --moments needs two different orders")
    from copy_size import copy_bandwidth  # CuPy: only where a GPU is
    bandwidth = copy_bandwidth(2)
    n, entry, t1 = run(a.hamlet, a.deck, m1, changes)
    _, _, t2 = run(a.hamlet, a.deck, m2, changes)
    step = (t2 - t1) / (m2 - m1)
    floor = VECTORS_PER_STEP * n * entry / bandwidth
    print(f"{os.path.basename(a.deck)} {' '.join(a.set)}: N = {n}, {'real' if entry == 8 else 'complex'}; "
          f"M = {m1}: {t1:.2f} s, M = {m2}: {t2:.2f} s; step {step * 1e3:.2f} ms against the floor "
          f"{floor * 1e3:.2f} ms ({VECTORS_PER_STEP} vectors at {bandwidth / 1e9:.0f} GB/s): {step / floor:.2f}x")


if __name__ == "__main__":
    main()
