# Chapter 1 — the PyTorch twin of sharing.cpp: from_numpy shares memory, torch.tensor
# copies it.
import numpy as np
import torch

# [snippet: numpy]
a = np.array([1., 2., 3., 4.], dtype=np.float32)
shared = torch.from_numpy(a)   # the same memory: no copy
copied = torch.tensor(a)       # a copy
a[0] = 100                     # shared sees 100, copied does not
print("shared:", shared, "\ncopied:", copied)
shared.mul_(2)                 # and a changes too
print("a after shared.mul_(2):", a)
back = shared.numpy()          # an ndarray over the same memory again
print("back shares a's memory:", np.shares_memory(back, a))
# [end]
