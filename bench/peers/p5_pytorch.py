#!/usr/bin/python3
"""P5 peer: Fashion-MNIST through torchvision's ToTensor + RandomHorizontalFlip + Normalize in a PyTorch
1.13 DataLoader (batch 64, shuffle), 1 intra-op thread. The images are the uint8 [28, 28] arrays of the
IDX file (what ToTensor gets from an ndarray: HW uint8 -> [1, 28, 28] float32 / 255) - the same work
Kindling's ToTensor does on its uint8 [28, 28] tensors.

usage: p5_pytorch.py <num_samples> <rounds> <workers> [<workers> ...] [root]
prints, per worker count: "workers=<w> samples_per_s=<best over rounds> checksum=<sum of every pixel>"
"""
import gzip
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

torch.set_num_threads(1)
n, rounds = int(sys.argv[1]), int(sys.argv[2])
workers = [int(w) for w in sys.argv[3:] if w.isdigit()]
roots = [a for a in sys.argv[3:] if not a.isdigit()]
root = roots[0] if roots else "/usr/share/datasets/fashion-mnist"
with gzip.open(f"{root}/train-images-idx3-ubyte.gz") as f:
    images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)[:n].copy()  # writable
with gzip.open(f"{root}/train-labels-idx1-ubyte.gz") as f:
    labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)[:n]


class FashionMNIST(Dataset):
    def __init__(self, data, targets, transform):
        self.data, self.targets, self.transform = data, targets, transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.transform(self.data[i]), int(self.targets[i])


tf = transforms.Compose([transforms.ToTensor(), transforms.RandomHorizontalFlip(0.5),
                         transforms.Normalize((0.2860,), (0.3530,))])
ds = FashionMNIST(images, labels, tf)
torch.manual_seed(0)
for w in workers:
    loader = DataLoader(ds, batch_size=64, shuffle=True, num_workers=w)
    best, checksum = 0.0, 0.0
    for r in range(rounds):
        t0 = time.perf_counter()
        total, count = 0.0, 0
        for x, y in loader:  # worker processes start here and stop at the end of the epoch, every epoch
            total += float(x.double().sum())
            count += x.shape[0]
        best = max(best, count / (time.perf_counter() - t0))
        checksum = total
    print(f"workers={w} samples_per_s={best!r} checksum={checksum!r}", flush=True)
