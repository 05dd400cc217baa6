# Chapter 3 — the PyTorch twin of sequential.cpp.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

# [snippet: sequential]
model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
print(model)
print("  ".join(name for name, _ in model.named_parameters()))
# [end]


# [snippet: two-path]
class TwoPathNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.deep = nn.Sequential(nn.Linear(784, 256), nn.ReLU(),
                                  nn.Linear(256, 64), nn.ReLU())
        self.shallow = nn.Linear(784, 64)
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        a = self.deep(x)
        b = F.relu(self.shallow(x))
        return self.head(torch.cat([a, b], dim=1))
# [end]


net = TwoPathNet()
print(net)
print(f"output {list(net(torch.rand(4, 784)).shape)}, "
      f"{sum(p.numel() for p in net.parameters())} parameters")
