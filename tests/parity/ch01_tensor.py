# Chapter 1 parity: every tensor op against PyTorch 1.13 (forward values and dtypes).
# The C++ twin of each case is in ch01_tensor.cpp, same name.

# ---- elementwise binary ops: broadcasting, promotion, non-contiguous -----------------------------
for op, f in [("add", lambda a, b: a + b), ("sub", lambda a, b: a - b),
              ("mul", lambda a, b: a * b), ("div", lambda a, b: a / b)]:
    case(f"{op}/same-shape", f, a=randn(3, 4), b=randn(3, 4))
    case(f"{op}/broadcast-row-col", f, a=randn(3, 1), b=randn(1, 4))
    case(f"{op}/broadcast-rank", f, a=randn(2, 3, 4), b=randn(4))
    case(f"{op}/transposed", lambda a, b, f=f: f(a.t(), b), a=randn(4, 3), b=randn(3, 4))
    case(f"{op}/float64", f, a=randn(2, 3, dtype="float64"), b=randn(2, 3, dtype="float64"))
    case(f"{op}/int-float-promotion", f, a=randint(-5, 5, 2, 3), b=randn(2, 3))
    case(f"{op}/0d-float64-with-float32", f, a=randn(2, 3), b=randn(dtype="float64"))
    case(f"{op}/int-with-0d-float64", f, a=randint(1, 5, 2, 3), b=randn(dtype="float64"))
    case(f"{op}/empty", f, a=randn(0, 3), b=randn(1, 3))
    case(f"{op}/0d", f, a=randn(), b=randn())
    case(f"{op}/bad-shapes", f, a=randn(2, 3), b=randn(4), expect_error=True)

case("add/int64", lambda a, b: a + b, a=randint(-9, 9, 3, 4), b=randint(-9, 9, 4))
case("add/uint8-int64", lambda a, b: a + b, a=randint(0, 200, 3, dtype="uint8"), b=randint(-9, 9, 3))
case("add/bool-bool", lambda a, b: a + b, a=randint(0, 2, 5, dtype="bool"), b=randint(0, 2, 5, dtype="bool"))
case("add/alpha", lambda a, b: torch.add(a, b, alpha=2.5), a=randn(3), b=randn(3))
case("sub/alpha", lambda a, b: torch.sub(a, b, alpha=-0.5), a=randn(3), b=randn(2, 3))
case("div/int-int-true-division", lambda a, b: a / b, a=randint(-9, 9, 6), b=randint(1, 4, 6))
case("mul/scalar-int-on-int", lambda a: a * 3, a=randint(-9, 9, 4))
case("mul/scalar-float-on-int", lambda a: a * 0.5, a=randint(-9, 9, 4))
case("mul/scalar-float-on-float64", lambda a: a * 0.5, a=randn(4, dtype="float64"))
case("add/scalar-left", lambda a: 2 + a, a=randn(2, 2))
case("sub/scalar-left", lambda a: 2 - a, a=randn(2, 2))
case("div/scalar-left", lambda a: 2 / a, a=positive(2, 2))
case("add/scalar-int-on-bool", lambda a: a + 1, a=randint(0, 2, 4, dtype="bool"))
case("add/expanded-view", lambda a, b: a.expand(3, 4) + b, a=randn(1, 4), b=randn(3, 4))
case("mul/sliced-view", lambda a, b: a[:, ::2] * b, a=randn(3, 8), b=randn(3, 4))
case("mul/permuted-3d", lambda a, b: a.permute(2, 0, 1) * b, a=randn(3, 4, 5), b=randn(5, 3, 4))
case("pow/tensor-tensor", lambda a, b: torch.pow(a, b), a=positive(3, 4), b=randn(3, 4))
case("pow/scalar", lambda a: a ** 2, a=randn(3, 4))
case("pow/scalar-fractional", lambda a: a ** 0.5, a=positive(3, 4))
case("pow/int-scalar-int", lambda a: a ** 2, a=randint(-5, 5, 6))
case("maximum/broadcast", lambda a, b: torch.maximum(a, b), a=randn(3, 1), b=randn(4))
case("minimum/broadcast", lambda a, b: torch.minimum(a, b), a=randn(3, 1), b=randn(4))
case("maximum/int-float", lambda a, b: torch.maximum(a, b), a=randint(-3, 3, 4), b=randn(4))

# ---- unary ------------------------------------------------------------------------------------
for name, f, inp in [("neg", torch.neg, randn(3, 4)), ("abs", torch.abs, randn(3, 4)),
                     ("exp", torch.exp, randn(3, 4)), ("log", torch.log, positive(3, 4)),
                     ("sqrt", torch.sqrt, positive(3, 4)), ("tanh", torch.tanh, randn(3, 4, scale=3)),
                     ("sigmoid", torch.sigmoid, randn(3, 4, scale=10)), ("relu", torch.relu, randn(3, 4))]:
    case(f"{name}/basic", f, x=inp)
    case(f"{name}/transposed", lambda x, f=f: f(x.t()), x=inp)
    case(f"{name}/float64", f, x=Input(inp.kind, inp.shape, "float64", **inp.opts))
