"""PyTorch's side of the saved model: nanoGPT's GPT in plain PyTorch 1.13 loads
ch12_gpt.safetensors (the weights ch12_train_text trained, with GPT-2's names) and
generates greedily from the same prompt; the tokens must be Kindling's."""
# book: inputs ch12_gpt.safetensors ch12_greedy_ids.txt
import json
import math
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.environ.get("KINDLING_CHAPTER", ".")
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import convert_torchvision  # noqa: E402  (its safetensors reader checks the file)


# [snippet: twin]
class Block(nn.Module):
    def __init__(self, C, n_head):
        super().__init__()
        self.n_head = n_head
        self.ln_1, self.ln_2 = nn.LayerNorm(C), nn.LayerNorm(C)
        self.attn = nn.ModuleDict(dict(c_attn=nn.Linear(C, 3 * C),
                                       c_proj=nn.Linear(C, C)))
        self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(C, 4 * C),
                                      c_proj=nn.Linear(4 * C, C)))

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.attn.c_attn(self.ln_1(x)).split(C, 2)
        q, k, v = (t.view(B, T, self.n_head, -1).transpose(1, 2) for t in (q, k, v))
        s = (q / math.sqrt(q.size(-1))) @ k.transpose(-2, -1)
        s = s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
        y = (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C)
        x = x + self.attn.c_proj(y)
        h = F.gelu(self.mlp.c_fc(self.ln_2(x)), approximate="tanh")
        return x + self.mlp.c_proj(h)
# [end]


path = "ch12_gpt.safetensors"
sd = convert_torchvision.load_safetensors(path)
with open(path, "rb") as f:
    (n,) = struct.unpack("<Q", f.read(8))
    vocab = json.loads(f.read(n))["__metadata__"]["vocab"]
V, C = sd["transformer.wte.weight"].shape
block = sd["transformer.wpe.weight"].shape[0]
layers = 1 + max(int(k.split(".")[2]) for k in sd if k.startswith("transformer.h."))
transformer = nn.ModuleDict(dict(
    wte=nn.Embedding(V, C), wpe=nn.Embedding(block, C),
    h=nn.ModuleList([Block(C, n_head=4) for _ in range(layers)]), ln_f=nn.LayerNorm(C)))
model = nn.ModuleDict(dict(transformer=transformer))
model.load_state_dict(sd)  # strict: every name and shape must match
print(f"loaded {len(sd)} tensors from {path}: {layers} layers, {C} channels, vocab {V}")

# [snippet: generate]
idx = torch.tensor([[vocab.index("A"), vocab.index(" ")]])
with torch.no_grad():
    for _ in range(60):
        x = transformer.wte(idx) + transformer.wpe(torch.arange(idx.size(1)))
        for b in transformer.h:
            x = b(x)
        logits = transformer.ln_f(x)[:, -1] @ transformer.wte.weight.T  # tied head
        idx = torch.cat([idx, logits.argmax(-1, keepdim=True)], 1)
# [end]
theirs = [int(t) for t in open("ch12_greedy_ids.txt").read().split()]
print("PyTorch, greedy:", repr("".join(vocab[i] for i in idx[0].tolist())))
print("the same", len(theirs), "tokens as Kindling's:", idx[0].tolist() == theirs)
