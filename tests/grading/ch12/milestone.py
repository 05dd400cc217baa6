#!/usr/bin/python3
"""Chapter 12's milestone, judged: a small GPT trained by the learner's attention pieces to add two-digit
numbers (minGPT's adder; tests/grading/ch12/milestone.cpp says what the program writes). Checked:

  1. the first 20 AdamW steps (on the checker's batches, from the program's initial weights) are
     replayed with a PyTorch twin of the model -- plain PyTorch attention, heads and causal mask -- and
     every parameter must equal PyTorch's (a wrong mask, scale, softmax or head split changes the
     gradients, so the parameters);
  2. the trained weights answer the 1000 held-out sums (never trained on: the split is the run's
     secret) greedily *in the twin*: at least 95 % exactly right; and the program's own answers, made
     by generate() with the KV cache, must be the twin's;
  3. each piece on the checker's numbers, drawn per run: causal masks with offsets (ex1), a BPE
     trained and applied (ex4), sampling probabilities (ex5).
See tests/grading/milestones.py."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import milestones as ms  # noqa: E402

GOAL = 0.95
WHAT = "a GPT trained by your attention to add two-digit numbers, held-out sums exact"
N_LAYER, N_HEAD, N_EMBD, VOCAB, BLOCK = 2, 4, 64, 10, 6
PARITY_STEPS, BATCH, LR, WARMUP, STEPS = 20, 64, 2e-3, 100, 1500
# Float32 sums in other orders, through 20 Adam steps (whose first steps move each weight by ~lr
# whatever the gradient's size, so a tiny gradient's sign matters: atol covers those).
PARITY_RTOL, PARITY_ATOL = 1e-3, 2e-4


def shapes():
    C = N_EMBD
    s = {"transformer.wte.weight": (VOCAB, C), "transformer.wpe.weight": (BLOCK, C)}
    for i in range(N_LAYER):
        p = f"transformer.h.{i}."
        s.update({p + "ln_1.weight": (C,), p + "ln_1.bias": (C,), p + "attn.c_attn.weight": (3 * C, C),
                  p + "attn.c_attn.bias": (3 * C,), p + "attn.c_proj.weight": (C, C), p + "attn.c_proj.bias": (C,),
                  p + "ln_2.weight": (C,), p + "ln_2.bias": (C,), p + "mlp.c_fc.weight": (4 * C, C),
                  p + "mlp.c_fc.bias": (4 * C,), p + "mlp.c_proj.weight": (C, 4 * C), p + "mlp.c_proj.bias": (C,)})
    s.update({"transformer.ln_f.weight": (C,), "transformer.ln_f.bias": (C,)})
    return s


def render(i):
    a, b = i // 100, i % 100
    c = a + b
    return [a // 10, a % 10, b // 10, b % 10, c % 10, c // 10 % 10, c // 100]


def draws():
    rng = ms.secret_rng("ch12 milestone")
    perm = rng.permutation(10000)
    test, train = np.sort(perm[:1000]), np.sort(perm[1000:])
    masks = []
    for _ in range(4):
        S = int(rng.integers(1, 12))
        L = int(rng.integers(1, S + 1))
        masks += [L, S, int(rng.integers(0, S))]
    words = ["the", "cat", "sat", "on", "mat", "at", "that", "中文", "月光", "ü", "token", "tok", "en"]
    corpus = " ".join(words[int(rng.integers(0, len(words)))] for _ in range(int(rng.integers(80, 160))))
    text = " ".join(words[int(rng.integers(0, len(words)))] for _ in range(int(rng.integers(5, 20))))
    V = int(rng.integers(6, 30))
    settings = [[1.0, 0, 1.0], [float(rng.uniform(0.5, 2.0)), int(rng.integers(1, V)), 1.0],
                [float(rng.uniform(0.5, 2.0)), 0, float(rng.uniform(0.3, 0.95))]]
    return dict(seed=int(rng.integers(0, 1 << 31)), train=train.astype(np.int64), test=test.astype(np.int64),
                parity=rng.integers(0, len(train), size=(PARITY_STEPS, BATCH)).astype(np.int64),
                masks=np.array(masks, np.int64), corpus=corpus, text=text,
                vocab=np.array([256 + int(rng.integers(10, 40))], np.int64),
                logits=(rng.standard_normal((3, V)) * 2).astype(np.float64), settings=np.array(settings, np.float64))


def prepare(in_dir):
    d = draws()
    for name in ("train", "test", "parity", "masks", "vocab", "logits", "settings"):
        ms.save(os.path.join(in_dir, f"probe_{'parity_batches' if name == 'parity' else name}.npy"), d[name])
    ms.save(os.path.join(in_dir, "probe_seed.npy"), np.array([d["seed"]], np.int64))
    for name, t in (("probe_corpus.txt", d["corpus"]), ("probe_text.txt", d["text"])):
        with open(os.path.join(in_dir, name), "w", encoding="utf-8") as f:
            f.write(t)


def twin():
    """The model in plain PyTorch, nanoGPT's names: the oracle of the learner's pieces."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn, self.c_proj = nn.Linear(N_EMBD, 3 * N_EMBD), nn.Linear(N_EMBD, N_EMBD)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = (t.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2) for t in self.c_attn(x).split(C, 2))
            s = (q / math.sqrt(C // N_HEAD)) @ k.transpose(-2, -1)
            s = s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
            return self.c_proj((s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(N_EMBD), Attn(), nn.LayerNorm(N_EMBD)
            self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(N_EMBD, 4 * N_EMBD), c_proj=nn.Linear(4 * N_EMBD, N_EMBD)))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp.c_proj(F.gelu(self.mlp.c_fc(self.ln_2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(VOCAB, N_EMBD), wpe=nn.Embedding(BLOCK, N_EMBD),
                h=nn.ModuleList([Block() for _ in range(N_LAYER)]), ln_f=nn.LayerNorm(N_EMBD)))

        def forward(self, idx):
            t = self.transformer
            x = t.wte(idx) + t.wpe(torch.arange(idx.size(1)))
            for b in t.h:
                x = b(x)
            return t.ln_f(x) @ t.wte.weight.t()  # the output layer tied to the embedding

    return GPT()


def lr_at(step):
    return LR * min(1.0, (step + 1.0) / WARMUP) * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * step / STEPS)))


