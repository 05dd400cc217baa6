# Chapter 1 — the PyTorch twin of npy.cpp: the file ch01_npy wrote, opened with NumPy
# and handed to PyTorch, with no Kindling code.
# book: inputs ch01_weights.npy ch01_weights_t.npy
import numpy as np
import torch

# [snippet: load]
w = np.load("ch01_weights.npy")        # written by ch01_npy (C++)
t = torch.from_numpy(w)                # shares w's memory, as above
print(w.dtype, w.shape, "| the transposed file is w.T:",
      np.array_equal(np.load("ch01_weights_t.npy"), w.T))
print(t)
# [end]
