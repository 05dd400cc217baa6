# Chapter 2 — the PyTorch twin of dynamic.cpp: a define-by-run forward.
import torch


def chain(t):
    out, node = [], t.grad_fn
    while node is not None:
        out.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    return " <- ".join(out)


# [snippet: forward]
def forward(x, w, repeats):
    h = x * w
    if h.sum() > 0:           # a branch on the data itself
        h = torch.tanh(h)
    else:
        h = torch.relu(h) * 2
    for _ in range(repeats):  # loop length decided at run time
        h = h * w
    print("  inside forward: h.grad_fn =", type(h.grad_fn).__name__)
    return h.sum()
# [end]


torch.manual_seed(0)
w = torch.randn(4, requires_grad=True)
# [snippet: loop]
for step in range(3):
    x = torch.randn(4)
    loss = forward(x, w, repeats=step)  # a new graph every iteration
    print(f"step {step}: loss = {loss.item():.5g}")
    print("  graph:", chain(loss))
    loss.backward()                     # walks this iteration's graph, then frees it
    w.grad.zero_()
# [end]
