# Chapter 1 — the PyTorch twin of promotion.cpp: the dtype of a + b, case by case.
import torch

# [snippet: promotion]
i = torch.tensor([1, 2, 3])         # int64
f = torch.tensor([0.5, 1.5, 2.5])   # float32
d = f.double()
u = i.to(torch.uint8)
b = i > 1                           # bool
# [end]


def show(expr, t):
    print(f"  {expr:<26} -> {str(t.dtype).replace('torch.', '')}")


print("type promotion:")
show("int64 + float32", i + f)
show("float32 + float64", f + d)
show("uint8 + int64", u + i)
show("bool + bool", b + b)
show("bool + int64", b + i)
show("int64 + 2 (integer)", i + 2)
show("int64 + 2.5 (float)", i + 2.5)
show("int64 / int64", i / i)
show("float32 + 0-d float64", f + torch.tensor(1.0, dtype=torch.float64))
show("uint8 + 300 (integer)", u + 300)
