"""The same measurement over PyTorch's gloo backend on 2 processes: dist.all_reduce of
float32 tensors from 4 bytes to 64 MiB, the slowest rank's time of each repetition, the
median, and the ring model fitted the same way. gloo sends over TCP on the loopback
interface."""
import socket
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def main(rank, world, port):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=world)
    # [snippet: measure]
    tensors = [torch.ones(4 ** k) for k in range(13)]  # 4 B .. 64 MiB
    reps = 25
    mine = [[] for _ in tensors]
    for rep in range(-2, reps):  # two rounds to warm up
        for s, t in enumerate(tensors):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            if rep >= 0:
                mine[s].append(time.perf_counter() - t0)
    times = torch.tensor(mine, dtype=torch.float64)
    dist.all_reduce(times, dist.ReduceOp.MAX)  # the slowest rank's time
    # [end]
    sizes = np.array([4.0 * t.numel() for t in tensors])
    medians = times.median(dim=1).values.numpy()
    u, v = sizes / medians, 1 / medians  # the same fit as allreduce_cost.cpp
    a, b = np.linalg.lstsq(np.stack([u, v], 1), np.ones_like(u), rcond=None)[0]
    if b < 0:  # a negative latency is noise: fit the line through the origin
        a, b = u.sum() / (u * u).sum(), 0.0
    steps = 2.0 * (world - 1)
    if rank == 0:
        print(f"gloo all_reduce on {world} ranks (median of the slowest rank's times):")
        print(f"{'bytes':>10} {'measured':>12} {'model':>12}")
        for size, m in zip(sizes, medians):
            print(f"{size:10.0f} {1e6 * m:9.1f} us {1e6 * (a * size + b):9.1f} us")
        print(f"fit on {world} ranks: latency {1e6 * b / steps:.1f} us per step, "
              f"bandwidth {steps / world / a / 1e9:.2f} GB/s")
    dist.destroy_process_group()


if __name__ == "__main__":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(main, args=(2, port), nprocs=2)