case("neg/int64", torch.neg, x=randint(-9, 9, 5))
case("abs/int64", torch.abs, x=randint(-9, 9, 5))
case("relu/int64", torch.relu, x=randint(-9, 9, 5))
case("exp/int64-promotes", torch.exp, x=randint(-3, 3, 5))
case("sigmoid/extreme", torch.sigmoid, x=value([-1000.0, -50.0, 0.0, 50.0, 1000.0]))
case("clamp/both", lambda x: torch.clamp(x, -0.5, 0.5), x=randn(3, 4))
case("clamp/min-only", lambda x: torch.clamp(x, min=0.1), x=randn(3, 4))
case("clamp/max-only", lambda x: torch.clamp(x, max=0.1), x=randn(3, 4))
case("clamp/int", lambda x: torch.clamp(x, -2, 3), x=randint(-9, 9, 6))
# With both bounds a NaN one makes every element NaN; a lone NaN bound is ignored (PyTorch 1.13)
case("clamp/nan-min", lambda x: torch.clamp(x, float("nan"), 0.5), x=randn(3, 4))
case("clamp/nan-max", lambda x: torch.clamp(x, -0.5, float("nan")), x=randn(3, 4, dtype="float64"))
case("clamp/nan-max-alone", lambda x: torch.clamp(x, max=float("nan")), x=randn(3, 4, dtype="float64"))
case("clamp/nan-min-alone", lambda x: torch.clamp(x, min=float("nan")), x=randn(3, 4))

# ---- comparisons and where ---------------------------------------------------------------------
for name, f in [("eq", torch.eq), ("ne", torch.ne), ("lt", torch.lt), ("le", torch.le),
                ("gt", torch.gt), ("ge", torch.ge)]:
    case(f"{name}/broadcast", f, a=randint(0, 3, 3, 1, dtype="float32"), b=randint(0, 3, 4, dtype="float32"))
case("gt/scalar", lambda a: a > 0, a=randn(3, 4))
case("eq/int-float", lambda a, b: a == b, a=randint(0, 3, 5), b=randint(0, 3, 5, dtype="float32"))
case("where/broadcast", lambda c, a, b: torch.where(c, a, b),
     c=randint(0, 2, 3, 1, dtype="bool"), a=randn(3, 4), b=randn(4))
case("where/promotion", lambda c, a, b: torch.where(c, a, b),
     c=randint(0, 2, 4, dtype="bool"), a=randint(0, 9, 4), b=randn(4, dtype="float64"))
case("where/scalar", lambda c, a: torch.where(c, a, 0.0), c=randint(0, 2, 5, dtype="bool"), a=randn(5))

# ---- reductions --------------------------------------------------------------------------------
case("sum/all", lambda x: x.sum(), x=randn(3, 4, 5))
case("sum/dim0", lambda x: x.sum(0), x=randn(3, 4, 5))
case("sum/dim-last-keepdim", lambda x: x.sum(-1, keepdim=True), x=randn(3, 4, 5))
case("sum/dims", lambda x: x.sum((0, 2)), x=randn(3, 4, 5))
case("sum/transposed", lambda x: x.t().sum(1), x=randn(6, 7))
case("sum/int64", lambda x: x.sum(), x=randint(-9, 9, 10))
case("sum/bool", lambda x: x.sum(), x=randint(0, 2, 10, dtype="bool"))
case("sum/uint8-dim", lambda x: x.sum(0), x=randint(0, 255, 4, 3, dtype="uint8"))
case("sum/empty", lambda x: x.sum(), x=randn(0, 3))
case("sum/empty-dim", lambda x: x.sum(0), x=randn(0, 3))
case("sum/large", lambda x: x.sum(), x=rand(100000))
case("sum/0d", lambda x: x.sum(), x=randn())
case("mean/all", lambda x: x.mean(), x=randn(3, 4, 5))
case("mean/dim", lambda x: x.mean(1), x=randn(3, 4, 5))
case("mean/dims-keepdim", lambda x: x.mean((0, 1), keepdim=True), x=randn(3, 4, 5))
case("mean/float64", lambda x: x.mean(0), x=randn(3, 4, dtype="float64"))
case("max/all", lambda x: x.max(), x=distinct(3, 4))
case("min/all", lambda x: x.min(), x=distinct(3, 4))
case("max/dim", lambda x: x.max(1), x=distinct(3, 4, 5))
case("max/dim-keepdim", lambda x: x.max(0, keepdim=True), x=distinct(3, 4))
case("min/dim", lambda x: x.min(-1), x=distinct(3, 4, 5))
case("max/dim-ties-first-index", lambda x: x.max(1), x=randint(0, 3, 4, 6, dtype="float32"))
case("max/int64-dim", lambda x: x.max(0), x=randint(-50, 50, 5, 3))
case("max/transposed-dim", lambda x: x.t().max(0), x=distinct(5, 4))
case("max/empty", lambda x: x.max(), x=randn(0), expect_error=True)
case("argmax/all", lambda x: x.argmax(), x=distinct(3, 4))
case("argmax/dim", lambda x: x.argmax(1), x=distinct(3, 4, 5))
case("argmax/dim-keepdim", lambda x: x.argmax(0, keepdim=True), x=distinct(3, 4))
case("argmin/dim", lambda x: x.argmin(-1), x=distinct(3, 4))
case("var/all", lambda x: x.var(), x=randn(5, 6))
case("var/dim", lambda x: x.var(1), x=randn(5, 6))
case("var/dim-keepdim-biased", lambda x: x.var(0, unbiased=False, keepdim=True), x=randn(5, 6))
case("std/all", lambda x: x.std(), x=randn(5, 6))
case("std/dim", lambda x: x.std(-1), x=randn(5, 6, dtype="float64"))
case("std/dim-biased", lambda x: x.std(0, unbiased=False), x=randn(5, 6))

