"""The adder in PyTorch 1.13: the same model (nanoGPT's GPT, written out here), data,
optimizer, schedule and test as adder.cpp, one thread."""
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)


def render(i):
    a, b = divmod(i, 100)
    c = a + b
    return [a // 10, a % 10, b // 10, b % 10, c % 10, c // 10 % 10, c // 100]


class Block(nn.Module):
    def __init__(self, C=64, n_head=4):
        super().__init__()
        self.n_head, self.ln_1, self.ln_2 = n_head, nn.LayerNorm(C), nn.LayerNorm(C)
        self.c_attn, self.c_proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
        self.c_fc, self.mlp_proj = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, 2)
        q, k, v = (t.view(B, T, self.n_head, -1).transpose(1, 2) for t in (q, k, v))
        s = (q / math.sqrt(q.size(-1))) @ k.transpose(-2, -1)
        s = s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
        x = x + self.c_proj((s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, C=64, layers=2):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(10, C), nn.Embedding(6, C)
        self.h = nn.ModuleList([Block(C) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(C)
        for name, p in self.named_parameters():  # nanoGPT's initialisation
            if name.endswith("bias") or "ln_" in name:
                continue
            std = 0.02 / math.sqrt(2 * layers) if name.endswith("proj.weight") else 0.02
            nn.init.normal_(p, 0.0, std)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.size(1)))
        for b in self.h:
            x = b(x)
        return self.ln_f(x) @ self.wte.weight.T


perm = torch.randperm(10000).tolist()
test = torch.tensor([render(i) for i in perm[:1000]])
train = torch.tensor([render(i) for i in perm[1000:]])
model, steps = GPT(), 1500
decay = [p for p in model.parameters() if p.dim() >= 2]
no_decay = [p for p in model.parameters() if p.dim() < 2]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                         {"params": no_decay, "weight_decay": 0.0}],
                        lr=2e-3, betas=(0.9, 0.95))
t0 = time.process_time()
for step in range(steps):
    cosine = 0.1 + 0.45 * (1 + math.cos(math.pi * step / steps))
    lr = 2e-3 * min(1, (step + 1) / 100) * cosine
    for g in opt.param_groups:
        g["lr"] = lr
    batch = train[torch.randint(0, len(train), (64,))]
    logits = model(batch[:, :6])
    loss = F.cross_entropy(logits[:, 3:6].reshape(-1, 10),
                           batch[:, 4:7].reshape(-1))
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if (step + 1) % 250 == 0:
        print(f"step {step + 1:4d}  loss {loss.item():.4f}")
seconds = time.process_time() - t0
print(f"{steps} steps in {seconds:.1f} s: {1e3 * seconds / steps:.2f} ms per step")
with torch.no_grad():
    seq = test[:, :4]
    for _ in range(3):  # greedy, the whole sequence each time (no cache)
        seq = torch.cat([seq, model(seq)[:, -1].argmax(-1, keepdim=True)], 1)
right = int((seq[:, 4:] == test[:, 4:]).all(1).sum())
print("held-out sums answered exactly:", right, "of 1000")
