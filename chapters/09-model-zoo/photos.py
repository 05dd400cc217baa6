# The same pipeline in PyTorch: torchvision's ImageFolder over Tux Paint's animal
# photos, ImageNet's training transforms on PIL images, a batch, and ResNet-18 with
# 9 classes.
import collections

import torch
import torchvision
from torchvision import transforms as T

torch.manual_seed(0)
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
# [snippet: folder]
# One folder per class: animals/birds/*.png, animals/mammals/bears/*.png, ...
root = "/usr/share/tuxpaint/stamps/animals"
# On PIL images: ToTensor comes last, after the PIL transforms.
train_tf = T.Compose([T.Resize((224, 224)), T.RandomHorizontalFlip(),
                      T.RandomRotation(10), T.ColorJitter(0.2, 0.2), T.ToTensor(),
                      T.Normalize(MEAN, STD)])
photos = torchvision.datasets.ImageFolder(root, train_tf)
# [end]
count = collections.Counter(label for _, label in photos.samples)
print(f"{len(photos)} photos in {len(photos.classes)} classes:")
for c, name in enumerate(photos.classes):
    print(f"  {c} {name:<10} {count[c]:3d}")

# [snippet: batch]
loader = torch.utils.data.DataLoader(photos, batch_size=8, shuffle=True)
x, y = next(iter(loader))  # x: [8, 3, 224, 224] float32, y: [8] int64
model = torchvision.models.resnet18(weights=None, num_classes=9)  # 9 classes
model.eval()
with torch.no_grad():
    logits = model(x)  # [8, 9]
# [end]
print(f"batch: x {list(x.shape)} {str(x.dtype).replace('torch.', '')}, "
      f"y {list(y.shape)}; logits {list(logits.shape)}")