# ---- softmax -----------------------------------------------------------------------------------
case("softmax/last", lambda x: torch.softmax(x, -1), x=randn(4, 10))
case("softmax/dim0", lambda x: torch.softmax(x, 0), x=randn(4, 10))
case("softmax/middle-3d", lambda x: torch.softmax(x, 1), x=randn(2, 5, 3))
case("softmax/large-logits", lambda x: torch.softmax(x, -1), x=randn(4, 10, scale=1000))
case("softmax/transposed", lambda x: torch.softmax(x.t(), -1), x=randn(6, 3))
case("softmax/float64", lambda x: torch.softmax(x, -1), x=randn(3, 7, dtype="float64"))
case("log_softmax/last", lambda x: torch.log_softmax(x, -1), x=randn(4, 10))
case("log_softmax/large-logits", lambda x: torch.log_softmax(x, 1), x=randn(4, 10, scale=1000))
case("log_softmax/dim0", lambda x: torch.log_softmax(x, 0), x=randn(4, 10))
# Logits close together but far from 0: (x - max) - log(sum) keeps log(sum)'s digits, max + log(sum) does not.
case("log_softmax/large-offset", lambda x: torch.log_softmax(x + 10000.0, -1), x=randn(4, 10))
case("log_softmax/large-offset-dim0", lambda x: torch.log_softmax(x + 10000.0, 0), x=randn(4, 10))
case("log_softmax/large-offset-float64", lambda x: torch.log_softmax(x + 1e12, -1), x=randn(3, 6, dtype="float64"))
case("softmax/int-refused", lambda x: torch.softmax(x, 0), x=randint(0, 3, 4), expect_error=True)

# ---- matmul ------------------------------------------------------------------------------------
case("matmul/2d", lambda a, b: a @ b, a=randn(5, 7), b=randn(7, 3))
# 784-term sums of unit-size products (results ~28 in size): two correct summation orders (oneDNN's
# blocking differs from CPU to CPU) differ by ~sqrt(784) * 2^-24 * 28 ~ 5e-5 at any element, so an
# element that cancels to near 0 needs that much absolute slack; a wrong product is off by ~1.
case("matmul/mlp-forward", lambda x, w: x @ w.t(), x=randn(32, 784), w=randn(128, 784), atol=2e-4)
case("matmul/mlp-grad-weight", lambda g, x: g.t() @ x, g=randn(32, 128), x=randn(32, 784))
case("matmul/a-transposed", lambda a, b: a.t() @ b, a=randn(7, 5), b=randn(7, 3))
case("matmul/both-transposed", lambda a, b: a.t() @ b.t(), a=randn(7, 5), b=randn(3, 7))
case("matmul/sliced-rows", lambda a, b: a[::2] @ b, a=randn(10, 4), b=randn(4, 3))
case("matmul/sliced-cols", lambda a, b: a[:, ::2] @ b, a=randn(3, 8), b=randn(4, 5))
case("matmul/dot", lambda a, b: a @ b, a=randn(7), b=randn(7))
case("matmul/mat-vec", lambda a, b: a @ b, a=randn(4, 7), b=randn(7))
case("matmul/vec-mat", lambda a, b: a @ b, a=randn(7), b=randn(7, 4))
case("matmul/batched", lambda a, b: a @ b, a=randn(3, 4, 5), b=randn(3, 5, 2))
case("matmul/batched-broadcast", lambda a, b: a @ b, a=randn(2, 1, 4, 5), b=randn(3, 5, 2))
case("matmul/batched-with-2d", lambda a, b: a @ b, a=randn(3, 4, 5), b=randn(5, 2))
case("matmul/vec-batched", lambda a, b: a @ b, a=randn(5), b=randn(3, 5, 2))
case("matmul/float64", lambda a, b: a @ b, a=randn(5, 7, dtype="float64"), b=randn(7, 3, dtype="float64"))
case("matmul/int64", lambda a, b: a @ b, a=randint(-5, 5, 3, 4), b=randint(-5, 5, 4, 2))
case("matmul/empty-inner", lambda a, b: a @ b, a=randn(3, 0), b=randn(0, 4))
case("matmul/512", lambda a, b: a @ b, a=randn(512, 512), b=randn(512, 512), rtol=1e-3, atol=1e-3)
case("matmul/mismatch", lambda a, b: a @ b, a=randn(32, 784), b=randn(128, 784), expect_error=True)
case("mm/2d", lambda a, b: torch.mm(a, b), a=randn(4, 6), b=randn(6, 2))

