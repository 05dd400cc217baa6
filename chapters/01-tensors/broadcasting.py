# Chapter 1 — the PyTorch twin of broadcasting.cpp.
import torch

# [snippet: broadcast]
col = torch.arange(3).view(3, 1)   # [3, 1]
row = torch.arange(4)              # [4]
grid = col * 10 + row              # [3, 4]
# [end]
print("col * 10 + row:")
print(grid)
print("broadcast_shapes([8, 1, 6, 1], [7, 1, 5]) =",
      list(torch.broadcast_shapes((8, 1, 6, 1), (7, 1, 5))))
# [snippet: expand]
col_wide = col.expand(3, 4)        # what broadcasting does, as a view
row_tall = row.expand(3, 4)
print(f"col.expand(3, 4): strides {list(col_wide.stride())}, "
      f"row.expand(3, 4): strides {list(row_tall.stride())}")
# [end]
# [snippet: mismatch]
try:
    torch.ones(2, 3) + torch.ones(3, 2)
except RuntimeError as e:
    print("RuntimeError:", e)
# [end]
