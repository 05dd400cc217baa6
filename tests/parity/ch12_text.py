# Chapter 12 parity: attention against PyTorch 1.13. scaled_dot_product_attention against 1.13's
# torch.nn.functional._scaled_dot_product_attention (the function 2.0 made public), multi-head
# attention against torch.nn.functional.multi_head_attention_forward, the function
# torch.nn.MultiheadAttention.forward calls, with the module's weights passed as inputs so that
# every weight's gradient is compared too. Dropout draws differ between the two sides: p = 0 here.
import torch.nn.functional as F


def sdpa(q, k, v, mask=None, is_causal=False):
    return F._scaled_dot_product_attention(q, k, v, mask, 0.0, False, is_causal)[0]


case("sdpa/basic", lambda q, k, v: sdpa(q, k, v), grad=True,
     q=randn(2, 3, 5, 4), k=randn(2, 3, 6, 4), v=randn(2, 3, 6, 7))
case("sdpa/causal", lambda q, k, v: sdpa(q, k, v, is_causal=True), grad=True,
     q=randn(2, 2, 5, 4), k=randn(2, 2, 5, 4), v=randn(2, 2, 5, 4))
# A bool mask (true = may attend); column 0 always allowed so no row is empty.
case("sdpa/bool-mask", lambda q, k, v, r: sdpa(q, k, v, (r > 0.4) | (torch.arange(6) == 0)), grad=True,
     nograd=["r"], q=randn(2, 3, 5, 4), k=randn(2, 3, 6, 4), v=randn(2, 3, 6, 4), r=rand(5, 6))
case("sdpa/float-mask", lambda q, k, v, m: sdpa(q, k, v, m), grad=True,
     q=randn(2, 3, 5, 4), k=randn(2, 3, 6, 4), v=randn(2, 3, 6, 4), m=randn(3, 5, 6))
case("sdpa/non-contiguous", lambda q, k, v: sdpa(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)),
     grad=True, q=randn(2, 5, 3, 4), k=randn(2, 6, 3, 4), v=randn(2, 6, 3, 4))
case("sdpa/float64", lambda q, k, v: sdpa(q, k, v, is_causal=True), grad=True,
     q=randn(1, 2, 4, 3, dtype="float64"), k=randn(1, 2, 4, 3, dtype="float64"),
     v=randn(1, 2, 4, 3, dtype="float64"))
# Masks broadcast to the scores [*batch, L, S] (a key padding mask [N, 1, 1, S], one row [S], a
# column [L, 1], a 0-d bias), but may not enlarge them; q may have fewer batch dims than k and v.
case("sdpa/key-padding-mask", lambda q, k, v, r: sdpa(q, k, v, (r > 0.4) | (torch.arange(6) == 0)), grad=True,
     nograd=["r"], q=randn(2, 3, 5, 4), k=randn(2, 3, 6, 4), v=randn(2, 3, 6, 4), r=rand(2, 1, 1, 6))
case("sdpa/mask-row", lambda q, k, v, m: sdpa(q, k, v, m), grad=True,
     q=randn(2, 5, 4), k=randn(2, 6, 4), v=randn(2, 6, 4), m=randn(6))
case("sdpa/mask-column", lambda q, k, v, m: sdpa(q, k, v, m), grad=True,
     q=randn(2, 5, 4), k=randn(2, 6, 4), v=randn(2, 6, 4), m=randn(5, 1))
case("sdpa/mask-0d", lambda q, k, v, m: sdpa(q, k, v, m), grad=True,
     q=randn(5, 4), k=randn(6, 4), v=randn(6, 4), m=value(0.5))
case("sdpa/q-fewer-batch-dims", lambda q, k, v: sdpa(q, k, v), grad=True,
     q=randn(4, 3, 6), k=randn(2, 4, 5, 6), v=randn(2, 4, 5, 6))
case("sdpa/mask-enlarges-scores", lambda q, k, v, m: sdpa(q, k, v, m), expect_error=True,
     q=randn(3, 6), k=randn(5, 6), v=randn(5, 6), m=randn(2, 3, 5))
case("sdpa/bad-head-dim", lambda q, k, v: sdpa(q, k, v), expect_error=True,
     q=randn(1, 2, 4, 3), k=randn(1, 2, 4, 5), v=randn(1, 2, 4, 3))

E, H = 8, 2


def mha(q, k, v, w, b, ow, ob, heads=H, **kw):
    return F.multi_head_attention_forward(q, k, v, q.shape[-1], heads, w, b, None, None, False, 0.0, ow, ob,
                                          training=True, **kw)


def W(**kw):
    d = dict(w=randn(3 * E, E, scale=0.4), b=randn(3 * E, scale=0.1), ow=randn(E, E, scale=0.4),
             ob=randn(E, scale=0.1))
    d.update(kw)
    return d


case("mha/self", lambda x, w, b, ow, ob: mha(x, x, x, w, b, ow, ob), grad=True, x=randn(5, 3, E), **W())
case("mha/cross-per-head", lambda q, kv, w, b, ow, ob: mha(q, kv, kv, w, b, ow, ob, average_attn_weights=False),
     grad=True, q=randn(4, 2, E), kv=randn(6, 2, E), **W())
