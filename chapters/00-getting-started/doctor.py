# Chapter 0 — the PyTorch twin of doctor.cpp: the classic three-line installation check.
import torch

# [snippet: check]
print(torch.__version__)              # which version is installed
print(torch.cuda.is_available())      # built with CUDA, and does the driver see a GPU?
if torch.cuda.is_available():
    print(torch.cuda.get_device_name(0))
# [end]
