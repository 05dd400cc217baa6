#!/usr/bin/python3
"""P7 peer: the seed's SimpleNet training step in PyTorch 1.13 (1 thread), in float32 and under
torch.autocast("cpu", dtype=torch.bfloat16), Fashion-MNIST batches of 64 taken in order from memory,
in the interleaving protocol of bench/peer_process.hpp. Two models from the same initial weights,
each with its own Adam and its own cursor over the batches.

usage: p7_pytorch.py <steps per repetition> <warm-up steps> [fashion-mnist dir]
stdout: "ready gemm=<GEMM libraries:ISA, peer_info.py> ftz=<on|off>", then per "run fp32" or "run bf16": "cpu=<s> wall=<s> loss=<last loss>"
"""
import copy
import gzip
import sys
import time

import numpy as np
import torch
import torch.nn as nn

import peer_info  # bench/peers/peer_info.py, next to this script

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
warmup = int(sys.argv[2]) if len(sys.argv) > 2 else 100
root = sys.argv[3] if len(sys.argv) > 3 else "/usr/share/datasets/fashion-mnist"
torch.set_num_threads(1)
peer_info.flush_denormal_if_asked()  # the tuned setting: KINDLING_BENCH_FLUSH_DENORMAL=1
torch.manual_seed(0)
with gzip.open(f"{root}/train-images-idx3-ubyte.gz") as f:
    X = torch.from_numpy(np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784).astype(np.float32) / 255)
with gzip.open(f"{root}/train-labels-idx1-ubyte.gz") as f:
    Y = torch.from_numpy(np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64))


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class Trainer:
    def __init__(self, model, amp):
        self.model, self.amp, self.cursor = model, amp, 0
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.criterion = nn.CrossEntropyLoss()

    def run(self, count):
        batches, last = X.shape[0] // 64, 0.0
        for _ in range(count):
            b = self.cursor % batches
            self.cursor += 1
            inputs, targets = X[b * 64:(b + 1) * 64], Y[b * 64:(b + 1) * 64]
            self.optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.amp):
                loss = self.criterion(self.model(inputs), targets)
            loss.backward()
            self.optimizer.step()
            last = loss.item()
        return last


model = SimpleNet()
trainers = {"fp32": Trainer(model, False), "bf16": Trainer(copy.deepcopy(model), True)}
for t in trainers.values():
    t.run(warmup)
print(f"ready gemm={peer_info.gemm_backends()} ftz={peer_info.flush_denormal_state()}", flush=True)
for line in sys.stdin:
    words = line.split()
    if len(words) != 2 or words[0] != "run" or words[1] not in trainers:
        break
    c0, t0 = time.process_time(), time.perf_counter()
    loss = trainers[words[1]].run(steps)
    print(f"cpu={time.process_time() - c0!r} wall={time.perf_counter() - t0!r} loss={loss!r}", flush=True)
