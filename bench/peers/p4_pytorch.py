#!/usr/bin/python3
"""P4 peer: autograd overhead in PyTorch 1.13 (1 thread). A chain of `ops` tiny ops on 16 floats,
alternating y = y * w and y = tanh(y), then y.sum().backward(). Same work as bench/autograd_chain.cpp.

usage: p4_pytorch.py OPS REPS     prints "median_s=<cpu seconds> median_wall_s=<seconds> grad_w_sum=<value>"
(CPU time of this process: one thread, so on an idle machine it equals wall time, and on a shared one
it leaves out the time other programs held the core)
(the gradient lets the C++ side check both frameworks computed the same thing, on the same inputs:
x and w are read from stdin as 32 floats, so no random generator has to match)."""
import statistics
import sys
import time

import torch

ops, reps = int(sys.argv[1]), int(sys.argv[2])
torch.set_num_threads(1)
vals = [float(v) for v in sys.stdin.read().split()]
x = torch.tensor(vals[:16], requires_grad=True)
w = torch.tensor(vals[16:32], requires_grad=True)


def run():
    y = x
    for i in range(ops):
        y = y * w if i % 2 == 0 else y.tanh()
    y.sum().backward()


run()  # warm-up (and the gradient we report)
grad_w_sum = float(w.grad.sum())
cpu, wall = [], []
for _ in range(reps):
    w.grad = None
    x.grad = None
    c0, t0 = time.process_time(), time.perf_counter()
    run()
    cpu.append(time.process_time() - c0)
    wall.append(time.perf_counter() - t0)
print(f"median_s={statistics.median(cpu)!r} median_wall_s={statistics.median(wall)!r} grad_w_sum={grad_w_sum!r}",
      flush=True)