def load(out_dir, prefix):
    w = {}
    for name, shape in shapes().items():
        a = ms.load_output(out_dir, f"{prefix}{name}.npy", shape=shape, dtype="float32")
        if not np.isfinite(a).all():
            raise ValueError(f"{prefix}{name}.npy holds non-finite values (the training diverged)")
        w[name] = a
    return w


def model_from(w):
    import torch
    m = twin()
    m.load_state_dict({k: torch.tensor(v) for k, v in w.items()})
    return m


def check_parity(out_dir, d):
    import torch
    torch.set_num_threads(1)
    init, got = load(out_dir, "init."), load(out_dir, "parity.")
    m = model_from(init)
    named = dict(m.named_parameters())
    decay = [p for n, p in named.items() if p.dim() >= 2]
    no_decay = [p for n, p in named.items() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.95))
    data = torch.tensor([render(int(i)) for i in d["train"]])
    for step in range(PARITY_STEPS):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        batch = data[torch.tensor(d["parity"][step])]
        logits = m(batch[:, :6])
        loss = torch.nn.functional.cross_entropy(logits[:, 3:6].reshape(-1, VOCAB), batch[:, 4:7].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
    for name, p in named.items():
        ref = p.detach().numpy()
        bad = ~np.isclose(got[name], ref, rtol=PARITY_RTOL, atol=PARITY_ATOL)
        if bad.any():
            i = tuple(int(v) for v in np.argwhere(bad)[0])
            raise ValueError(f"after {PARITY_STEPS} AdamW steps {name}{list(i)} is {got[name][i]:.7g}; the PyTorch "
                             f"twin, from your initial weights on the same batches, gives {ref[i]:.7g} (the "
                             f"gradients differ: the causal mask, attention or the heads, ex1-ex3)")


def answers_of(w, d):
    """The twin's greedy answers to the held-out prompts (no cache: the whole sequence each time)."""
    import torch
    m = model_from(w)
    seq = torch.tensor([render(int(i)) for i in d["test"]])
    with torch.no_grad():
        out = seq[:, :4]
        for _ in range(3):
            out = torch.cat([out, m(out)[:, -1].argmax(-1, keepdim=True)], 1)
    return out[:, 4:].numpy(), seq[:, 4:].numpy()


def check_pieces(out_dir, d):
    from reference import bpe_encode, bpe_train, causal, next_token_probs  # next to this file
    t = d["masks"]
    want = np.concatenate([causal(*(int(v) for v in t[i:i + 3])).reshape(-1).long().numpy()
                           for i in range(0, len(t), 3)])
    got = ms.load_output(out_dir, "probe_masks.npy", shape=want.shape, dtype="int64")
    if (got != want).any():
        raise ValueError("causal_mask gives other masks than PyTorch's tril for the grader's (L, S, offset) (ex1)")
    merges = bpe_train(d["corpus"], int(d["vocab"][0]))
    want = np.array([x for m in merges for x in m] + [-1] + bpe_encode(d["text"], merges), np.int64)
    got = ms.load_output(out_dir, "probe_merges.npy", dtype="int64")
    if got.shape != want.shape or (got != want).any():
        raise ValueError("ByteBPE trained on the grader's text learns other merges, or encodes another text "
                         "otherwise, than byte-pair encoding's rules give (ex4)")
    import torch
    want = np.concatenate([next_token_probs(torch.tensor(row), float(t_), int(k), float(p)).numpy()
                           for row in d["logits"] for t_, k, p in d["settings"]])
    got = ms.load_output(out_dir, "probe_probs.npy", shape=want.shape, dtype="float64")
    if not np.allclose(got, want, rtol=1e-9, atol=1e-12):
        raise ValueError("next_token_probs gives other probabilities than temperature, top-k and top-p give for "
                         "the grader's logits (ex5)")


def check(out_dir):
    goal = f">= {GOAL:.0%}, the twin's first 20 steps and answers, every piece checked"
    d = draws()
    try:
        w = load(out_dir, "")
    except ValueError as e:
        return ms.verdict(out_dir, "ch12", WHAT, "none", goal, False, str(e))
    twin_answers, truth = answers_of(w, d)
    acc = float((twin_answers == truth).all(1).mean())
    try:
        check_parity(out_dir, d)
        got = ms.load_output(out_dir, "answers.npy", shape=twin_answers.shape, dtype="int64")
        same = float((got == twin_answers).all(1).mean())
        if same < 0.99:
            raise ValueError(f"generate() with the KV cache answered {1 - same:.1%} of the held-out prompts otherwise "
                             f"than the same weights do without a cache in the twin (the mask with an offset, ex1)")
        check_pieces(out_dir, d)
    except ValueError as e:
        return ms.verdict(out_dir, "ch12", WHAT, f"{acc:.1%}", goal, False, str(e))
    return ms.verdict(out_dir, "ch12", WHAT, f"{acc:.1%}", goal, acc >= GOAL,
                      "the weights your program wrote, answering the 1000 held-out sums in the grader's PyTorch twin; "
                      "its first 20 steps equal to the twin's; its own cached answers equal to the twin's; the "
                      "masks, BPE merges and sampling probabilities as the grader computes them")


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
