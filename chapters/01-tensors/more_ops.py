# Chapter 1 — the PyTorch twin of more_ops.cpp: top-k, masks, running sums, einsum.
import torch

scores = torch.tensor([[0.1, 2.0, -1.0, 0.7], [1.5, -0.3, 1.5, 0.2]])
print("scores:\n", scores, sep="")
# [snippet: topk]
# the two best classes of each row: values and indices, [2, 2] each
best, classes = scores.topk(2, dim=1)
order = scores.argsort(1, descending=True)
# [end]
print("scores.topk(2, 1): values\n", best, "\nindices\n", classes, sep="")
print("scores.argsort(1, descending=True):\n", order, sep="")
# [snippet: masks]
positive = scores[scores > 0]             # a 1-d copy
clipped = scores.clone()
clipped[clipped < 0] = 0                  # in place
rows = scores[torch.tensor([1, 0, 1])]    # rows 1, 0, 1
# [end]
print("scores[scores > 0] =", positive)
print("after clipped[clipped < 0] = 0:\n", clipped, sep="")
print("scores[[1, 0, 1]].shape =", list(rows.shape))
# [snippet: scans]
running = scores.cumsum(1)                # running totals along each row
log_norm = scores.logsumexp(1)            # log Σ exp, without overflow: [2]
# [end]
print("scores.cumsum(1):\n", running, "\nscores.logsumexp(1) = ", log_norm, sep="")
# [snippet: einsum]
a = torch.arange(12.).view(2, 2, 3)
b = torch.ones(2, 3, 2)
batched = torch.einsum("bij,bjk->bik", a, b)   # the same as torch.bmm(a, b)
traces = torch.einsum("bii->b", batched)       # the trace of each product
# [end]
print('einsum("bij,bjk->bik") == bmm:', torch.allclose(batched, torch.bmm(a, b)))
print('einsum("bii->b") =', traces)
