# Chapter 3 — the PyTorch twin of train_eval.cpp: Dropout and BatchNorm in train() and
# eval() mode.
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)
# [snippet: dropout]
drop = nn.Dropout(0.5)
x = torch.ones(2, 6)
drop.train()
print("train():", drop(x))   # zeros, survivors scaled by 1/(1-p) = 2
drop.eval()
print("eval(): ", drop(x))   # the identity
# [end]
# [snippet: batchnorm]
bn = nn.BatchNorm1d(3)
for step in range(1, 4):
    bn(torch.randn(16, 3) * 2 + 5)          # a training forward updates the buffers
    print(f"after batch {step}: running_mean {bn.running_mean}, "
          f"batches {bn.num_batches_tracked.item()}")
bn.eval()
print("eval() output row 0:", bn(torch.full((4, 3), 5.0))[0])
# [end]
