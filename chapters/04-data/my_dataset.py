# Chapter 4 — the PyTorch twin of my_dataset.cpp: a Dataset over in-memory data and
# labels, and a DataLoader with batch 32, shuffling, 4 worker processes, pinned memory.
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


# [snippet: my-dataset]
class MyDataset(Dataset):
    def __init__(self, data, labels):
        self.data = data          # [N, 4] float32 features, kept in memory
        self.labels = labels      # [N] int64 class indices

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):   # per-sample work runs in the worker processes
        x = self.data[idx]
        return (x - x.mean()) / (x.std() + 1e-6), self.labels[idx]
# [end]


if __name__ == "__main__":
    # [snippet: make-dataset]
    n = 1000
    dataset = MyDataset(torch.randn(n, 4), torch.randint(0, 3, (n,)))
    print("len(dataset) =", len(dataset))
    x0, y0 = dataset[0]
    print(f"dataset[0]: features {list(x0.shape)} {x0.dtype}, label {y0.item()} "
          f"({y0.dtype}, {y0.dim()}-d)")
    # [end]
    # [snippet: loader]
    loader = DataLoader(dataset, batch_size=32, shuffle=True, num_workers=4,
                        pin_memory=True)
    print("len(loader) =", len(loader), "batches")
    seen = 0
    for step, (inputs, labels) in enumerate(loader):
        if step < 2 or step == len(loader) - 1:
            print(f"batch {step}: inputs {list(inputs.shape)}, "
                  f"labels {list(labels.shape)} {labels.dtype}")
        seen += inputs.size(0)
    print(f"one epoch: {len(loader)} batches, {seen} samples")
    # [end]
