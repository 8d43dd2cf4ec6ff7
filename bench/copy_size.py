"""Device copy bandwidth against the arrays' size (CuPy, one GPU): b[:] = a for arrays of 0.5 to 30 GiB,
each moving 2 x its size per copy. bench_stencil's floor takes a copy of at most 1 GiB arrays; this
shows whether a working set of tens of GB (the 10^9-orbital TI's 64 GB of vectors) streams as fast.
    python3 bench/copy_size.py [GiB ...]
copy_bandwidth(GiB) is also the floor of bench/single_shot_step.py."""
import sys
import time

import cupy as cp


def copy_bandwidth(gb):
    """Bytes per second of b[:] = a for arrays of gb GiB (reads and writes counted), after one warm-up copy."""
    n = int(gb * 2**30 / 8)
    a = cp.ones(n)
    b = cp.empty_like(a)
    cp.copyto(b, a)
    cp.cuda.Device().synchronize()
    reps = 5 if gb < 10 else 3
    t0 = time.perf_counter()
    for _ in range(reps):
        cp.copyto(b, a)
    cp.cuda.Device().synchronize()
    seconds = (time.perf_counter() - t0) / reps
    del a, b
    cp.get_default_memory_pool().free_all_blocks()
    return 2 * n * 8 / seconds


if __name__ == "__main__":
    for gb in [float(v) for v in sys.argv[1:]] or [0.5, 2, 8, 16, 30]:
        print(f"copy of {gb:g} GiB arrays: {copy_bandwidth(gb) / 1e9:.1f} GB/s")
