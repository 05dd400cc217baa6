#!/usr/bin/python3
"""P5 peer: Fashion-MNIST through torchvision's ToTensor + RandomHorizontalFlip + Normalize in a PyTorch
1.13 DataLoader (batch 64, shuffle), 1 intra-op thread. The images are the uint8 [28, 28] arrays of the
IDX file (what ToTensor gets from an ndarray: HW uint8 -> [1, 28, 28] float32 / 255) - the same work
Kindling's ToTensor does on its uint8 [28, 28] tensors.

usage: p5_pytorch.py <num_samples> [root]     then the interleaving protocol of bench/peer_process.hpp:
  stdin:  "run <workers>" lines (one epoch each), then "quit"
  stdout: "ready gemm=<GEMM libraries:ISA, peer_info.py> ftz=<on|off>", then per epoch "cpu=<s> wall=<s> checksum=<sum of every pixel>"
(cpu is this process's CPU time; the workers' processes are not in it, so the C++ side compares
wall-clock time when there are workers.)
"""
import gzip
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

import peer_info  # bench/peers/peer_info.py, next to this script

torch.set_num_threads(1)
peer_info.flush_denormal_if_asked()  # the tuned setting: KINDLING_BENCH_FLUSH_DENORMAL=1
n = int(sys.argv[1])
root = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/datasets/fashion-mnist"
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
loaders = {}
print(f"ready gemm={peer_info.gemm_backends()} ftz={peer_info.flush_denormal_state()}", flush=True)
for line in sys.stdin:
    words = line.split()
    if len(words) != 2 or words[0] != "run":
        break
    w = int(words[1])
    if w not in loaders:
        loaders[w] = DataLoader(ds, batch_size=64, shuffle=True, num_workers=w)
    c0, t0 = time.process_time(), time.perf_counter()
    total = 0.0
    for x, y in loaders[w]:  # worker processes start here and stop at the end of the epoch, every epoch
        total += float(x.double().sum())
    print(f"cpu={time.process_time() - c0!r} wall={time.perf_counter() - t0!r} checksum={total!r}", flush=True)
