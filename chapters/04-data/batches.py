# Chapter 4 — the PyTorch twin of batches.cpp: batch_size and shuffle.
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
n = 1000
features = torch.randn(n, 1)
labels = torch.arange(n) // 100           # stored class by class: 100 of each label
dataset = TensorDataset(features, labels)

print("batch_size  steps/epoch  spread of the batch means")
# [snippet: batch-size]
for batch_size in (1, 8, 32, 256):
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(1))
    means = torch.tensor([x.mean().item() for x, _ in loader])
    print(f"{batch_size:10}  {len(loader):11}  {means.std(unbiased=False).item():.3f}")
# [end]
# [snippet: shuffle]
in_order = DataLoader(dataset, batch_size=32)                  # shuffle=False
shuffled = DataLoader(dataset, batch_size=32, shuffle=True)
# [end]
for name, loader in (("shuffle=False", in_order), ("shuffle=True ", shuffled)):
    for k, (_, y) in zip(range(3), loader):
        counts = torch.bincount(y, minlength=10)
        print(f"  {name}  batch {k}: " +
              " ".join(f"{c}:{n}" for c, n in enumerate(counts.tolist()) if n))
