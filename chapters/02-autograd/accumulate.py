# Chapter 2 — the PyTorch twin of accumulate.cpp: gradients add up.
import torch

# [snippet: twice]
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()               # dy/dx = 2x
y.backward(retain_graph=True)   # keep the graph for another backward
print("after one backward:  x.grad =", x.grad)
y.backward()                    # same graph again: the result is ADDED
print("after two backwards: x.grad =", x.grad)
# [end]

for zero_grad in (True, False):
    print("with zero_grad():" if zero_grad else "without zero_grad():")
    x = torch.tensor([1.0, 2.0, 3.0])
    y = 3 * x
    w = torch.tensor([0.0], requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)
    # [snippet: train-loop]
    for step in range(1, 6):
        if zero_grad:
            optimizer.zero_grad()      # forget it and the gradients pile up
        loss = ((w * x - y) ** 2).mean()
        loss.backward()                # adds d loss/d w into w.grad
        optimizer.step()
        print(f"step {step}  loss {loss.item():8.3f}  w.grad {w.grad.item():9.3f}"
              f"  w {w.item():7.3f}")
    # [end]
