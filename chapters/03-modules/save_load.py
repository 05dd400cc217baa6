# Chapter 3 — the PyTorch twin of save_load.cpp: state_dict, torch.save, strict loading.
import os

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


class RenamedNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden, self.out = nn.Linear(784, 128), nn.Linear(128, 10)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


# [snippet: state-dict]
model = SimpleNet()
for name, t in model.state_dict().items():
    print(name, list(t.shape))
torch.save(model.state_dict(), "ch03_model.pth")
# [end]
# [snippet: load]
restored = SimpleNet()                                   # 1. create the model
restored.load_state_dict(torch.load("ch03_model.pth",    # 2. load the values into it
                                    map_location="cpu"))
restored.eval()
x = torch.rand(2, 784)
print("after loading, same output:", torch.equal(model(x), restored(x)))
# [end]
# [snippet: strict]
try:
    RenamedNet().load_state_dict(torch.load("ch03_model.pth"))
except RuntimeError as e:
    print("RuntimeError:", e)
# [end]
os.remove("ch03_model.pth")
