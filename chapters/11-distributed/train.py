"""PyTorch's twin of train.cpp: SimpleNet on Fashion-MNIST with DistributedDataParallel
over gloo on 2 processes, batches of 32 per process, Adam, three epochs."""
# book: timeout 300
import gzip
import socket

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.relu = nn.Linear(784, 128), nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x.view(x.size(0), 784))))


def fashion(split):
    base = f"/usr/share/datasets/fashion-mnist/{split}-"
    with gzip.open(base + "images-idx3-ubyte.gz") as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(base + "labels-idx1-ubyte.gz") as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)
    x = (torch.from_numpy(x.astype(np.float32) / 255) - 0.2860) / 0.3530
    return TensorDataset(x, torch.from_numpy(y.astype(np.int64)))


def main(rank, world, port, epochs):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=world)
    torch.manual_seed(0)
    train_set, test_set = fashion("train"), fashion("t10k")
    # [snippet: setup]
    sampler = DistributedSampler(train_set)  # this rank's shard of every epoch
    loader = DataLoader(train_set, batch_size=32, sampler=sampler)
    model = SimpleNet()
    ddp = DDP(model)  # rank 0's weights, buckets, hooks
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    # [end]
    for epoch in range(epochs):
        total = 0.0
        # [snippet: loop]
        sampler.set_epoch(epoch)  # a new order, the same on every rank
        model.train()
        for images, labels in loader:
            optimizer.zero_grad()
            loss = criterion(ddp(images), labels)
            loss.backward()  # and the gradients' average over the ranks
            optimizer.step()
            total += loss.item()
        # [end]
        if rank == 0:
            model.eval()
            with torch.no_grad():
                x, y = test_set.tensors
                accuracy = (model(x).argmax(1) == y).float().mean().item()
            loss = total / len(loader)
            print(f"{world} processes, epoch {epoch + 1}: loss {loss:.4f}, "
                  f"test accuracy {100 * accuracy:.2f} %")
    dist.destroy_process_group()


if __name__ == "__main__":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(main, args=(2, port, 3), nprocs=2)
