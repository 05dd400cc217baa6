# Chapter 1 — the PyTorch twin of strides.cpp: shape, strides and offset of a tensor
# and of four views of it, and the storage positions each view reads.
import torch


def positions(t):
    """The storage position of every element of t, in row-major order."""
    out = []
    for i in range(t.numel()):
        rest, pos = i, t.storage_offset()
        for d in reversed(range(t.dim())):
            pos += (rest % t.size(d)) * t.stride(d)
            rest //= t.size(d)
        out.append(pos)
    return out


def describe(name, t):
    shape, strides = str(list(t.shape)), str(list(t.stride()))
    contiguous = "yes" if t.is_contiguous() else "no"
    reads = " ".join(map(str, positions(t)))
    print(f"{name:<10} shape {shape:<7} strides {strides:<7} "
          f"offset {t.storage_offset()}  contiguous {contiguous:<3}  reads {reads}")


# [snippet: create]
x = torch.arange(6).view(2, 3)
print(x)
print(f"shape {list(x.shape)}, strides {list(x.stride())}, "
      f"offset {x.storage_offset()}, dtype {x.dtype}, "
      f"{x.storage().nbytes()} bytes of storage")
# [end]

# [snippet: views]
xt = x.t()            # [3, 2]
row = x[1]            # [3]
col = x[:, 2]         # [2]
stepped = x[:, ::2]   # [2, 2]
# [end]
for name, t in [("x", x), ("x.t()", xt), ("x[1]", row), ("x[:, 2]", col),
                ("x[:, ::2]", stepped)]:
    describe(name, t)
base = x.storage().data_ptr()
same = all(t.storage().data_ptr() == base for t in (xt, row, col, stepped))
print("all five share one storage:", str(same).lower())
