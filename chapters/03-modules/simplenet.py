# Chapter 3 — the PyTorch twin of simplenet.cpp: SimpleNet as an nn.Module.
import torch
import torch.nn as nn

torch.manual_seed(0)


# [snippet: simplenet]
class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)   # registered by nn.Module.__setattr__
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):               # x: [batch, 784]
        return self.fc2(self.relu(self.fc1(x)))
# [end]


# [snippet: run]
model = SimpleNet()
images = torch.rand(32, 784)
logits = model(images)                  # __call__ calls forward()
print(f"input {list(images.shape)} -> logits {list(logits.shape)}, "
      f"grad_fn {type(logits.grad_fn).__name__}")
print(model)
# [end]
