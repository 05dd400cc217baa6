# Chapter 3 — the PyTorch twin of moving.cpp: model.to() converts what is registered;
# a plain tensor attribute stays behind. (Shown with a dtype, as the book's machine
# has no GPU; with model.to("cuda") the same tensor would stay on the CPU.)
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


# [snippet: hand-made]
class Projector(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.bn = nn.BatchNorm1d(4)
        self.proj = torch.randn(2, 4)    # a plain attribute: not moved by .to()

    def forward(self, x):
        return F.linear(self.bn(self.fc(x)), self.proj)
# [end]


# [snippet: to-dtype]
model = Projector().to(torch.float64)
x = torch.randn(5, 8, dtype=torch.float64)
print("fc.weight:", model.fc.weight.dtype, "| proj:", model.proj.dtype)
try:
    model(x)
except RuntimeError as e:
    print("RuntimeError:", e)
# [end]


# [snippet: registered]
class FixedProjector(Projector):
    def __init__(self):
        super().__init__()
        del self.proj
        self.register_buffer("proj", torch.randn(2, 4))  # moved and saved, not trained
# [end]


fixed = FixedProjector().to(torch.float64)
print("registered proj:", fixed.proj.dtype, "| buffers:",
      ", ".join(name for name, _ in fixed.named_buffers()))
