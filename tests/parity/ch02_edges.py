# Edge cases where PyTorch 1.13 computes and a learner's program must not stop: contracted size 0,
# 16-bit gradients through indexing, double backward through ops whose derivative is piecewise
# constant, writes into expanded views, index_put_'s broadcasting, dtype checks on empty tensors.
# The C++ twin of each case is in ch02_edges.cpp, same name.
H, B = dict(dtype="float16"), dict(dtype="bfloat16")


def _grad(y, x):
    return torch.autograd.grad(y, x, create_graph=True)[0]


# ---- a contracted size of 0: the product is zeros, and backward works -------------------------------
case("matmul/batched-k0", lambda a, b: a @ b, grad=True, a=randn(2, 3, 0), b=randn(2, 0, 4))
case("matmul/broadcast-k0", lambda a, b: a @ b, grad=True, a=randn(3, 0), b=randn(2, 0, 4))
case("matmul/vector-k0", lambda a, b: a @ b, grad=True, a=randn(0), b=randn(2, 0, 4))
case("matmul/k0-then-sum", lambda a, b: (a @ b).sum() + a.sum(), grad=True, a=randn(2, 3, 0),
     b=randn(2, 0, 4))

# ---- 16-bit gradients through indexing --------------------------------------------------------------
for tag, D in [("half", H), ("bfloat16", B)]:
    case(f"{tag}/mask-index-grad", lambda x, m: x[m] * 2, grad=True, x=randn(4, 5, **D),
         m=randint(0, 2, 4, 5, dtype="bool"))
    case(f"{tag}/int-index-grad", lambda x, i: x[i], grad=True, x=randn(5, 3, **D),
         i=value([[0, 4], [4, 2], [1, 0]], dtype="int64"))
    case(f"{tag}/index-select-grad", lambda x, i: x.index_select(1, i), grad=True, x=randn(3, 5, **D),
         i=value([4, 0, 4, 2], dtype="int64"))

# ---- double backward: piecewise-constant derivatives give zeros, not an error --------------------------
case("double/remainder", lambda x, b: _grad((torch.remainder(x, b) * x).sum(), x), grad=True,
     x=randn(3, 4, scale=3), b=positive(4))
case("double/remainder-other", lambda x, b: torch.autograd.grad((torch.remainder(x, b)).sum(), b,
     create_graph=True)[0], grad=True, x=randn(3, 4, scale=3), b=positive(4))
case("double/relu", lambda x: _grad(x.relu().sum(), x), grad=True, x=randn(3, 4))
case("double/abs", lambda x: _grad(x.abs().sum(), x), grad=True, x=randn(3, 4))
case("double/clamp", lambda x: _grad(x.clamp(-0.5, 0.5).sum(), x), grad=True, x=randn(3, 4))
case("double/relu-times-w", lambda x, w: _grad((x.relu() * w).sum(), x), grad=True, x=randn(3, 4),
     w=randn(3, 4))

# ---- writes into a tensor whose elements share memory (an expanded view) --------------------------------
# PyTorch's rule: an op that computes each element refuses ("more than one element of the written-to
# tensor refers to a single memory location"); fill_ and zero_ write one value everywhere and are allowed.
def _expanded(x):
    return x.detach().clone().expand(3, 4)


case("inplace/fill-expanded", lambda x: _expanded(x).fill_(2.5).clone(), x=randn(4))
case("inplace/zero-expanded", lambda x: _expanded(x).zero_().clone(), x=randn(4))
case("inplace/add-expanded", lambda x: _expanded(x).add_(1), x=randn(4), expect_error=True)
case("inplace/mul-expanded", lambda x: _expanded(x).mul_(x), x=randn(4), expect_error=True)
case("inplace/clamp-expanded", lambda x: _expanded(x).clamp_(-0.5, 0.5), x=randn(4), expect_error=True)
case("inplace/copy-expanded", lambda x: _expanded(x).copy_(torch.ones(3, 4)), x=randn(4), expect_error=True)
case("inplace/add-empty-expanded", lambda x: x.detach().expand(3, 0).add_(1), x=randn(1, 0))


# ---- index_put_ (x[idx] = v): leading size-1 dims of the value, out-of-range indices that select nothing --
def _put(x, idx, v):
    y = x.detach().clone()
    y[idx] = v
    return y


case("index-put/value-leading-ones", lambda x, i, v: _put(x, i, v), x=randn(4, 5),
     i=value([0, 2], dtype="int64"), v=randn(1, 1, 2, 5))
case("index-put/mask-value-leading-ones", lambda x, m, v: _put(x, m, v), x=randn(4, 5),
     m=value([True, False, True, False], dtype="bool"), v=randn(1, 2, 5))
case("index-put/two-indices-leading-ones", lambda x, i, j, v: _put(x, (i, j), v), x=randn(4, 5),
     i=value([0, 2], dtype="int64"), j=value([1, 3], dtype="int64"), v=randn(1, 1, 2))