# ---- views -------------------------------------------------------------------------------------
case("view/basic", lambda x: x.view(4, 6), x=randn(2, 3, 4))
case("view/infer", lambda x: x.view(-1, 4), x=randn(2, 3, 4))
case("view/non-contiguous-refused", lambda x: x.t().view(-1), x=randn(3, 4), expect_error=True)
case("view/split-dim-of-transposed", lambda x: x.t().view(2, 2, 3), x=randn(3, 4))
case("reshape/copying", lambda x: x.t().reshape(-1), x=randn(3, 4))
case("permute/3d", lambda x: x.permute(2, 0, 1), x=randn(2, 3, 4))
case("permute/hwc-to-chw", lambda x: x.permute(2, 0, 1).contiguous(), x=randint(0, 255, 4, 5, 3, dtype="uint8"))
case("transpose/basic", lambda x: x.transpose(0, 2), x=randn(2, 3, 4))
case("t/basic", lambda x: x.t(), x=randn(2, 3))
case("expand/basic", lambda x: x.expand(3, 4), x=randn(1, 4))
case("expand/new-dims", lambda x: x.expand(2, 3, 4), x=randn(3, 1))
case("expand/bad", lambda x: x.expand(3, 5), x=randn(3, 4), expect_error=True)
case("squeeze/all", lambda x: x.squeeze(), x=randn(1, 3, 1, 4))
case("squeeze/dim", lambda x: x.squeeze(2), x=randn(1, 3, 1, 4))
case("squeeze/non-one-dim-noop", lambda x: x.squeeze(1), x=randn(1, 3, 1, 4))
case("unsqueeze/middle", lambda x: x.unsqueeze(1), x=randn(3, 4))
case("unsqueeze/negative", lambda x: x.unsqueeze(-1), x=randn(3, 4))
case("flatten/all", lambda x: x.flatten(), x=randn(2, 3, 4))
case("flatten/from1", lambda x: x.flatten(1), x=randn(2, 3, 4))
case("narrow/basic", lambda x: x.narrow(1, 1, 2), x=randn(3, 4))
case("slice/step", lambda x: x[:, 1:7:2], x=randn(3, 8))
case("slice/negative", lambda x: x[-2:], x=randn(5, 2))
case("slice/clamped", lambda x: x[2:100], x=randn(5, 2))
case("select/basic", lambda x: x[1], x=randn(3, 4))
case("select/negative", lambda x: x[:, -1], x=randn(3, 4))
case("select/out-of-range", lambda x: x[5], x=randn(3, 4), expect_error=True)
case("index/mixed", lambda x: x[1:, 0, None], x=randn(3, 4, 5))
case("index/ellipsis", lambda x: x[..., 1], x=randn(3, 4, 5))
case("contiguous/of-permuted", lambda x: x.permute(1, 0, 2).contiguous(), x=randn(2, 3, 4))
case("clone/of-sliced", lambda x: x[:, ::2].clone(), x=randn(3, 6))

# ---- creation, conversion, join -----------------------------------------------------------------
case("to/float-to-int64", lambda x: x.to(torch.int64), x=randn(10, scale=5))
case("to/float-to-uint8", lambda x: x.to(torch.uint8), x=rand(10, low=0, high=255))
case("to/int-to-float64", lambda x: x.to(torch.float64), x=randint(-9, 9, 10))
case("to/float-to-bool", lambda x: x.to(torch.bool), x=randint(-1, 2, 10, dtype="float32"))
case("cat/dim0", lambda a, b: torch.cat([a, b], 0), a=randn(2, 3), b=randn(4, 3))
case("cat/dim1", lambda a, b: torch.cat([a, b], 1), a=randn(2, 3), b=randn(2, 1))
case("cat/promotion", lambda a, b: torch.cat([a, b]), a=randint(0, 5, 2), b=randn(3))
case("cat/mismatch", lambda a, b: torch.cat([a, b], 0), a=randn(2, 3), b=randn(2, 4), expect_error=True)
case("stack/dim0", lambda a, b: torch.stack([a, b]), a=randn(2, 3), b=randn(2, 3))
case("stack/dim-last", lambda a, b: torch.stack([a, b], -1), a=randn(2, 3), b=randn(2, 3))
case("stack/transposed-input", lambda a, b: torch.stack([a.t(), b]), a=randn(3, 2), b=randn(2, 3))
case("arange/int", lambda: torch.arange(0, 10, 3))
case("arange/float", lambda: torch.arange(0, 1, 0.1))
case("arange/negative-step", lambda: torch.arange(5, -5, -2))
case("linspace/basic", lambda: torch.linspace(-1, 1, 9))
case("eye/rect", lambda: torch.eye(3, 5))
case("zeros/float64", lambda: torch.zeros(2, 3, dtype=torch.float64))
case("full/int", lambda: torch.full((2, 2), 7))
case("tensor/nested-float", lambda: torch.tensor([[1., 2.], [3., 4.]]))
case("tensor/nested-int", lambda: torch.tensor([[1, 2, 3], [4, 5, 6]]))

