#!/usr/bin/python3
"""P4 peer: autograd overhead in PyTorch 1.13 (1 thread). A chain of `ops` tiny ops on 16 floats,
alternating y = y * w and y = tanh(y), then y.sum().backward(). Same work as bench/autograd_chain.cpp.

usage: p4_pytorch.py OPS        then the interleaving protocol of bench/peer_process.hpp:
  stdin:  32 floats (x and w, so no random generator has to match), then "run" / "quit" lines
  stdout: "ready grad_w_sum=<value> gemm=<GEMM libraries:ISA> ftz=<on|off>" after the warm-up, then "cpu=<s> wall=<s>" per "run"
(CPU time of this process: one thread, so on an idle machine it equals wall time, and on a shared one
it leaves out the time other programs held the core; the gradient lets the C++ side check both
frameworks computed the same thing)."""
import sys
import time

import torch

import peer_info  # bench/peers/peer_info.py, next to this script

ops = int(sys.argv[1])
torch.set_num_threads(1)
peer_info.flush_denormal_if_asked()  # the tuned setting: KINDLING_BENCH_FLUSH_DENORMAL=1
vals = [float(v) for v in sys.stdin.readline().split()]
x = torch.tensor(vals[:16], requires_grad=True)
w = torch.tensor(vals[16:32], requires_grad=True)


def run():
    y = x
    for i in range(ops):
        y = y * w if i % 2 == 0 else y.tanh()
    y.sum().backward()


run()  # warm-up (and the gradient we report)
print(f"ready grad_w_sum={float(w.grad.sum())!r} gemm={peer_info.gemm_backends()} ftz={peer_info.flush_denormal_state()}", flush=True)
for line in sys.stdin:
    if line.strip() != "run":
        break
    w.grad = None
    x.grad = None
    c0, t0 = time.process_time(), time.perf_counter()
    run()
    print(f"cpu={time.process_time() - c0!r} wall={time.perf_counter() - t0!r}", flush=True)
