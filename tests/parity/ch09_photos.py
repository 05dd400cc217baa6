# Chapter 9 parity: the image pipeline on real photographs. The photographs are Tux Paint's stamps
# (Debian's tuxpaint-stamps-default, GPL-2, installed by scripts/install-deps.sh): under
# /usr/share/tuxpaint/stamps/animals, 146 cut-out animal photos (RGBA and LA PNGs) in 9 class folders,
# some with sub-folders of their own. torchvision.datasets.ImageFolder reads them with PIL; Kindling's
# ImageFolder must find the same classes and files in the same order and decode each to the same
# pixels, and the transforms must give the same tensors. The random transforms run here with fixed
# parameters (their random streams differ by design, see ch04_transforms.py). Torchvision's tensor
# transforms are the reference: Kindling's ToTensor comes first and the rest work on float tensors
# (PIL's own Resize antialiases and rounds to uint8 between steps).
import os
import sys

import numpy as np
import torchvision
import torchvision.transforms.functional as TF
from torchvision.transforms import InterpolationMode

ROOT = "/usr/share/tuxpaint/stamps/animals"
if not os.path.isdir(ROOT):
    raise SystemExit(f"{ROOT} is missing: the photographs come from Debian's tuxpaint-stamps-default "
                     "(scripts/install-deps.sh installs it)")
dataset = torchvision.datasets.ImageFolder(ROOT)

# What ImageFolder found, for the C++ side to compare line by line: the root, the classes, then
# "label<TAB>path" per sample.
OUT = sys.argv[2]
os.makedirs(OUT, exist_ok=True)
with open(os.path.join(OUT, "photos.txt"), "w") as f:
    f.write(ROOT + "\n" + "\t".join(dataset.classes) + "\n")
    f.writelines(f"{label}\t{path}\n" for path, label in dataset.samples)

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]  # ImageNet's statistics


def pixels(i):
    """Photo i as ImageFolder gives it (PIL, converted to RGB: alpha dropped), uint8 [H, W, 3]."""
    return torch.from_numpy(np.array(dataset[i][0]))


def augment(i, flip, angle, brightness, contrast):
    """The chapter's pipeline with its random draws fixed: Resize((224, 224)), a flip, a rotation,
    brightness then contrast (ColorJitter(0.2, 0.2) with this order drawn), Normalize."""
    x = TF.resize(TF.to_tensor(dataset[i][0]), [224, 224], antialias=False)
    if flip:
        x = TF.hflip(x)
    x = TF.rotate(x, angle, interpolation=InterpolationMode.NEAREST, fill=[0.0] * 3)
    x = TF.adjust_contrast(TF.adjust_brightness(x, brightness), contrast)
    return TF.normalize(x, MEAN, STD)


case("image_folder/labels", lambda: torch.tensor([label for _, label in dataset.samples]))
# Every photo: height, width and the sum of its decoded pixels, exact.
case("image_folder/decoded",
     lambda: torch.tensor([[p.shape[0], p.shape[1], int(p.sum())] for p in map(pixels, range(len(dataset)))]))

# Nine photos spread over the classes, in full (the C++ side picks the same indices).
n = len(dataset)
for k in range(9):
    i = k * (n - 1) // 8
    case(f"photo{k}/pixels", lambda i=i: pixels(i))
    case(f"photo{k}/to_tensor-resize",
         lambda i=i: TF.resize(TF.to_tensor(dataset[i][0]), [224, 224], antialias=False))
    case(f"photo{k}/augment", lambda i=i, k=k: augment(i, k % 2 == 0, -10.0 + 2.5 * k, 0.8 + 0.05 * k,
                                                          1.2 - 0.05 * k))