case("mha/separate-kv", lambda q, k, v, w, b, ow, ob: mha(q, k, v, w, b, ow, ob), grad=True,
     q=randn(4, 2, E), k=randn(6, 2, E), v=randn(6, 2, E), **W())
# batch_first: the module transposes [N, L, E] to [L, N, E] (a non-contiguous view) and back.
case("mha/batch-first", lambda x, w, b, ow, ob: tuple(
        t.transpose(0, 1) if t.dim() == 3 and i == 0 else t
        for i, t in enumerate(mha(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), w, b, ow, ob))),
     grad=True, x=randn(3, 5, E), **W())
case("mha/no-bias", lambda x, w, ow: mha(x, x, x, w, None, ow, None), grad=True,
     x=randn(5, 2, E), w=randn(3 * E, E, scale=0.4), ow=randn(E, E, scale=0.4))
case("mha/no-weights", lambda x, w, b, ow, ob: mha(x, x, x, w, b, ow, ob, need_weights=False)[0], grad=True,
     x=randn(5, 2, E), **W())
case("mha/unbatched", lambda x, w, b, ow, ob: mha(x, x, x, w, b, ow, ob), grad=True, x=randn(5, E), **W())
case("mha/attn-mask-bool", lambda x, r, w, b, ow, ob: mha(x, x, x, w, b, ow, ob,
                                                          attn_mask=(r > 0.6) & (torch.arange(5) != 0)),
     grad=True, nograd=["r"], x=randn(5, 2, E), r=rand(5, 5), **W())
case("mha/attn-mask-causal", lambda x, w, b, ow, ob: mha(x, x, x, w, b, ow, ob,
                                                         attn_mask=torch.triu(torch.ones(5, 5), 1).bool()),
     grad=True, x=randn(5, 2, E), **W())
case("mha/attn-mask-float-3d", lambda x, m, w, b, ow, ob: mha(x, x, x, w, b, ow, ob, attn_mask=m),
     grad=True, x=randn(5, 3, E), m=randn(3 * H, 5, 5), **W())
case("mha/key-padding-mask", lambda x, w, b, ow, ob: mha(x, x, x, w, b, ow, ob,
                                                         key_padding_mask=torch.arange(5) >= torch.tensor([[5], [3]])),
     grad=True, x=randn(5, 2, E), **W())
case("mha/both-masks", lambda x, w, b, ow, ob: mha(x, x, x, w, b, ow, ob,
                                                   attn_mask=torch.triu(torch.ones(5, 5), 1) * -1e9,
                                                   key_padding_mask=torch.arange(5) >= torch.tensor([[5], [3]])),
     grad=True, x=randn(5, 2, E), **W())
case("mha/attn-mask-float64", lambda x, m, w, b, ow, ob: mha(x, x, x, w, b, ow, ob, attn_mask=m),
     grad=True, nograd=["m"], x=randn(5, 3, E), m=randn(5, 5, dtype="float64"), **W())
case("mha/key-padding-float", lambda x, p, w, b, ow, ob: mha(x, x, x, w, b, ow, ob, key_padding_mask=p),
     grad=True, nograd=["p"], x=randn(5, 2, E), p=randn(2, 5), **W())
case("mha/four-heads", lambda x, w, b, ow, ob: mha(x, x, x, w, b, ow, ob, heads=4), grad=True,
     x=randn(3, 2, E), **W())
case("mha/empty-batch", lambda x, w, b, ow, ob: mha(x, x, x, w, b, ow, ob), x=randn(4, 0, E), **W())
case("mha/bad-mask-shape", lambda x, w, b, ow, ob: mha(x, x, x, w, b, ow, ob, attn_mask=torch.zeros(4, 5)),
     expect_error=True, x=randn(5, 2, E), **W())
case("mha/bad-embed-dim", lambda x, w, b, ow, ob: mha(x, x, x, w, b, ow, ob), expect_error=True,
     x=randn(5, 2, E + 1), **W())


def module_text():
    m = torch.nn.MultiheadAttention(E, H)
    names = " ".join(f"{n}:{list(p.shape)}" for n, p in m.state_dict().items())
    return torch.tensor(list((str(m) + "\n" + names).encode()), dtype=torch.uint8)


case("mha/module-print-and-names", module_text)


# ---- the GPT-2-style model against a plain-PyTorch twin (nanoGPT's modules and names) ----------
import math  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "..", "..", "scripts"))
import convert_torchvision  # noqa: E402

nn = torch.nn


