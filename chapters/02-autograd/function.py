# Chapter 2 — the PyTorch twin of function.cpp: a custom torch.autograd.Function.
import torch


# [snippet: hypot]
class Hypot(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        out = (a * a + b * b).sqrt()        # a: [3, 1], b: [4] -> out: [3, 4]
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, g):                   # g = d loss / d out
        a, b, out = ctx.saved_tensors
        return (g * a / out if ctx.needs_input_grad[0] else None,
                g * b / out if ctx.needs_input_grad[1] else None)
# [end]


def show(name, t):
    shape = "[" + ", ".join(str(s) for s in t.shape) + "]"
    print(f"{name} {shape}:" + "".join(f" {v:.4f}" for v in t.reshape(-1).tolist()))


# [snippet: use]
a = torch.tensor([[0.5], [-1.0], [2.0]], requires_grad=True)  # [3, 1]
b = torch.tensor([1.0, -0.5, 0.25, 3.0], requires_grad=True)  # [4]
out = Hypot.apply(a, b)                 # [3, 4], broadcast
print("out.grad_fn():", type(out.grad_fn).__name__)
out.sum().backward()
show("a.grad", a.grad)                  # [3, 1]: PyTorch summed the [3, 4] gradient
show("b.grad", b.grad)                  # [4]
# [end]

# [snippet: sum-to]
g = torch.ones(3, 4)
show("sum_to(ones [3, 4], [3, 1])", g.sum_to_size(3, 1))
show("sum_to(ones [3, 4], [4])", g.sum_to_size(4))
# [end]

# [snippet: check]
x = torch.randn(3, 1, dtype=torch.float64, requires_grad=True)
y = torch.randn(4, dtype=torch.float64, requires_grad=True)
ok = torch.autograd.gradcheck(Hypot.apply, (x, y), eps=1e-6, atol=1e-5, rtol=1e-3)
print("gradcheck(Hypot): ok=" + ("true" if ok else "false"))
# [end]
