# Chapter 12's graded tests, PyTorch's side (see tests/grading/twins.py). Attention is PyTorch's own
# ops (1.13 has no scaled_dot_product_attention: the formula its documentation gives, with its
# masks' meaning), and PyTorch's autograd says every gradient; the heads are PyTorch's view and
# transpose; the byte-pair encoding is a plain-Python reference (minbpe's rules: the most frequent
# pair, ties to the smallest, merged left to right); the sampling probabilities are torch.sort,
# softmax and cumsum. Shapes, lengths and texts vary per grading run.
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import bpe_encode, bpe_train, causal, most_frequent_pair, merge_pair, next_token_probs  # noqa: E402


def leaf(t):
    return t.clone().requires_grad_(True)


def ints(v):
    return value(v, dtype="int64")


# ---- ex1: the causal mask -----------------------------------------------------------------------------------
T = vary(3, 12)


@case("causal mask: the training mask, L == S", sizes=ints([T, vary(1, 3), vary(20, 40)]))  # three distinct sizes
def _(sizes):
    a, b, c = (int(x) for x in sizes)
    return {f"causal_mask({n}, {n}, 0)": causal(n, n, 0) for n in (a, b, c)}


S = vary(6, 20)
L = vary(2, 5)  # 1 would name the same mask as the third result


@case("causal mask: new queries after a KV cache (offset)", sizes=ints([L, S, vary(0, S - L)]))
def _(sizes):
    L, S, off = (int(x) for x in sizes)
    return {f"causal_mask({L}, {S}, {S - L})": causal(L, S, S - L),
            f"causal_mask({L}, {S}, {off})": causal(L, S, off),
            f"causal_mask(1, {S}, {S - 1})": causal(1, S, S - 1)}


# ---- ex2: scaled dot-product attention ----------------------------------------------------------------------
def attention(q, k, v, mask=None, is_causal=False):
    """softmax(q kᵀ / √E + mask) v; a bool mask is true where a query may attend."""
    s = (q / math.sqrt(q.size(-1))) @ k.transpose(-2, -1)
    if is_causal:
        mask = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask
    return s.softmax(-1) @ v


def attention_case(name, q, k, v, g, mask=None, causal_=False, mask_grad=False, rtol=None, atol=None):
    inputs = dict(q=q, k=k, v=v, g=g)
    if mask is not None:
        inputs["mask"] = mask

    @case(name, **inputs)
    def _(q, k, v, g, mask=None):
        q, k, v = leaf(q), leaf(k), leaf(v)
        if mask is not None and mask.dtype != torch.bool:
            mask = leaf(mask) if mask_grad else mask
        elif mask is not None:
            mask = mask != 0
        out = attention(q, k, v, mask, causal_)
        out.backward(g)
        res = {"output": out, "q.grad": q.grad, "k.grad": k.grad, "v.grad": v.grad}
        if mask_grad:
            res["mask.grad"] = mask.grad
        if rtol is not None:
            res = {n: approx(t, rtol=rtol, atol=atol) for n, t in res.items()}
        return res


B, H, L, S, E, Ev = vary(1, 4), vary(1, 4), vary(2, 9), vary(2, 9), vary(2, 12), vary(2, 12)
attention_case("attention: no mask, L != S, output and the gradients of q, k, v",
               randn(B, H, L, E), randn(B, H, S, E), randn(B, H, S, Ev), randn(B, H, L, Ev))

B, H, L, S, E = vary(1, 4), vary(1, 4), vary(2, 9), vary(3, 9), vary(2, 12)
keep = run_rng.random((L, S)) < 0.6
keep[:, int(run_rng.integers(0, S))] = True  # every query may attend somewhere
attention_case("attention: a bool mask, broadcast over batch and heads",
               randn(B, H, L, E), randn(B, H, S, E), randn(B, H, S, E), randn(B, H, L, E),
               mask=value(keep.astype("int64").tolist(), dtype="bool"))

B, L, S, E = vary(1, 4), vary(2, 8), vary(2, 8), vary(2, 10)
attention_case("attention: a float mask is added, and gets its gradient",
               randn(B, 2, L, E), randn(B, 2, S, E), randn(B, 2, S, E), randn(B, 2, L, E),
               mask=randn(B, 1, L, S), mask_grad=True)

B, H, T, E = vary(1, 3), vary(1, 4), vary(2, 10), vary(2, 10)


# q, k, v arrive as [B, T, H, E] and both sides attend on their transpose(1, 2): non-contiguous views.
@case("attention: is_causal, float64, non-contiguous q k v", q=randn(B, T, H, E, dtype="float64"),
      k=randn(B, T, H, E, dtype="float64"), v=randn(B, T, H, E, dtype="float64"),
      g=randn(B, H, T, E, dtype="float64"))
def _(q, k, v, g):
    q, k, v = leaf(q), leaf(k), leaf(v)
    out = attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
    out.backward(g)
    return {"output": out, "q.grad": q.grad, "k.grad": k.grad, "v.grad": v.grad}


Ev = vary(6, 9)


@case("attention: the scale is 1/sqrt(E) of q, E != Ev", q=randn(2, 3, 5, dtype="float64", scale=3.0),
      k=randn(2, 4, 5, dtype="float64", scale=3.0), v=randn(2, 4, Ev, dtype="float64"))
def _(q, k, v):
    return {"output": attention(q, k, v)}


# ---- ex3: heads as reshapes --------------------------------------------------------------------------------
B, T, NH, HS = vary(1, 4), vary(1, 9), vary(1, 5), vary(1, 6)


