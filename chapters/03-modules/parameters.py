# Chapter 3 — the PyTorch twin of parameters.cpp: named_parameters(), SGD by hand, and a
# tensor that was never registered.
import torch
import torch.nn as nn

torch.manual_seed(0)


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


# [snippet: forgotten]
class ScaledNet(SimpleNet):
    def __init__(self):
        super().__init__()
        self.scale = torch.ones(10, requires_grad=True)   # a plain attribute

    def forward(self, x):
        return super().forward(x) * self.scale
# [end]


# [snippet: named]
model = SimpleNet()
for name, p in model.named_parameters():
    print(f"{name:<11} {str(list(p.shape)):<11} {p.numel():7} values")
print("total:", sum(p.numel() for p in model.parameters()), "trainable parameters")
# [end]

# [snippet: sgd-by-hand]
x = torch.rand(32, 784)
loss = model(x).pow(2).mean()       # any scalar will do to get gradients
loss.backward()
with torch.no_grad():               # the update itself is not part of the graph
    for p in model.parameters():
        p -= p.grad * 0.1           # what SGD's step() does
print(f"loss before {loss.item():.6g}, after one step "
      f"{model(x).pow(2).mean().item():.6g}")
# [end]

# [snippet: forgotten-run]
scaled = ScaledNet()
print(f"ScaledNet has {len(list(scaled.parameters()))} parameter tensors; scale is "
      f"among them: {any(p is scaled.scale for p in scaled.parameters())}")
# [end]
