# A model exported by PyTorch for import_pytorch.cpp: a CNN with BatchNorm and Dropout,
# given running statistics by a few batches in train(), then exported in eval() with
# torch.onnx.export. An input and PyTorch's output for it go to a safetensors file, so
# that the C++ program can compare. The book runs this file before the C++ program
# (`// book: run-first` in import_pytorch.cpp).
import sys
from pathlib import Path

import torch
from torch import nn

# scripts/convert_torchvision.py, two folders up from this chapter
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import convert_torchvision  # noqa: E402

torch.manual_seed(0)
# [snippet: model]
model = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(16, 10))
with torch.no_grad():
    model.train()
    for _ in range(3):  # BatchNorm's running statistics move away from 0 and 1
        model(torch.randn(16, 1, 28, 28) * 2 + 0.5)
model.eval()
torch.onnx.export(model, torch.randn(1, 1, 28, 28), "ch10_torch_cnn.onnx",
                  opset_version=17, input_names=["input"], output_names=["logits"],
                  dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
# [end]
x = torch.randn(4, 1, 28, 28)
with torch.no_grad():
    logits = model(x)
convert_torchvision.save_safetensors({"x": x, "logits": logits},
                                     "ch10_torch_cnn_io.safetensors")
print("PyTorch's logits[0, :5]:", " ".join(f"{v:.4f}" for v in logits[0, :5].tolist()))