case("index-put/value-extra-dim-not-one", lambda x, i, v: _put(x, i, v), x=randn(4, 5),
     i=value([0, 2], dtype="int64"), v=randn(2, 2, 5), expect_error=True)
case("index-put/out-of-range-broadcast-to-empty", lambda x, i, j: _put(x, (i, j), 1.0), x=randn(4, 5),
     i=value([10], dtype="int64"), j=value(np.zeros(0), dtype="int64"))
case("index-put/out-of-range-nonempty", lambda x, i: _put(x, i, 1.0), x=randn(4, 5),
     i=value([10], dtype="int64"), expect_error=True)
case("index/out-of-range-broadcast-to-empty", lambda x, i, j: x[i, j], x=randn(4, 5),
     i=value([10], dtype="int64"), j=value(np.zeros(0), dtype="int64"))
# index_put_ through a tensor index takes the destination's dtype ("Index put requires the source and
# destination dtypes match"), except one mask with a one-element value (PyTorch runs that as masked_fill_);
# through slices alone it is copy_, which converts.
case("index-put/value-other-dtype", lambda x, i, v: _put(x, i, v), x=randn(4, 5),
     i=value([0, 2], dtype="int64"), v=randn(2, 5, dtype="float64"), expect_error=True)
case("index-put/0d-value-other-dtype", lambda x, i, v: _put(x, i, v), x=randn(4, 5),
     i=value([0, 2], dtype="int64"), v=value(7, dtype="int64"), expect_error=True)
case("index-put/mask-one-value-other-dtype", lambda x, m, v: _put(x, m, v), x=randn(4, 5),
     m=value([True, False, True, False], dtype="bool"), v=value([7.5], dtype="float64"))
case("index-put/mask-values-other-dtype", lambda x, m, v: _put(x, m, v), x=randn(4, 5),
     m=value([True, False, True, False], dtype="bool"), v=randn(2, 5, dtype="float64"), expect_error=True)
case("index-put/slice-value-other-dtype", lambda x, v: _put(x, slice(1, 3), v), x=randn(4, 5),
     v=value([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], dtype="int64"))

# ---- dtype checks PyTorch skips when there is nothing to read -----------------------------------------
case("gather/empty-float-index", lambda x, i: x.gather(1, i), x=randn(4, 5), i=randn(4, 0))
case("gather/float-index", lambda x, i: x.gather(1, i), x=randn(4, 5), i=randn(4, 1), expect_error=True)
case("scatter-add/empty-float-index", lambda x, i, s: x.scatter_add(1, i, s), x=randn(4, 5), i=randn(4, 0),
     s=randn(4, 0))
case("masked-fill/empty-int64-mask", lambda x, m: x.masked_fill(m, 1.0), x=randn(0, 5),
     m=randint(0, 2, 0, 5))

# ---- NaN through the gradients of max, min, maximum, minimum and relu: PyTorch's formulas ------------------
# x.max() shares the gradient among the elements equal to the result, and when the result is NaN those
# are the NaNs; maximum gives the gradient to each input that does not lose (a NaN loses to nothing);
# relu's gradient is zeroed where y <= 0, so a NaN passes it.
NAN = float("nan")
case("nan/max-all-grad", lambda x: x.max(), grad=True, x=value([1, NAN, 3, NAN]))
case("nan/min-all-grad-float64", lambda x: x.min(), grad=True, x=value([[1, NAN], [-3, 2]], dtype="float64"))
case("nan/min-all-transposed-grad", lambda x: x.t().min(), grad=True, x=value([[NAN, 1], [2, NAN]]))
case("nan/max-all-ties-grad", lambda x: x.max(), grad=True, x=value([1, 3, 3, 2]))
case("nan/maximum-grad", lambda a, b: torch.maximum(a, b), grad=True, a=value([NAN, 1, NAN, 2, 3]),
     b=value([0, NAN, NAN, 2, 1]))
case("nan/minimum-broadcast-grad", lambda a, b: torch.minimum(a, b), grad=True, a=value([[NAN], [1], [2]]),
     b=value([0, NAN, 2]))
case("nan/maximum-double-backward", lambda a, b: _grad((torch.maximum(a, b) * a).sum(), a), grad=True,
     a=value([NAN, 1, 2]), b=value([0, NAN, 2]))
case("nan/relu-grad", lambda x: x.relu(), grad=True, x=value([NAN, 1, -1, 0, -0.0]))
case("nan/relu-grad-float64-strided", lambda x: x[::2].relu(), grad=True,
     x=value([NAN, 9, -1, 9, 0, 9, 2], dtype="float64"))
case("nan/relu-grad-bfloat16", lambda x: x.relu(), grad=True, x=value([NAN, 1, -1, 0, -0.0, -NAN], **B))
case("nan/relu-double-backward", lambda x: _grad((x.relu() * x).sum(), x), grad=True, x=value([NAN, 1, -1.0]))
