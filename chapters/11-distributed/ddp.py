"""PyTorch's DistributedDataParallel over gloo on two processes: the buckets its
reducer makes of the CNN's gradients, and 2 processes x 32 rows against 1 process x
64 rows, on Fashion-MNIST."""
import gzip
import socket

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.relu = nn.Linear(784, 128), nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x.view(x.size(0), 784))))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.pool, self.relu = nn.MaxPool2d(2), nn.ReLU()
        self.fc1, self.fc2 = nn.Linear(3136, 128), nn.Linear(128, 10)

    def forward(self, x):
        h = self.pool(self.relu(self.conv1(x)))
        h = self.pool(self.relu(self.conv2(h)))
        return self.fc2(self.relu(self.fc1(h.flatten(1))))


def fashion(count):
    base = "/usr/share/datasets/fashion-mnist/train-"
    with gzip.open(base + "images-idx3-ubyte.gz") as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16)[:count * 784]
    with gzip.open(base + "labels-idx1-ubyte.gz") as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)[:count]
    return (torch.from_numpy(x.astype(np.float32) / 255).view(count, 1, 28, 28),
            torch.from_numpy(y.astype(np.int64)))


def main(rank, world, port):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=world)
    # [snippet: buckets]
    torch.manual_seed(0)
    cnn = CNN()
    ddp = DDP(cnn)  # 1 MiB first bucket, then 25 MiB
    for _ in range(3):  # a few steps: the reducer rebuilds its buckets in the order
        x = torch.randn(8, 1, 28, 28)  # the first backward made the gradients ready
        nn.CrossEntropyLoss()(ddp(x), torch.zeros(8).long()).backward()
    # and its logger says which parameters each bucket holds
    log = ddp._get_ddp_logging_data()
    names = [name for name, _ in cnn.named_parameters()]
    params = list(cnn.parameters())
    for b, bucket in enumerate(log["rebuilt_per_bucket_param_indices"].split(",")):
        idx = [int(i) for i in bucket.split()]
        size = sum(params[i].numel() * params[i].element_size() for i in idx)
        if rank == 0:
            print(f"bucket {b}: {size:9d} bytes: " + " ".join(names[i] for i in idx))
    # [end]

    B, K = 64, 50
    x_all, y_all = fashion(B * K)
    torch.manual_seed(100 + rank)
    model, single = SimpleNet(), SimpleNet()
    # [snippet: equivalence]
    ddp = DDP(model)                           # every rank now has rank 0's parameters
    single.load_state_dict(model.state_dict())  # one process, the whole batch
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    opt1 = torch.optim.Adam(single.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    shard = B // world
    for step in range(K):
        x, y = x_all[step * B:(step + 1) * B], y_all[step * B:(step + 1) * B]
        xr, yr = x[rank * shard:(rank + 1) * shard], y[rank * shard:(rank + 1) * shard]
        opt.zero_grad()
        criterion(ddp(xr), yr).backward()      # gradients averaged over the ranks
        opt.step()
        opt1.zero_grad()
        criterion(single(x), y).backward()
        opt1.step()
    # [end]
    diff = max((a - b).abs().max().item()
               for a, b in zip(model.parameters(), single.parameters()))
    if rank == 0:
        print(f"after {K} Adam steps of batch {B}, {world} ranks x {shard} rows:")
        print(f"  largest difference from 1 process x {B} rows: {diff:.3g}")
    dist.destroy_process_group()


if __name__ == "__main__":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(main, args=(2, port), nprocs=2)