# ---- a Python number takes part in type promotion before it is converted (issue 18) -------------
# uint8 / -1 divides by -1.0 in float32; converting -1 to uint8 first would divide by 255.
case("div/uint8-by-negative-int-scalar", lambda a: a / -1, a=randint(0, 256, 6, dtype="uint8"))
case("div/negative-int-scalar-by-uint8", lambda a: -1 / a, a=randint(1, 256, 6, dtype="uint8"))
case("div/uint8-by-int-scalar-over-255", lambda a: a / 300, a=randint(0, 256, 6, dtype="uint8"))
case("div/bool-by-negative-int-scalar", lambda a: a / -2, a=randint(0, 2, 4, dtype="bool"))
case("div/uint8-0d-by-negative-int-scalar", lambda a: a / -1, a=randint(1, 256, dtype="uint8"))
# ...while an integer result wraps the number into its dtype, exactly as PyTorch does (300 -> 44).
case("add/uint8-int-scalar-wraps", lambda a: a + 300, a=randint(0, 256, 6, dtype="uint8"))
case("add/uint8-negative-int-scalar", lambda a: a + -1, a=randint(0, 256, 6, dtype="uint8"))
case("mul/uint8-negative-int-scalar", lambda a: a * -1, a=randint(0, 256, 6, dtype="uint8"))
case("rsub/int-scalar-minus-uint8", lambda a: 300 - a, a=randint(0, 256, 6, dtype="uint8"))
case("div_/uint8-by-int-scalar-refused", lambda a: a.div_(2), a=randint(0, 256, 6, dtype="uint8"), expect_error=True)
# A value that is *stored* in a dtype must fit it (-255..-1 wrap around into uint8, as in PyTorch).
case("full/uint8-overflow", lambda: torch.full((2,), 300, dtype=torch.uint8), expect_error=True)
case("full/uint8-negative-wraps", lambda: torch.full((3,), -1, dtype=torch.uint8))
case("full/uint8-below-wrap-range", lambda: torch.full((3,), -256, dtype=torch.uint8), expect_error=True)
case("full/uint8-fraction-truncates", lambda: torch.full((3,), 2.5, dtype=torch.uint8))
case("full/uint8-negative-float", lambda: torch.full((3,), -0.5, dtype=torch.uint8), expect_error=True)
case("full/float32-overflow", lambda: torch.full((2,), 1e40), expect_error=True)
case("full/float32-inf", lambda: torch.full((2,), float("inf")))
case("full/int64-nan", lambda: torch.full((2,), float("nan"), dtype=torch.int64), expect_error=True)
case("full/bool-any-number", lambda: torch.full((2,), 256, dtype=torch.bool))
case("scalar_tensor/uint8-overflow", lambda: torch.scalar_tensor(300, dtype=torch.uint8), expect_error=True)
case("full_like/uint8-overflow", lambda a: torch.full_like(a, 300), a=randint(0, 9, 3, dtype="uint8"),
     expect_error=True)
case("fill_/uint8-overflow", lambda a: a.fill_(300), a=randint(0, 9, 3, dtype="uint8"), expect_error=True)
case("fill_/uint8-negative-wraps", lambda a: a.fill_(-1), a=randint(0, 9, 3, dtype="uint8"))
case("fill_/float32-overflow", lambda a: a.fill_(1e40), a=randn(3), expect_error=True)
case("clamp/uint8-bound-overflow", lambda a: torch.clamp(a, 0, 300), a=randint(0, 256, 6, dtype="uint8"),
     expect_error=True)
case("clamp/uint8-negative-bound-wraps", lambda a: torch.clamp(a, min=-1), a=randint(0, 256, 6, dtype="uint8"))
case("clamp/uint8-float-bound-promotes", lambda a: torch.clamp(a, 2.5), a=randint(0, 256, 6, dtype="uint8"))
case("clamp/float32-bound-overflow", lambda a: torch.clamp(a, -1e40, 1e40), a=randn(4), expect_error=True)
case("where/uint8-scalar-overflow", lambda c, a: torch.where(c, a, 300), c=randint(0, 2, 4, dtype="bool"),
     a=randint(0, 256, 4, dtype="uint8"), expect_error=True)
case("where/uint8-negative-scalar-wraps", lambda c, a: torch.where(c, a, -1), c=randint(0, 2, 4, dtype="bool"),
     a=randint(0, 256, 4, dtype="uint8"))
