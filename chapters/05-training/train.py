# Chapter 5 — the PyTorch twin of train.cpp: the standard training loop. For this book
# it trains one epoch on the first 6,400 training images (the C++ program's full run is
# 20 epochs on all 60,000).
import gzip
import os
import shutil
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset
from torchvision import datasets, transforms

torch.manual_seed(0)
torch.set_num_threads(1)
root = tempfile.mkdtemp(prefix="ch05_torchvision_")   # torchvision's folder layout
os.makedirs(os.path.join(root, "FashionMNIST", "raw"))
for name in os.listdir("/usr/share/datasets/fashion-mnist"):
    with gzip.open(os.path.join("/usr/share/datasets/fashion-mnist", name)) as f, \
         open(os.path.join(root, "FashionMNIST", "raw", name[:-3]), "wb") as out:
        shutil.copyfileobj(f, out)


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x.view(x.size(0), 784))))


device = "cpu"
num_epochs = 1
transform = transforms.Compose([transforms.ToTensor(),
                                transforms.Normalize((0.2860,), (0.3530,))])
train_set = Subset(datasets.FashionMNIST(root, train=True, transform=transform),
                   range(6400))
train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
# [snippet: loop]
model = SimpleNet().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
for epoch in range(num_epochs):
    model.train()
    total_loss = 0
    for inputs, labels in train_loader:
        inputs, labels = inputs.to(device), labels.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    print(f"Epoch [{epoch+1}/{num_epochs}], Loss: {total_loss/len(train_loader):.4f}")
# [end]
shutil.rmtree(root)
