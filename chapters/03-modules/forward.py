# Chapter 3 — the PyTorch twin of forward.cpp: forward() is ordinary code; a ReLU module
# or the ReLU function.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


# [snippet: plain-code]
class DebugNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.hidden = nn.Linear(784, 128), nn.Linear(128, 128)
        self.fc2 = nn.Linear(128, 10)
        self.extra_layers, self.verbose = 0, False

    def forward(self, x):
        h = F.relu(self.fc1(x))                  # the function: nothing to register
        if self.verbose:
            print(f"  after fc1: {list(h.shape)}, mean {h.mean().item():.6g}")
        for _ in range(self.extra_layers):       # a loop reuses one layer
            h = F.relu(self.hidden(h))
        if x.size(0) == 1:                       # a branch on the data
            print("  (a single image: batch of one)")
        return self.fc2(h)
# [end]


# [snippet: relu-module]
class WithModule(nn.Module):          # ReLU as a module: a child in the tree
    def __init__(self):
        super().__init__()
        self.fc, self.relu = nn.Linear(4, 3), nn.ReLU()

    def forward(self, x):
        return self.relu(self.fc(x))


class WithFunction(nn.Module):        # ReLU as a function: invisible in the tree
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return F.relu(self.fc(x))
# [end]


# [snippet: run-debug]
net = DebugNet()
net.verbose = True
for layers in (0, 2):
    net.extra_layers = layers
    y = net(torch.rand(8 if layers == 0 else 1, 784))
    print(f"extra_layers={layers} -> {list(y.shape)}")
# [end]
# [snippet: run-relu]
a, b = WithModule(), WithFunction()
b.load_state_dict(a.state_dict())     # same names: copy a's weights into b
x = torch.randn(2, 4)
print(a, b, sep="\n")
print("same output:", torch.equal(a(x), b(x)))
# [end]