case("where/float32-scalar-overflow", lambda c, a: torch.where(c, a, 1e40), c=randint(0, 2, 4, dtype="bool"),
     a=randn(4), expect_error=True)
case("pow/uint8-exponent-overflow", lambda a: a ** 256, a=randint(0, 4, 4, dtype="uint8"), expect_error=True)
case("pow/uint8-exponent-255", lambda a: a ** 255, a=randint(0, 4, 4, dtype="uint8"))
case("pow/float32-huge-exponent", lambda a: a ** 1e40, a=positive(4))
case("pow/bool-int-scalar", lambda a: a ** 2, a=randint(0, 2, 4, dtype="bool"))
case("add/uint8-alpha-overflow", lambda a, b: torch.add(a, b, alpha=300), a=randint(0, 9, 3, dtype="uint8"),
     b=randint(0, 9, 3, dtype="uint8"), expect_error=True)
case("add/float32-alpha-overflow", lambda a, b: torch.add(a, b, alpha=1e40), a=randn(3), b=randn(3),
     expect_error=True)

# ---- an in-place op on a tensor with no elements has nothing to overlap (issue 18) ----------------
case("add_/empty-expanded", lambda a: a.expand(3, 0, 4).add_(1), a=randn(1, 0, 4))
case("zero_/empty-expanded", lambda a: a.expand(3, 0, 4).zero_(), a=randn(1, 0, 4))
case("fill_/empty-expanded", lambda a: a.expand(3, 0, 4).fill_(2), a=randn(1, 0, 4))
case("copy_/empty-expanded", lambda a, b: a.expand(3, 0, 4).copy_(b), a=randn(1, 0, 4), b=randn(0, 4))
case("mul_/expanded-refused", lambda a: a.expand(3, 4).mul_(2), a=randn(1, 4), expect_error=True)

# ---- where PyTorch refuses (issue 18) -------------------------------------------------------------
case("sub/float-minus-bool-0d", lambda a, b: a - b, a=randn(3), b=randint(0, 2, dtype="bool"), expect_error=True)
case("sub/bool-minus-float", lambda a, b: a - b, a=randint(0, 2, 3, dtype="bool"), b=randn(3), expect_error=True)
case("sub/float-minus-true", lambda a: a - True, a=randn(3), expect_error=True)
case("sub/true-minus-float", lambda a: True - a, a=randn(3), expect_error=True)
case("sub_/int-minus-true", lambda a: a.sub_(True), a=randint(0, 9, 3), expect_error=True)
case("sub_/float-minus-bool", lambda a, b: a.sub_(b), a=randn(3), b=randint(0, 2, 3, dtype="bool"),
     expect_error=True)
case("rsub/float-bool-alpha", lambda a, b: torch.sub(a, b, alpha=2), a=randn(3), b=randint(0, 2, 3, dtype="bool"),
     expect_error=True)
case("add/float-plus-bool", lambda a, b: a + b, a=randn(3), b=randint(0, 2, 3, dtype="bool"))
case("argmax/bool-refused", lambda x: x.argmax(), x=randint(0, 2, 5, dtype="bool"), expect_error=True)
case("argmax/bool-dim-refused", lambda x: x.argmax(0), x=randint(0, 2, 5, dtype="bool"), expect_error=True)
case("argmin/bool-refused", lambda x: x.argmin(), x=randint(0, 2, 5, dtype="bool"), expect_error=True)
case("pow/bool-bool-refused", lambda a, b: torch.pow(a, b), a=randint(0, 2, 4, dtype="bool"),
     b=randint(0, 2, 4, dtype="bool"), expect_error=True)
case("pow/bool-true-refused", lambda a: a.pow(True), a=randint(0, 2, 4, dtype="bool"), expect_error=True)
case("pow/bool-int", lambda a, b: torch.pow(a, b), a=randint(0, 2, 4, dtype="bool"), b=randint(0, 3, 4))
case("flatten/0d", lambda x: x.flatten(), x=randn())
case("flatten/0d-negative-dims", lambda x: x.flatten(-1, -1), x=randn())
case("flatten/0d-start-out-of-range", lambda x: x.flatten(1), x=randn(), expect_error=True)
case("flatten/0d-end-out-of-range", lambda x: x.flatten(0, -2), x=randn(), expect_error=True)
# PyTorch 1.13 broadcasts both ways (the issue listed this as a refusal; torch computes it), so do we.
case("allclose/other-broadcasts-self", lambda a, b: torch.tensor(torch.allclose(a, b)), a=randn(3),
     b=randn(2, 3))
case("allclose/self-broadcasts-other", lambda a, b: torch.tensor(torch.allclose(a, b)), a=randn(2, 3), b=randn(3))

# ---- x[...] is a new view of x, not x itself (issue 18) -------------------------------------------
case("index/ellipsis-alone", lambda x: x[...], x=randn(3, 4))
case("index/ellipsis-0d", lambda x: x[...], x=randn())

