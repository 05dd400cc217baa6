# Chapter 1 — the PyTorch twin of softmax.cpp.
import torch

# [snippet: softmax]
logits = torch.tensor([1000., 1001., 1002.])
naive = logits.exp() / logits.exp().sum()   # inf / inf = nan
stable = torch.softmax(logits, dim=0)       # fine: PyTorch subtracts the max internally
# [end]
print("logits.exp() =", logits.exp(), "\nnaive softmax  =", naive)
print("torch.softmax  =", stable, "\nlog_softmax    =", torch.log_softmax(logits, 0))