@case("heads: split a slice of c_attn's output", qkv=randn(B, T, 3 * NH * HS), n_head=ints(NH))
def _(qkv, n_head):
    C = qkv.size(2) // 3
    out = {}
    for name, i in (("q", 0), ("k", 1), ("v", 2)):
        x = qkv[:, :, i * C:(i + 1) * C]
        out[f"split_heads({name})"] = x.view(x.size(0), x.size(1), int(n_head), C // int(n_head)).transpose(1, 2)
    return out


B, T, NH, HS = vary(1, 4), vary(1, 9), vary(1, 5), vary(1, 6)


@case("heads: merge, and the round trip", y_bthd=randn(B, T, NH, HS), x=randn(B, T, NH * HS))
def _(y_bthd, x):
    y = y_bthd.transpose(1, 2)  # [B, nh, T, hs], non-contiguous, as attention's output of split heads
    return {"merge_heads(y)": y.transpose(1, 2).reshape(y.size(0), y.size(2), -1), "merge(split(x))": x}


B, T, NH, HS = vary(1, 4), vary(1, 9), vary(2, 5), vary(1, 6)


@case("heads: gradients flow through split and merge", x=randn(B, T, NH * HS), w=randn(NH, 1, HS),
      g=randn(B, T, NH * HS))
def _(x, w, g):
    x = leaf(x)
    nh = w.size(0)
    h = x.view(x.size(0), x.size(1), nh, -1).transpose(1, 2)  # [B, nh, T, hs]
    y = (h * w).transpose(1, 2).reshape(x.shape)
    y.backward(g)
    return {"y": y, "x.grad": x.grad}


# ---- ex4: a byte-pair-encoding merge step ------------------------------------------------------------------
def id_lists(k):
    """k lists of small ids with runs (so that overlapping pairs and ties occur)."""
    out = []
    for _ in range(k):
        n, alphabet = int(run_rng.integers(0, 40)), int(run_rng.integers(2, 6))
        ids = []
        while len(ids) < n:
            ids += [int(run_rng.integers(0, alphabet))] * int(run_rng.integers(1, 4))
        out.append(ids[:n])
    return out


LISTS = id_lists(8) + [[], [7], [3, 3, 3], [1, 2, 1, 2, 2, 1]]


@case("BPE: the most frequent pair, overlapping runs counted, ties to the smallest",
      **{f"ids{i}": ints(ids) for i, ids in enumerate(LISTS)})
def _(**lists):
    return {f"most_frequent_pair(ids{i})": list(most_frequent_pair(lists[f"ids{i}"].tolist()))
            for i in range(len(lists))}


LISTS2 = id_lists(8) + [[5, 5, 5], [5, 5, 5, 5], [], [5]]


@case("BPE: merge_pair, left to right, a match takes both ids",
      **{f"ids{i}": ints(ids) for i, ids in enumerate(LISTS2)})
def _(**lists):
    out = {}
    for i in range(len(lists)):
        ids = lists[f"ids{i}"].tolist()
        a, b, _ = most_frequent_pair(ids) if len(ids) > 1 else (5, 5, 0)
        out[f"merge_pair(ids{i}, ({a}, {b}), 99)"] = merge_pair(ids, (a, b), 99)
    return out


WORDS = ["the", "then", "there", "fortune", "for", "tune", "a", "an", "and", "sand", "tokens", "token",
         "attention", "is", "all", "you", "need", "中文", "诗", "月光", "床前明月光", "ünïcödé", "x"]


def text_of(n):
    return " ".join(WORDS[int(run_rng.integers(0, len(WORDS)))] for _ in range(n))


CORPUS, PROBE, NEW = text_of(vary(150, 300)), text_of(vary(10, 30)), vary(20, 60)


@case("BPE: train on a text and encode another, as a reference BPE does", corpus=CORPUS, probe=PROBE,
      vocab_size=ints(256 + NEW))
def _(corpus, probe, vocab_size):
    merges = bpe_train(corpus, int(vocab_size))
    return {"merges": [x for m in merges for x in m], "encode(probe)": bpe_encode(probe, merges),
            "decode(encode(probe)) == probe": True}


# ---- ex5: temperature, top-k, top-p -------------------------------------------------------------------------
def probs_case(name, rows, V, settings, scale=2.0):
    """settings: (temperature, top_k, top_p) triples, handed to the test as a float64 [n, 3] input."""
    @case(name, logits=randn(rows, V, dtype="float64", scale=scale),
          settings=value([list(map(float, st)) for st in settings], dtype="float64"))
    def _(logits, settings):
        return {f"row {r}, setting {i}": next_token_probs(logits[r], float(t), int(k), float(p))
                for r in range(rows) for i, (t, k, p) in enumerate(settings.tolist())}


V = vary(5, 40)
probs_case("sampling: temperature and top-k", 3, V,
           [(1.0, 0, 1.0), (0.5, 0, 1.0), (2.0, vary(1, V), 1.0), (0.8, V + 3, 1.0)])
V = vary(8, 60)
probs_case("sampling: top-p after temperature and top-k", 3, V,
           [(1.0, 0, 0.9), (0.7, 0, 0.5), (1.3, vary(2, V), 0.8), (1.0, 0, 1e-6)])


@case("sampling: ties, and a vocabulary of one", logits=value([[1.5, 3.0, 3.0, -1.0, 3.0]], dtype="float64"),
      one=value([[0.25]], dtype="float64"))
def _(logits, one):
    return {"ties, T=1 k=2 p=1": next_token_probs(logits[0], 1.0, 2, 1.0),
            "ties, T=0.5 k=0 p=0.5": next_token_probs(logits[0], 0.5, 0, 0.5),
            "V=1, T=1 k=0 p=0.3": next_token_probs(one[0], 1.0, 0, 0.3)}