# ---- more pointwise functions (issue 18) -----------------------------------------------------------
for name, inp in [("sin", randn(3, 4, scale=3)), ("cos", randn(3, 4, scale=3)), ("log1p", rand(3, 4, low=-0.9, high=3)),
                  ("expm1", randn(3, 4)), ("erf", randn(3, 4, scale=2)), ("floor", randn(3, 4, scale=3)),
                  ("ceil", randn(3, 4, scale=3)), ("round", randn(3, 4, scale=3)), ("trunc", randn(3, 4, scale=3)),
                  ("sign", randn(3, 4))]:
    f = getattr(torch, name)
    case(f"{name}/basic", f, x=inp)
    case(f"{name}/transposed", lambda x, f=f: f(x.t()), x=inp)
    case(f"{name}/float64", f, x=Input(inp.kind, inp.shape, "float64", **inp.opts))
    case(f"{name}/empty", f, x=randn(0, 3))
    case(f"{name}/0d", f, x=randn())
for name in ["sin", "log1p", "expm1", "erf"]:
    case(f"{name}/int-promotes", getattr(torch, name), x=randint(0, 5, 6))
for name in ["floor", "ceil", "round", "trunc", "sign"]:
    case(f"{name}/int64-stays", getattr(torch, name), x=randint(-5, 5, 6))
    case(f"{name}/uint8-stays", getattr(torch, name), x=randint(0, 9, 6, dtype="uint8"))
for name in ["floor", "ceil", "round", "trunc"]:
    case(f"{name}/bool-refused", getattr(torch, name), x=randint(0, 2, 4, dtype="bool"), expect_error=True)
case("sign/bool", torch.sign, x=randint(0, 2, 4, dtype="bool"))
case("round/half-to-even", torch.round, x=value([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5]))
case("sign/nan-and-zeros", torch.sign, x=value([float("nan"), 0.0, -0.0, -3.0, 2.0]))
case("log1p/tiny", torch.log1p, x=value([1e-10, -1e-10, 1e-5], dtype="float64"))
case("expm1/tiny", torch.expm1, x=value([1e-10, -1e-10, 1e-5], dtype="float64"))

# ---- indexing with tensors (issue 18) ---------------------------------------------------------------
case("index_select/dim0", lambda x, i: x.index_select(0, i), x=randn(4, 3), i=value([3, 0, 0, 2], dtype="int64"))
case("index_select/dim1-transposed", lambda x, i: x.t().index_select(1, i), x=randn(3, 4), i=value([1, 2], dtype="int64"))
case("index_select/0d-index", lambda x, i: x.index_select(-1, i), x=randn(2, 3), i=value(2, dtype="int64"))
case("index_select/empty-index", lambda x, i: x.index_select(1, i), x=randn(2, 3), i=value([], dtype="int64"))
case("index_select/0d-self", lambda x, i: x.index_select(0, i), x=randn(), i=value([0], dtype="int64"))
case("index_select/int64-values", lambda x, i: x.index_select(0, i), x=randint(-9, 9, 3, 2), i=value([2, 1], dtype="int64"))
case("index_select/out-of-range", lambda x, i: x.index_select(0, i), x=randn(2, 3), i=value([2], dtype="int64"),
     expect_error=True)
case("index_select/negative", lambda x, i: x.index_select(0, i), x=randn(2, 3), i=value([-1], dtype="int64"),
     expect_error=True)
case("index_select/2d-index", lambda x, i: x.index_select(0, i), x=randn(2, 3), i=value([[0]], dtype="int64"),
     expect_error=True)
case("index_select/float-index", lambda x, i: x.index_select(0, i), x=randn(2, 3), i=value([0.0]), expect_error=True)
case("gather/dim1", lambda x, i: x.gather(1, i), x=randn(3, 4), i=randint(0, 4, 3, 2))
case("gather/dim0-wider", lambda x, i: x.gather(0, i), x=randn(3, 4), i=randint(0, 3, 5, 2))
case("gather/labels", lambda x, t: x.gather(1, t.unsqueeze(1)), x=randn(5, 4), t=randint(0, 4, 5))
case("gather/3d-transposed", lambda x, i: x.transpose(0, 2).gather(1, i), x=randn(2, 3, 4), i=randint(0, 3, 4, 2, 2))
case("gather/0d", lambda x, i: x.gather(0, i), x=randn(), i=value(0, dtype="int64"))
case("gather/empty", lambda x, i: x.gather(1, i), x=randn(3, 4), i=randint(0, 4, 3, 0))
case("gather/out-of-range", lambda x, i: x.gather(1, i), x=randn(2, 3), i=value([[3]], dtype="int64"), expect_error=True)
case("gather/bad-rank", lambda x, i: x.gather(1, i), x=randn(2, 3), i=value([0], dtype="int64"), expect_error=True)
case("gather/too-big", lambda x, i: x.gather(1, i), x=randn(2, 3), i=randint(0, 3, 3, 1), expect_error=True)
case("gather/float-index", lambda x, i: x.gather(1, i), x=randn(2, 3), i=value([[0.0], [1.0]]), expect_error=True)
case("scatter_add/dim0-repeats", lambda x, i, s: x.scatter_add(0, i, s), x=randn(3, 4), i=randint(0, 3, 5, 4),
     s=randn(5, 4))
