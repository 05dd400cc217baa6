#!/usr/bin/python3
"""P11 peer: chapter 12's GPT (bench/peers/p11_gpt_setup.hpp, the same weights and batches from the same
formulas) in PyTorch 1.13 (1 thread), written the way nanoGPT writes it, in the interleaving protocol of
bench/peer_process.hpp.

usage: p11_gpt_pytorch.py train <steps per repetition> <warm-up steps>
       p11_gpt_pytorch.py generate <sequences per repetition> <warm-up sequences>
stdout: "ready loss=<last warm-up loss> gemm=<...> ftz=<on|off>" (train) or "ready tokens=<t0,t1,...> gemm=<...> ftz=<on|off>"
        (generate: greedy, a KV cache of nanoGPT-style code, 63 tokens after a 1-token prompt),
        then per "run": "cpu=<s> wall=<s> [loss=<last loss>]"
"""
import math
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

import peer_info  # bench/peers/peer_info.py, next to this script

V, T, L, H, C, B = 65, 64, 4, 4, 128, 12
LR, WD, CLIP, NEW = 1e-3, 0.1, 1.0, 63
torch.set_num_threads(1)
peer_info.flush_denormal_if_asked()  # the tuned setting: KINDLING_BENCH_FLUSH_DENORMAL=1


def params():
    p = [("transformer.wte.weight", (V, C)), ("transformer.wpe.weight", (T, C))]
    for layer in range(L):
        h = f"transformer.h.{layer}."
        p += [(h + n, s) for n, s in (
            ("ln_1.weight", (C,)), ("ln_1.bias", (C,)), ("attn.c_attn.weight", (3 * C, C)),
            ("attn.c_attn.bias", (3 * C,)), ("attn.c_proj.weight", (C, C)), ("attn.c_proj.bias", (C,)),
            ("ln_2.weight", (C,)), ("ln_2.bias", (C,)), ("mlp.c_fc.weight", (4 * C, C)),
            ("mlp.c_fc.bias", (4 * C,)), ("mlp.c_proj.weight", (C, 4 * C)), ("mlp.c_proj.bias", (C,)))]
    return p + [("transformer.ln_f.weight", (C,)), ("transformer.ln_f.bias", (C,))]


def initial(name, shape, k):
    s = np.sin(0.7 * np.arange(int(np.prod(shape)), dtype=np.float64) * (k + 1) + k)
    gain = ".ln_" in name and name.endswith(".weight")
    return torch.tensor((1.0 + 0.1 * s if gain else 0.035 * s).astype(np.float32).reshape(shape))


def token(step, b, i):
    n = (step * B + b) * (T + 1) + i
    return (((n * 2654435761) % 4294967296) >> 8) % V


P = {name: initial(name, shape, k).requires_grad_(True) for k, (name, shape) in enumerate(params())}


def lin(x, n):
    return F.linear(x, P[n + ".weight"], P[n + ".bias"])


def ln(x, n):
    return F.layer_norm(x, (C,), P[n + ".weight"], P[n + ".bias"], 1e-5)


def block_qkv(x, h):
    Bx, Tx, _ = x.shape
    q, k, v = lin(ln(x, h + "ln_1"), h + "attn.c_attn").split(C, 2)
    return [t.view(Bx, Tx, H, C // H).transpose(1, 2) for t in (q, k, v)]


def block_rest(x, y, h):
    x = x + lin(y.transpose(1, 2).reshape(x.shape), h + "attn.c_proj")
    return x + lin(F.gelu(lin(ln(x, h + "ln_2"), h + "mlp.c_fc"), approximate="tanh"), h + "mlp.c_proj")


def logits_of(x):
    return ln(x, "transformer.ln_f") @ P["transformer.wte.weight"].T


def forward(idx):
    Tx = idx.size(1)
    x = F.embedding(idx, P["transformer.wte.weight"]) + F.embedding(torch.arange(Tx), P["transformer.wpe.weight"])
    mask = ~torch.ones(Tx, Tx, dtype=torch.bool).tril()
    for layer in range(L):
        h = f"transformer.h.{layer}."
        q, k, v = block_qkv(x, h)
        s = (q * (1.0 / math.sqrt(C // H))) @ k.transpose(-2, -1)
        x = block_rest(x, s.masked_fill(mask, float("-inf")).softmax(-1) @ v, h)
    return logits_of(x)


def generate():
    """Greedy, with a KV cache: each new token runs alone, attending to the cached keys and values."""
    idx = torch.tensor([[token(0, 0, 0)]])
    cache = [None] * L
    out = [int(idx[0, 0])]
    with torch.no_grad():
        for pos in range(NEW):
            x = F.embedding(idx, P["transformer.wte.weight"]) + P["transformer.wpe.weight"][pos]
            for layer in range(L):
                h = f"transformer.h.{layer}."
                q, k, v = block_qkv(x, h)
                if cache[layer] is not None:
                    k, v = torch.cat([cache[layer][0], k], 2), torch.cat([cache[layer][1], v], 2)
                cache[layer] = (k, v)
                s = (q * (1.0 / math.sqrt(C // H))) @ k.transpose(-2, -1)  # the newest query sees all
                x = block_rest(x, s.softmax(-1) @ v, h)
            idx = logits_of(x)[:, -1].argmax(-1, keepdim=True)
            out.append(int(idx[0, 0]))
    return out


mode = sys.argv[1]
count, warm = int(sys.argv[2]), int(sys.argv[3])
if mode == "train":
    names = [n for n, _ in params()]
    decay = [P[n] for n in names if P[n].dim() >= 2]
    no_decay = [P[n] for n in names if P[n].dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": WD}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.95))
    cursor = 0

    def work(n):
        global cursor
        last = 0.0
        for _ in range(n):
            seq = torch.tensor([[token(cursor, b, i) for i in range(T + 1)] for b in range(B)])
            cursor += 1
            logits = forward(seq[:, :T])
            loss = F.cross_entropy(logits.reshape(-1, V), seq[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(decay + no_decay, CLIP)
            opt.step()
            last = loss.item()
        return f" loss={last!r}"

    ready = f"loss={work(warm)[6:]}"
else:
    tokens = None

    def work(n):
        global tokens
        for _ in range(n):
            tokens = generate()
        return ""

    work(warm)
    ready = "tokens=" + ",".join(map(str, tokens))
print(f"ready {ready} gemm={peer_info.gemm_backends()} ftz={peer_info.flush_denormal_state()}", flush=True)
for line in sys.stdin:
    if line.strip() != "run":
        break
    c0, t0 = time.process_time(), time.perf_counter()
    extra = work(count)
    print(f"cpu={time.process_time() - c0!r} wall={time.perf_counter() - t0!r}{extra}", flush=True)
