#!/usr/bin/env python3
"""Link bandwidths inside one node, the inputs of bench/SCALING.md's communication model.

For every GPU: its device-to-device copy bandwidth (read + write counted once each, as the
vectors-only floor counts it). For every ordered pair: the peer copy bandwidth (GPU i's buffer into
GPU j's memory, peer access on). Then the halo's pattern: every GPU copies a slab from both ring
neighbours at once, and the bandwidth each GPU then receives.
Run on the GPU machine: python3 bench/p2p_bandwidth.py [MiB per copy, default 256]
"""
import sys

import cupy as cp

MIB = int(sys.argv[1]) if len(sys.argv) > 1 else 256
NBYTES = MIB << 20
REPS = 10


def timed(devices, streams, work):
    """Seconds for REPS rounds of work(), which enqueues on streams[d] for d in devices."""
    work()  # warm-up
    for d in devices:
        streams[d].synchronize()
    starts, stops = [], []
    for d in devices:
        with cp.cuda.Device(d):
            starts.append(cp.cuda.Event())
            stops.append(cp.cuda.Event())
            starts[-1].record(streams[d])
    for _ in range(REPS):
        work()
    for d, e1 in zip(devices, stops):
        with cp.cuda.Device(d):
            e1.record(streams[d])
    for e1 in stops:
        e1.synchronize()
    return max(cp.cuda.get_elapsed_time(e0, e1) for e0, e1 in zip(starts, stops)) / 1e3 / REPS


def main():
    ngpu = cp.cuda.runtime.getDeviceCount()
    bufs, streams = [], []
    for d in range(ngpu):
        with cp.cuda.Device(d):
            bufs.append((cp.ones(NBYTES // 8), cp.zeros(NBYTES // 8), cp.zeros(NBYTES // 8)))
            streams.append(cp.cuda.Stream(non_blocking=True))
            for e in range(ngpu):
                if e != d and cp.cuda.runtime.deviceCanAccessPeer(d, e):
                    cp.cuda.runtime.deviceEnablePeerAccess(e)
    print(f"# {ngpu} GPU(s): {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {MIB} MiB per copy")
    for d in range(ngpu):
        src, dst, _ = bufs[d]

        def local(d=d, src=src, dst=dst):
            cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, NBYTES, 3, streams[d].ptr)
        t = timed([d], streams, local)
        print(f"copy on GPU {d}: {2 * NBYTES / t / 1e9:.0f} GB/s (read + write)")
    for i in range(ngpu):
        for j in range(ngpu):
            if i == j:
                continue

            def peer(i=i, j=j):  # GPU j pulls GPU i's buffer, as the halo does
                cp.cuda.runtime.memcpyPeerAsync(bufs[j][1].data.ptr, j, bufs[i][0].data.ptr, i, NBYTES,
                                                streams[j].ptr)
            t = timed([j], streams, peer)
            print(f"peer {i} -> {j}: {NBYTES / t / 1e9:.0f} GB/s")
    if ngpu > 1:
        def ring():  # each GPU pulls a slab from its previous and its next neighbour at once
            for d in range(ngpu):
                prev, nxt = (d - 1) % ngpu, (d + 1) % ngpu
                cp.cuda.runtime.memcpyPeerAsync(bufs[d][1].data.ptr, d, bufs[prev][0].data.ptr, prev, NBYTES,
                                                streams[d].ptr)
                if nxt != prev:
                    cp.cuda.runtime.memcpyPeerAsync(bufs[d][2].data.ptr, d, bufs[nxt][0].data.ptr, nxt, NBYTES,
                                                    streams[d].ptr)
        t = timed(range(ngpu), streams, ring)
        per_gpu = (2 if ngpu > 2 else 1) * NBYTES
        print(f"ring halo, all {ngpu} GPUs at once: {per_gpu / t / 1e9:.0f} GB/s received per GPU")


if __name__ == "__main__":
    main()
