# Chapter 4 — the PyTorch twin of augment.cpp's pipelines: the classic ImageNet-style
# augmentation, written for PIL images as torchvision's tutorials do, and its
# validation counterpart; applied to one Fashion-MNIST image.
import torch
from PIL import Image
from torchvision import transforms

torch.manual_seed(0)
# [snippet: pipelines]
train_tf = transforms.Compose([
    transforms.Resize((224, 224)),
    transforms.RandomHorizontalFlip(),          # p = 0.5
    transforms.RandomRotation(10),              # -10..10 degrees
    transforms.ColorJitter(brightness=0.2, contrast=0.2),
    transforms.ToTensor(),
    transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
val_tf = transforms.Compose([                   # no random steps
    transforms.Resize((224, 224)),
    transforms.ToTensor(),
    transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
# [end]
image = Image.new("RGB", (28, 28), (200, 180, 40))     # a stand-in photo
a, b = train_tf(image), train_tf(image)
print("train_tf:", list(a.shape), "| two calls give the same tensor:",
      torch.equal(a, b))
print("val_tf:  ", list(val_tf(image).shape), "| two calls give the same tensor:",
      torch.equal(val_tf(image), val_tf(image)))
