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