case("scatter_add/dim1-smaller-src-view", lambda x, i, s: x.scatter_add(1, i, s[:, ::2]), x=randn(3, 4),
     i=randint(0, 4, 2, 3), s=randn(3, 6))
case("scatter_add/int64", lambda x, i, s: x.scatter_add(1, i, s), x=randint(0, 9, 2, 3), i=randint(0, 3, 2, 4),
     s=randint(0, 9, 2, 4))
case("scatter_add/dtype-mismatch", lambda x, i, s: x.scatter_add(0, i, s), x=randn(3), i=value([0], dtype="int64"),
     s=randn(1, dtype="float64"), expect_error=True)
case("scatter/src", lambda x, i, s: x.scatter(1, i, s), x=randn(3, 4), i=value([[0, 2], [1, 3], [3, 0]], dtype="int64"),
     s=randn(3, 2))
case("scatter/value", lambda x, i: x.scatter(1, i, -7.5), x=randn(3, 4), i=value([[0], [3], [1]], dtype="int64"))
case("scatter/value-overflow", lambda x, i: x.scatter(0, i, 300), x=randint(0, 9, 3, dtype="uint8"),
     i=value([0], dtype="int64"), expect_error=True)
case("masked_fill/broadcast-mask", lambda x, m: x.masked_fill(m, -1.0), x=randn(3, 4), m=randint(0, 2, 4, dtype="bool"))
case("masked_fill/mask-broadcasts-self", lambda x, m: x.masked_fill(m, 2.0), x=randn(4), m=randint(0, 2, 3, 4, dtype="bool"))
case("masked_fill/int-truncates", lambda x, m: x.masked_fill(m, 2.5), x=randint(0, 9, 5), m=randint(0, 2, 5, dtype="bool"))
case("masked_fill/transposed", lambda x, m: x.t().masked_fill(m, 0.0), x=randn(4, 3), m=randint(0, 2, 3, 4, dtype="bool"))
case("masked_fill/overflow", lambda x, m: x.masked_fill(m, 1e40), x=randn(3), m=randint(0, 2, 3, dtype="bool"),
     expect_error=True)
case("masked_fill/attention-mask", lambda s: s.masked_fill(torch.ones(3, 3, dtype=torch.bool).triu(1), float("-inf")),
     s=randn(2, 3, 3))

# ---- tril/triu, flip, outer, any/all (issue 18) ----------------------------------------------------
case("tril/basic", torch.tril, x=randn(4, 5))
case("tril/diagonal-batched", lambda x: torch.tril(x, -1), x=randn(2, 3, 4))
case("triu/diagonal-transposed", lambda x: torch.triu(x.t(), 1), x=randn(4, 3))
case("triu/int64", torch.triu, x=randint(-9, 9, 3, 3))
case("triu/empty", torch.triu, x=randn(0, 3))
case("tril/1d-refused", torch.tril, x=randn(3), expect_error=True)
case("flip/dim0", lambda x: x.flip(0), x=randn(3, 4))
case("flip/dims-transposed", lambda x: x.t().flip((0, -1)), x=randn(3, 4))
case("flip/sliced", lambda x: x[:, ::2].flip(1), x=randn(2, 6))
case("flip/bool", lambda x: x.flip(0), x=randint(0, 2, 5, dtype="bool"))
case("flip/empty", lambda x: x.flip(0), x=randn(0, 2))
case("flip/0d", lambda x: x.flip(0), x=randn())
case("flip/repeated-dim", lambda x: x.flip((0, 0)), x=randn(3), expect_error=True)
case("outer/basic", torch.outer, a=randn(3), b=randn(4))
case("outer/int-float", torch.outer, a=randint(-3, 3, 3), b=randn(2))
case("outer/matrix-refused", torch.outer, a=randn(2, 2), b=randn(2), expect_error=True)
case("any/float", lambda x: x.any(), x=value([0.0, 0.0, 1.5]))
case("any/none", lambda x: x.any(), x=value([0.0, -0.0]))
case("any/nan-counts", lambda x: x.any(), x=value([0.0, float("nan")]))
case("any/dim-keepdim", lambda x: x.any(1, keepdim=True), x=randint(0, 2, 3, 4, dtype="bool"))
case("all/dim", lambda x: x.all(0), x=randint(0, 3, 3, 4))
case("all/empty", lambda x: x.all(), x=randn(0))
case("any/empty", lambda x: x.any(), x=randn(0))
case("any/empty-dim", lambda x: x.any(1), x=randn(2, 0, 3))
case("all/uint8-stays-uint8", lambda x: x.all(), x=randint(0, 3, 5, dtype="uint8"))
case("any/uint8-dim", lambda x: x.any(0), x=randint(0, 2, 3, 2, dtype="uint8"))
case("all/0d", lambda x: x.all(0), x=randn())
