#!/usr/bin/python3
"""P1 peer: the seed's SimpleNet training step in PyTorch 1.13 (1 thread), Fashion-MNIST batches of 32
taken in order from memory, in the interleaving protocol of bench/peer_process.hpp.

usage: p1_pytorch.py <steps per repetition> <warm-up steps> [fashion-mnist dir]
stdout: "ready data_rss_kb=<peak RSS with the data loaded> gemm=<GEMM libraries:ISA> ftz=<on|off>", then per "run":
        "cpu=<s> wall=<s> loss=<last loss> rss_kb=<peak RSS so far>"
"""
import gzip
import resource
import sys
import time

import numpy as np
import torch
import torch.nn as nn

import peer_info  # bench/peers/peer_info.py, next to this script

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
warmup = int(sys.argv[2]) if len(sys.argv) > 2 else 100
root = sys.argv[3] if len(sys.argv) > 3 else "/usr/share/datasets/fashion-mnist"
torch.set_num_threads(1)
peer_info.flush_denormal_if_asked()  # the tuned setting: KINDLING_BENCH_FLUSH_DENORMAL=1
torch.manual_seed(0)
with gzip.open(f"{root}/train-images-idx3-ubyte.gz") as f:
    X = torch.from_numpy(np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784).astype(np.float32) / 255)
with gzip.open(f"{root}/train-labels-idx1-ubyte.gz") as f:
    Y = torch.from_numpy(np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64))
data_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


model = SimpleNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
batches = X.shape[0] // 32
cursor = 0


def run(count):
    global cursor
    last = 0.0
    for _ in range(count):
        b = cursor % batches
        cursor += 1
        inputs, targets = X[b * 32:(b + 1) * 32], Y[b * 32:(b + 1) * 32]
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        last = loss.item()
    return last


run(warmup)
print(f"ready data_rss_kb={data_rss} gemm={peer_info.gemm_backends()} ftz={peer_info.flush_denormal_state()}", flush=True)
for line in sys.stdin:
    if line.strip() != "run":
        break
    c0, t0 = time.process_time(), time.perf_counter()
    loss = run(steps)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"cpu={time.process_time() - c0!r} wall={time.perf_counter() - t0!r} loss={loss!r} rss_kb={rss}",
          flush=True)
