# Chapter 1 — the PyTorch twin of printing.cpp.
import torch

torch.manual_seed(0)
# [snippet: print]
print(torch.tensor([[1., 2.5], [-3., 4.]]))
print(torch.arange(5))
print(torch.arange(5) > 2)
print(torch.ones(2, 2, dtype=torch.float64))
print(torch.tensor(3.5))
print(torch.zeros(0, 3))
# [end]
# [snippet: summary]
print(torch.arange(10000).view(100, 100))   # more than 1000 elements: summarised
# [end]
# [snippet: options]
torch.set_printoptions(precision=2)
print(torch.randn(2, 3))
torch.set_printoptions(profile="default")
# [end]
