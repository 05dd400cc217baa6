# Chapter 1 — the PyTorch twin of images.cpp: HWC -> CHW with permute, and the error
# when the permute is forgotten.
import torch

# A batch of 2 RGB images of 4x5 pixels, as an image decoder returns them: [N, H, W, C]
images = torch.randint(0, 256, (2, 4, 5, 3), dtype=torch.uint8)
# [snippet: hwc]
x = images.permute(0, 3, 1, 2)                 # [N, C, H, W]: a view, no copy
batch = x.float() / 255                        # one copy, to float32 in [0, 1]
print("permuted:", list(x.shape), "strides", list(x.stride()),
      "contiguous", x.is_contiguous())
print("batch:", list(batch.shape), batch.dtype)
# [end]
# [snippet: forgot-permute]
mean = torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1)   # per-channel statistics for CHW
try:
    images.float() / 255 - mean                # still [N, H, W, C]
except RuntimeError as e:
    print("RuntimeError:", e)
# [end]