class LayerNorm(nn.Module):
    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_attn = nn.Linear(c["n_embd"], 3 * c["n_embd"], bias=c["bias"])
        self.c_proj = nn.Linear(c["n_embd"], c["n_embd"], bias=c["bias"])
        self.n_head = c["n_head"]

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = [t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v)]
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = nn.Linear(c["n_embd"], 4 * c["n_embd"], bias=c["bias"])
        self.c_proj = nn.Linear(4 * c["n_embd"], c["n_embd"], bias=c["bias"])

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1, self.attn = LayerNorm(c["n_embd"], c["bias"]), CausalSelfAttention(c)
        self.ln_2, self.mlp = LayerNorm(c["n_embd"], c["bias"]), MLP(c)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(c["vocab_size"], c["n_embd"]), wpe=nn.Embedding(c["block_size"], c["n_embd"]),
            h=nn.ModuleList([Block(c) for _ in range(c["n_layer"])]), ln_f=LayerNorm(c["n_embd"], c["bias"])))
        self.lm_head = nn.Linear(c["n_embd"], c["vocab_size"], bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # tied
        with torch.no_grad():  # values away from the default init, so that loading them matters
            for n, p in self.named_parameters():
                p.normal_(0.0, 0.3 if p.dim() > 1 else 0.1)
                if n.endswith("ln_1.weight") or n.endswith("ln_2.weight") or n.endswith("ln_f.weight"):
                    p.add_(1.0)

    def forward(self, idx, targets):
        T = idx.size(1)
        x = self.transformer.wte(idx) + self.transformer.wpe(torch.arange(T))
        for b in self.transformer.h:
            x = b(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


GPT_CONFIGS = {"bias": dict(vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=8, bias=True),
               "nobias": dict(vocab_size=13, block_size=6, n_layer=1, n_head=4, n_embd=8, bias=False)}


def gpt_twin(name):
    torch.manual_seed(len(name))
    m = GPT(GPT_CONFIGS[name])
    sd = {k: v for k, v in m.state_dict().items() if k != "lm_head.weight"}  # tied: held once
    convert_torchvision.save_safetensors(sd, os.path.join(sys.argv[2], f"gpt_{name}.safetensors"))
    return m


def gpt_grads(name):
    def fn(idx, targets):
        m = gpt_twin(name)
        logits, loss = m(idx, targets)
        loss.backward()
        return (logits, loss, *[p.grad for _, p in m.named_parameters()])
    return fn


def gpt_adamw(name):
    # AdamW as practitioners configure it: weight decay on matrices, none on biases and norms.
    def fn(idx, targets):
        m = gpt_twin(name)
        params = list(m.named_parameters())
        opt = torch.optim.AdamW([{"params": [p for _, p in params if p.dim() >= 2], "weight_decay": 0.1},
                                 {"params": [p for _, p in params if p.dim() < 2], "weight_decay": 0.0}],
                                lr=1e-2, betas=(0.9, 0.95))
        losses = []
        for _ in range(10):
            opt.zero_grad()
            _, loss = m(idx, targets)
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        return (torch.stack(losses), *[p.detach().clone() for _, p in params])
    return fn


# float32 through two blocks: sums in other orders; 1e-3 relative keeps a real error visible.
case("gpt/grads-bias", gpt_grads("bias"), rtol=1e-3, atol=1e-5, idx=randint(0, 11, 3, 8),
     targets=randint(0, 11, 3, 8))
case("gpt/grads-nobias-short", gpt_grads("nobias"), rtol=1e-3, atol=1e-5, idx=randint(0, 13, 2, 5),
     targets=randint(0, 13, 2, 5))
# After 10 steps: Adam divides by sqrt(v), so a 1e-7 gradient difference can move a parameter by a
# few 1e-5 when its gradient is itself tiny. The model without biases: the key part of c_attn's bias
# adds q.b_k to a whole row of scores, which softmax ignores, so its true gradient is 0 and both
# frameworks' gradients are round-off (1e-9) that Adam scales up to steps of lr in random directions.
case("gpt/adamw-10-steps", gpt_adamw("nobias"), rtol=1e-3, atol=1e-4, idx=randint(0, 13, 3, 6),
     targets=randint(0, 13, 3, 6))
case("gpt/too-long", lambda idx, t: gpt_twin("nobias")(idx, t), expect_error=True,
     idx=randint(0, 13, 1, 7), t=randint(0, 13, 1, 7))


def mha_module(batch_first, bias):
    """torch.nn.MultiheadAttention itself: its state_dict is saved for the C++ module to load
    strictly; outputs, weights and every parameter's gradient are compared."""
    def fn(q, kv):
        torch.manual_seed(3)
        m = torch.nn.MultiheadAttention(E, H, bias=bias, batch_first=batch_first)
        with torch.no_grad():
            for p in m.parameters():
                p.normal_(0.0, 0.3)
        tag = f"mha_{int(batch_first)}{int(bias)}"
        convert_torchvision.save_safetensors(m.state_dict(), os.path.join(sys.argv[2], tag + ".safetensors"))
        out, w = m(q, kv, kv, key_padding_mask=torch.tensor([[False] * 6, [False] * 4 + [True] * 2]))
        out.backward(torch.ones_like(out))
        return (out, w, *[p.grad for p in m.parameters()])
    return fn


case("mha/module-batch-first", mha_module(True, True), q=randn(2, 4, E), kv=randn(2, 6, E))
case("mha/module-seq-first-no-bias", mha_module(False, False), q=randn(4, 2, E), kv=randn(6, 2, E))
