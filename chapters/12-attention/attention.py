"""Attention by hand in PyTorch 1.13 (which has no scaled_dot_product_attention yet:
the formula, with the causal mask from tril)."""
import math

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=3)
# [snippet: by-hand]
x = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]])
q = k = v = x                                       # [T=4, E=2]
scores = (q / math.sqrt(2)) @ k.T                   # [4, 4]: query i, key j
mask = torch.ones(4, 4, dtype=torch.bool).tril()    # true: may attend
weights = scores.masked_fill(~mask, float("-inf")).softmax(-1)
out = weights @ v                                   # [4, 2]
# [end]
print("scores = q k^T / sqrt(E):\n", scores, sep="")
print("weights = softmax(masked scores):\n", weights, sep="")
print("output = weights v:\n", out, sep="")
