# Chapter 2 — the PyTorch twin of graph.cpp: what autograd records.
import torch

# [snippet: record]
x = torch.tensor([1.0, 2.0, 3.0])                        # data
w = torch.tensor([0.5, -1.0, 0.25], requires_grad=True)  # parameters
b = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
h = x * w + b
z = h.tanh()
loss = z.sum()
# [end]
print("x.requires_grad:", x.requires_grad, " w.requires_grad:", w.requires_grad)
print("h.requires_grad:", h.requires_grad, " h.grad_fn:", type(h.grad_fn).__name__)
print("loss.grad_fn:", type(loss.grad_fn).__name__)
print("loss.grad_fn.next_functions:",
      [(type(f).__name__, i) for f, i in loss.grad_fn.next_functions])
loss.backward()
print("w.grad:", w.grad)
print("b.grad:", b.grad)
print("x.grad:", x.grad)
