# Chapter 2 — the PyTorch twin of memory.cpp: what recording keeps alive. The bytes the
# graph saves are counted with saved_tensors_hooks, which see every tensor a node keeps.
import torch

torch.manual_seed(0)
layers = [torch.randn(512, 512, requires_grad=True) * 0.05 for _ in range(4)]
x = torch.randn(256, 512)


def model(x):
    for w in layers:
        x = torch.tanh(x @ w)
    return x


saved = []


def pack(t):
    saved.append(t.numel() * t.element_size())
    return t


# [snippet: no-grad]
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    out = model(x)                     # recorded: out.grad_fn = TanhBackward0
    print(f"recording:  out.grad_fn = {type(out.grad_fn).__name__},"
          f" saved {sum(saved) / 1024:.0f} KiB")
    saved.clear()
    with torch.no_grad():
        out = model(x)                 # nothing recorded, nothing saved
    print(f"no_grad():  out.grad_fn = {out.grad_fn}, saved {sum(saved) / 1024:.0f} KiB")
# [end]

# [snippet: eval-loop]
losses = []
for step in range(5):
    loss = model(x).pow(2).mean()
    losses.append(loss)           # keeps the whole graph of this batch alive
print("losses[0].grad_fn:", type(losses[0].grad_fn).__name__)
total = sum(model(x).pow(2).mean().item() for _ in range(5))  # floats: no graph
print(f"total of 5 losses as floats: {total:.6f}")
# [end]
