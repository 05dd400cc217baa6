# PyTorch's side of loading weights: torchvision's ResNet-18 with its own random
# initialisation (nothing is downloaded), a few batches in training mode so that
# BatchNorm's running statistics are no longer 0 and 1, then its weights, an input and
# torchvision's logits for that input, written as safetensors files that
# load_weights.cpp reads. The book runs this file before the C++ program (`// book:
# run-first` in load_weights.cpp).
import sys
from pathlib import Path

import torch
import torchvision

# scripts/convert_torchvision.py, two folders up from this chapter
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import convert_torchvision  # noqa: E402

torch.manual_seed(0)
# [snippet: export]
model = torchvision.models.resnet18(weights=None, num_classes=10)
with torch.no_grad():
    model.train()
    # BatchNorm's running mean and variance move towards the batches'
    for _ in range(3):
        model(torch.randn(8, 3, 64, 64) * 2 + 0.5)
model.eval()
convert_torchvision.save_safetensors(model.state_dict(), "ch09_resnet18.safetensors")
# [end]
x = torch.randn(2, 3, 64, 64)
with torch.no_grad():
    logits = model(x)
convert_torchvision.save_safetensors({"x": x, "logits": logits},
                                     "ch09_resnet18_io.safetensors")
print(f"{len(model.state_dict())} tensors written to ch09_resnet18.safetensors")
print("torchvision's logits[0, :5]:",
      " ".join(f"{v:.4f}" for v in logits[0, :5].tolist()))

# [snippet: renamed]
state_dict = model.state_dict()
state_dict["layer1.0.conv_1.weight"] = state_dict.pop("layer1.0.conv1.weight")
try:
    model.load_state_dict(state_dict)  # strict=True is the default
except RuntimeError as e:
    print(e)
# [end]
