# Chapter 1 — the PyTorch twin of reductions.cpp: dim, keepdim, max.
import torch

# [snippet: sum]
x = torch.arange(6.).view(2, 3)
total, per_col, per_row = x.sum(), x.sum(0), x.sum(1)   # 0-d, [3], [2]
per_row_kept = x.sum(1, keepdim=True)                   # [2, 1]
# [end]
print("x.sum() =", total, "\nx.sum(0) =", per_col, "\nx.sum(1) =", per_row)
print("x.sum(1, keepdim=True) =\n", per_row_kept, sep="")
# [snippet: keepdim]
shares = x / x.sum(1, keepdim=True)   # each row sums to 1
# [end]
print("x / x.sum(1, keepdim=True):\n", shares, sep="")
try:
    x / x.sum(1)                      # [2, 3] / [2]: the 2 lines up with the 3
except RuntimeError as e:
    print("without keepdim: RuntimeError:", e)
# [snippet: max]
values, indices = torch.max(x, 1)     # the largest value of each row, and where
# [end]
print("torch.max(x, 1): values", values, ", indices", indices)
