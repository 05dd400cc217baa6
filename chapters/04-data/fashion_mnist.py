# Chapter 4 — the PyTorch twin of fashion_mnist.cpp: torchvision reads the same IDX
# files (Debian's dataset-fashion-mnist), given the folder layout it expects.
import gzip
import os
import shutil
import tempfile

import torch
from torchvision import datasets, transforms

# torchvision 0.14 wants <root>/FashionMNIST/raw/ with the files uncompressed.
DEBIAN = "/usr/share/datasets/fashion-mnist"
root = tempfile.mkdtemp(prefix="ch04_torchvision_")
os.makedirs(os.path.join(root, "FashionMNIST", "raw"))
for name in os.listdir(DEBIAN):
    with gzip.open(os.path.join(DEBIAN, name)) as f, \
         open(os.path.join(root, "FashionMNIST", "raw", name[:-3]), "wb") as out:
        shutil.copyfileobj(f, out)

# [snippet: raw]
train = datasets.FashionMNIST(root, train=True, download=False)   # PIL images
test = datasets.FashionMNIST(root, train=False, download=False)
image, label = train[0]
print(f"train: {len(train)} images, test: {len(test)} images")
print(f"train[0]: {image.size} {image.mode} image, "
      f"label {label} = {train.classes[label]}")
# [end]
# [snippet: to-tensor]
pipeline = transforms.Compose([transforms.ToTensor(),
                               transforms.Normalize((0.2860,), (0.3530,))])
x = datasets.FashionMNIST(root, train=True, transform=pipeline)[0][0]
print(f"ToTensor + Normalize: {list(x.shape)} {x.dtype}, mean {x.mean().item():.3f}")
pixels = train.data.float() / 255              # [60000, 28, 28]
print(f"training set: mean {pixels.mean().item():.4f}, std {pixels.std().item():.4f}")
# [end]
shutil.rmtree(root)
