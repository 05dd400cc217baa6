#!/usr/bin/python3
"""P1 peer: the seed's SimpleNet training step in PyTorch 1.13 (1 thread), Fashion-MNIST batches of 32
taken in order from memory. Prints "steps_per_s=<x> final_loss=<y>"."""
import gzip
import sys
import time

import numpy as np
import torch
import torch.nn as nn

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
root = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/datasets/fashion-mnist"
torch.set_num_threads(1)
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


model = SimpleNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
batches = X.shape[0] // 32


def run(count):
    last = 0.0
    for s in range(count):
        b = s % batches
        inputs, targets = X[b * 32:(b + 1) * 32], Y[b * 32:(b + 1) * 32]
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        last = loss.item()
    return last


run(max(20, steps // 20))
t0 = time.perf_counter()
loss = run(steps)
print(f"steps_per_s={steps / (time.perf_counter() - t0):.1f} final_loss={loss:.4f}")
