# Chapter 1 — the PyTorch twin of views.cpp: writing through a view, view() vs
# reshape(), contiguous().
import torch

x = torch.arange(12.).view(3, 4)
# [snippet: write-through]
xt = x.t()                # [4, 3]: a view
x[:2, :2].fill_(-1)       # changes x ... and xt, which reads the same memory
print("x after x[:2, :2].fill_(-1):")
print(x)
print("xt[0] =", xt[0])
# [end]

# [snippet: view-error]
try:
    xt.view(12)           # xt's elements are not in storage order
except RuntimeError as e:
    print("RuntimeError:", e)
# [end]

# [snippet: reshape]
r = xt.reshape(12)        # works: copies when it has to
v = x.reshape(2, 6)       # a view: x is contiguous
print("xt.reshape(12) shares x's storage:", r.data_ptr() == x.data_ptr())
print("x.reshape(2, 6) shares x's storage:", v.data_ptr() == x.data_ptr())
c = xt.contiguous()       # copies into row-major order
print("xt.contiguous(): strides", list(c.stride()),
      "| x.contiguous() is x:", x.contiguous() is x)
# [end]
