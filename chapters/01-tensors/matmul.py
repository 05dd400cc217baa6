# Chapter 1 — the PyTorch twin of matmul.cpp.
import torch

torch.manual_seed(0)
# [snippet: linear]
x = torch.randn(32, 784)
W = torch.randn(128, 784)        # nn.Linear(784, 128).weight: [out, in]
y = x @ W.t()                    # [32, 128]
# [end]
print("y: shape", list(y.shape), "\nW.t(): strides", list(W.t().stride()),
      ", contiguous", W.t().is_contiguous())
# [snippet: shapes]
v = torch.randn(784)
print("matrix @ vector:", list((x @ v).shape))
batch = torch.randn(4, 32, 784)
print("batched [4, 32, 784] @ [784, 128]:", list((batch @ W.t()).shape))
# [end]
# [snippet: error]
try:
    x @ W                        # forgot the .t()
except RuntimeError as e:
    print("RuntimeError:", e)
# [end]
