# Chapter 5 — the PyTorch twin of conv.cpp: the same convolution and pooling.
import torch
import torch.nn.functional as F

# [snippet: conv]
image = torch.zeros(1, 1, 5, 5)          # [N, C, H, W]: dark on the left ...
image[..., 3:] = 1.0                     # ... bright in the last two columns
kernel = torch.tensor([[-1., 0., 1.]] * 3).view(1, 1, 3, 3)
out = F.conv2d(image, kernel, stride=1, padding=1)
# [end]
print("conv2d, padding 1 -> [5, 5]:")
print(out[0, 0])
# [snippet: pool]
features = torch.tensor([[1., 3., 2., 0.], [5., 6., 1., 2.],
                         [0., 2., 4., 7.], [3., 1., 8., 5.]]).view(1, 1, 4, 4)
pooled = F.max_pool2d(features, 2)       # [1, 1, 4, 4] -> [1, 1, 2, 2]
# [end]
print("max_pool2d(2) -> [2, 2]:")
print(pooled[0, 0])
