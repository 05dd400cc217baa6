#!/usr/bin/python3
"""P9 peer: bench/compile_mlp.cpp's MLP in PyTorch 1.13 eager (Debian's PyTorch has no torch.compile):
3 blocks of x -> LayerNorm(x + GELU(Linear(x)) * gamma), x: [256, 128], 1 intra-op thread, the same
weights and input (the formulas of compile_mlp.cpp), an SGD step on mean(y * y).

usage: p9_mlp_pytorch.py <per_rep>     then the interleaving protocol of bench/peer_process.hpp:
  stdin:  "run forward" or "run train" lines (per_rep forwards or steps each), then "quit"
  stdout: "ready gemm=<GEMM libraries:ISA> ftz=<on|off> checksum=<sum of the first forward's output>",
          then per run "cpu=<s> wall=<s>"
"""
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import peer_info  # bench/peers/peer_info.py, next to this script

torch.set_num_threads(1)
peer_info.flush_denormal_if_asked()  # the tuned setting: KINDLING_BENCH_FLUSH_DENORMAL=1
BATCH, WIDTH, BLOCKS = 256, 128, 3
per_rep = int(sys.argv[1])


def formula(k, shape, scale, offset):
    """offset + scale * sin(0.37 i + k) in double, rounded to float32 (compile_mlp.cpp's formula)."""
    n = int(np.prod(shape))
    v = offset + scale * np.sin(0.37 * np.arange(n, dtype=np.float64) + k)
    return torch.from_numpy(v.astype(np.float32).reshape(shape))


class Block(nn.Module):
    def __init__(self, b):
        super().__init__()
        self.fc = nn.Linear(WIDTH, WIDTH)
        self.norm = nn.LayerNorm(WIDTH)
        self.gamma = nn.Parameter(formula(10 * b + 2, (WIDTH,), 0.1, 0.5))
        with torch.no_grad():
            self.fc.weight.copy_(formula(10 * b, (WIDTH, WIDTH), 0.05, 0.0))
            self.fc.bias.copy_(formula(10 * b + 1, (WIDTH,), 0.01, 0.0))
            self.norm.weight.copy_(formula(10 * b + 3, (WIDTH,), 0.05, 1.0))
            self.norm.bias.copy_(formula(10 * b + 4, (WIDTH,), 0.02, 0.0))

    def forward(self, x):
        return self.norm(x + F.gelu(self.fc(x)) * self.gamma)


model = nn.Sequential(*[Block(b) for b in range(BLOCKS)])
x = formula(100, (BATCH, WIDTH), 1.0, 0.0)
with torch.no_grad():
    checksum = float(model(x).double().sum())
sgd = torch.optim.SGD(model.parameters(), lr=1e-3)


def forward():
    with torch.no_grad():
        for _ in range(per_rep):
            model(x)


def train():
    for _ in range(per_rep):
        sgd.zero_grad()
        y = model(x)
        (y * y).mean().backward()
        sgd.step()


print(f"ready gemm={peer_info.gemm_backends()} ftz={peer_info.flush_denormal_state()} checksum={checksum!r}", flush=True)
for line in sys.stdin:
    words = line.split()
    if len(words) != 2 or words[0] != "run" or words[1] not in ("forward", "train"):
        break
    c0, t0 = time.process_time(), time.perf_counter()
    forward() if words[1] == "forward" else train()
    print(f"cpu={time.process_time() - c0!r} wall={time.perf_counter() - t0!r}", flush=True)
