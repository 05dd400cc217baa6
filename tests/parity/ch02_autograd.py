# Chapter 2 parity: gradients of every differentiable op against PyTorch 1.13. Each case has
# grad=True: every floating-point input requires grad, every output gets the same seeded upstream
# gradient on both sides, and the inputs' gradients are compared. Edge cases where the derivative
# is a *convention* (ties, kinks at 0, clamp bounds) use exact values so both sides hit them.
# The C++ twin of each case is in ch02_autograd.cpp, same name.

# ---- elementwise binary: broadcasting and non-contiguous inputs ----------------------------------
case("add/broadcast", lambda a, b: a + b, grad=True, a=randn(3, 1), b=randn(4))
case("add/alpha", lambda a, b: torch.add(a, b, alpha=2.5), grad=True, a=randn(2, 3), b=randn(3))
case("sub/broadcast-alpha", lambda a, b: torch.sub(a, b, alpha=-0.5), grad=True, a=randn(2, 1, 3), b=randn(4, 1))
case("sub/scalar-left", lambda a: 2 - a, grad=True, a=randn(3))
case("mul/broadcast", lambda a, b: a * b, grad=True, a=randn(4, 1, 3), b=randn(2, 1))
case("mul/transposed", lambda a, b: a.t() * b, grad=True, a=randn(3, 2), b=randn(2, 3))
case("mul/scalar", lambda a: a * 3, grad=True, a=randn(2, 2))
case("mul/same-tensor", lambda a: a * a, grad=True, a=randn(5))
case("mul/0d", lambda a, b: a * b, grad=True, a=randn(2, 3), b=randn())
case("div/broadcast", lambda a, b: a / b, grad=True, a=randn(2, 3), b=positive(3))
case("div/scalar-left", lambda a: 2 / a, grad=True, a=positive(4))
case("mul/float64", lambda a, b: a * b, grad=True, a=randn(3, dtype="float64"), b=randn(3, dtype="float64"))
case("mul/mixed-float32-float64-0d", lambda a, b: a * b, grad=True, a=randn(3), b=randn(dtype="float64"))
case("pow/scalar", lambda a: a ** 3, grad=True, a=randn(2, 3))
case("pow/scalar-fraction", lambda a: a ** 0.5, grad=True, a=positive(4))
case("pow/scalar-zero", lambda a: a ** 0, grad=True, a=randn(3))
case("pow/tensor", lambda a, b: a ** b, grad=True, a=positive(2, 3), b=randn(3))
case("pow/tensor-zero-base", lambda a, b: a ** b, grad=True, a=value([0.0, 0.0, 2.0]), b=value([2.0, 0.0, 1.5]))
case("maximum/broadcast", lambda a, b: torch.maximum(a, b), grad=True, a=randn(2, 3), b=randn(3))
case("maximum/ties", lambda a, b: torch.maximum(a, b), grad=True, a=value([1.0, 2.0, 3.0]), b=value([1.0, 3.0, 3.0]))
case("minimum/ties", lambda a, b: torch.minimum(a, b), grad=True, a=value([1.0, 2.0, 3.0]), b=value([1.0, 3.0, 3.0]))
case("where/broadcast", lambda c, a, b: torch.where(c, a, b), grad=True,
     c=randint(0, 2, 2, 3, dtype="bool"), a=randn(2, 1), b=randn(3))

# ---- unary, with the conventions at kinks ------------------------------------------------------------
for name, f in [("neg", lambda x: -x), ("exp", torch.exp), ("tanh", torch.tanh), ("sigmoid", torch.sigmoid),
                ("relu", torch.relu), ("abs", torch.abs)]:
    case(f"{name}/randn", f, grad=True, x=randn(3, 4))
    case(f"{name}/transposed", lambda x, f=f: f(x.t()), grad=True, x=randn(4, 3))
case("log/positive", torch.log, grad=True, x=positive(3, 4))
case("sqrt/positive", torch.sqrt, grad=True, x=positive(3, 4))
case("relu/at-zero", torch.relu, grad=True, x=value([-1.0, 0.0, 1.0]))
case("abs/at-zero", torch.abs, grad=True, x=value([-1.0, 0.0, 1.0]))
case("clamp/both", lambda x: x.clamp(-0.5, 0.5), grad=True, x=randn(3, 4))
case("clamp/at-bounds", lambda x: x.clamp(0.0, 1.0), grad=True, x=value([-1.0, 0.0, 0.5, 1.0, 2.0]))
case("clamp/min-only", lambda x: x.clamp(min=0.0), grad=True, x=value([-1.0, 0.0, 1.0]))
case("clamp/max-only", lambda x: x.clamp(max=0.0), grad=True, x=value([-1.0, 0.0, 1.0]))

# ---- reductions -------------------------------------------------------------------------------------
case("sum/all", lambda x: x.sum(), grad=True, x=randn(2, 3))
case("sum/dims-keepdim", lambda x: x.sum((0, 2), keepdim=True), grad=True, x=randn(2, 3, 4))
case("sum/negative-dim", lambda x: x.sum(-1), grad=True, x=randn(2, 3, 4))
case("mean/all", lambda x: x.mean(), grad=True, x=randn(2, 3))
case("mean/dim", lambda x: x.mean(1), grad=True, x=randn(2, 3, 4))
case("max/all-distinct", lambda x: x.max(), grad=True, x=distinct(3, 4))
case("max/all-ties", lambda x: x.max(), grad=True, x=value([1.0, 3.0, 3.0, 2.0]))
case("min/all-ties", lambda x: x.min(), grad=True, x=value([[1.0, 3.0], [1.0, 1.0]]))
case("max/dim", lambda x: x.max(1), grad=True, x=distinct(3, 4))
case("max/dim-keepdim-ties", lambda x: x.max(1, keepdim=True), grad=True, x=value([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 0.0, 1.0]]))
case("min/dim0", lambda x: x.min(0), grad=True, x=distinct(3, 4))
case("var/all", lambda x: x.var(), grad=True, x=randn(3, 4))
case("var/dim-correction0", lambda x: torch.var(x, 1, unbiased=False, keepdim=True), grad=True, x=randn(3, 4))
case("std/all", lambda x: x.std(), grad=True, x=randn(3, 4))
case("std/dim", lambda x: x.std(0), grad=True, x=randn(3, 4))
case("std/constant", lambda x: x.std(), grad=True, x=value([2.0, 2.0, 2.0]))
case("softmax/dim1", lambda x: x.softmax(1), grad=True, x=randn(3, 4))
case("softmax/dim0", lambda x: x.softmax(0), grad=True, x=randn(3, 4))
case("log_softmax/dim-last", lambda x: x.log_softmax(-1), grad=True, x=randn(2, 3, 4))

# ---- linear algebra -----------------------------------------------------------------------------------
case("mm/plain", lambda a, b: a.mm(b), grad=True, a=randn(2, 3), b=randn(3, 4))
case("mm/transposed", lambda a, b: a.mm(b.t()), grad=True, a=randn(2, 3), b=randn(4, 3))
case("matmul/dot", lambda a, b: a @ b, grad=True, a=randn(3), b=randn(3))
case("matmul/mv", lambda a, b: a @ b, grad=True, a=randn(2, 3), b=randn(3))
case("matmul/vm", lambda a, b: a @ b, grad=True, a=randn(3), b=randn(3, 4))
case("matmul/batched-matrix", lambda a, b: a @ b, grad=True, a=randn(2, 2, 3), b=randn(3, 4))
case("matmul/matrix-batched", lambda a, b: a @ b, grad=True, a=randn(2, 3), b=randn(2, 3, 4))
case("matmul/broadcast-batch", lambda a, b: a @ b, grad=True, a=randn(2, 1, 2, 3), b=randn(3, 3, 2))
case("matmul/batched-vector", lambda a, b: a @ b, grad=True, a=randn(2, 2, 3), b=randn(3))
case("matmul/vector-batched", lambda a, b: a @ b, grad=True, a=randn(3), b=randn(2, 3, 4))

# ---- views and joins --------------------------------------------------------------------------------
case("view/flat", lambda x: x.view(6) * 2, grad=True, x=randn(2, 3))
case("reshape/copy", lambda x: x.t().reshape(6), grad=True, x=randn(2, 3))
case("permute/3d", lambda x: x.permute(2, 0, 1), grad=True, x=randn(2, 3, 4))
case("transpose/3d", lambda x: x.transpose(0, 2), grad=True, x=randn(2, 3, 4))
case("t/2d", lambda x: x.t(), grad=True, x=randn(2, 3))
case("expand/rank", lambda x: x.expand(2, 3, 4), grad=True, x=randn(3, 1))
case("squeeze/all", lambda x: x.squeeze(), grad=True, x=randn(1, 3, 1))
case("squeeze/dim", lambda x: x.squeeze(-1), grad=True, x=randn(2, 3, 1))
case("unsqueeze/dim", lambda x: x.unsqueeze(1), grad=True, x=randn(2, 3))
case("slice/step", lambda x: x[:, 1:5:2], grad=True, x=randn(3, 6))
case("select/row", lambda x: x[1], grad=True, x=randn(3, 2))
case("select/overlap", lambda x: x[0] * x[:, 0:2].sum(0), grad=True, x=randn(3, 2))
case("cat/dim1", lambda a, b: torch.cat([a, b, a], 1), grad=True, a=randn(2, 3), b=randn(2, 1))
case("stack/dim-last", lambda a, b: torch.stack([a, b], -1), grad=True, a=randn(2, 3), b=randn(2, 3))
case("clone/plain", lambda x: x.clone() * x, grad=True, x=randn(3))
case("contiguous/transposed", lambda x: x.t().contiguous(), grad=True, x=randn(2, 3))
case("to/float64", lambda x: x.to(torch.float64) * 2, grad=True, x=randn(3))

# ---- a small network: many rows composed ------------------------------------------------------------
case("mlp/log-softmax-loss", lambda x, w1, b1, w2: ((x @ w1 + b1).relu() @ w2).log_softmax(1).mean(),
     grad=True, nograd=("x",), x=randn(4, 5), w1=randn(5, 6), b1=randn(6), w2=randn(6, 3))

# ---- the graph itself: PyTorch's node names and next_functions, node for node -----------------------
# torch.matmul is a composition of primitives whose top node depends on the ranks (SqueezeBackward3,
# UnsafeViewBackward0, ...); a learner printing y.grad_fn sees the same names in Kindling.
MATMUL_SHAPES = {"dot": ((3,), (3,)), "mv": ((2, 3), (3,)), "vm": ((3,), (3, 4)), "mm": ((2, 3), (3, 4)),
                 "batched-matrix": ((5, 2, 3), (3, 4)), "batched-vector": ((5, 2, 3), (3,)),
                 "matrix-batched": ((2, 3), (5, 3, 4)), "vector-batched": ((3,), (5, 3, 4)),
                 "bmm": ((5, 2, 3), (5, 3, 4)), "broadcast-batch": ((2, 1, 2, 3), (5, 3, 4)),
                 "broadcast-one": ((5, 2, 3), (1, 3, 4)), "4d": ((4, 5, 2, 3), (4, 5, 3, 4))}
for name, (sa, sb) in MATMUL_SHAPES.items():
    case(f"graph/matmul-{name}", lambda a, b: a @ b, graph=True, a=randn(*sa), b=randn(*sb))
case("graph/matmul-one-side", lambda a, b: a @ b, graph=True, nograd=("b",), a=randn(5, 2, 3), b=randn(3, 4))
case("graph/addmm", lambda b, x, w: torch.addmm(b, x, w.t()), graph=True, b=randn(4), x=randn(2, 3), w=randn(4, 3))
case("graph/mlp", lambda x, w1, b1, w2: ((x @ w1 + b1).relu() @ w2).log_softmax(1).mean(), graph=True,
     nograd=("x",), x=randn(4, 5), w1=randn(5, 6), b1=randn(6), w2=randn(6, 3))
case("graph/views", lambda x: x.t().reshape(6).view(2, 3).unsqueeze(0).expand(2, 2, 3).sum(0)[1], graph=True,
     x=randn(2, 3))
case("graph/reductions", lambda x: (x.sum(0) + x.mean(1).sum() + x.max() + x.max(1)[0].sum() + x.var()).std(),
     graph=True, x=distinct(3, 4))
case("graph/scalar-ops", lambda x: (2 - x) * 3 / (x + 1) ** 2, graph=True, x=positive(3))
case("graph/scalar-left", lambda x: (2 * x) + (2 / x) + (2 + x) - torch.rsub(x, 3, alpha=0.5), graph=True,
     x=positive(3))

# ---- double backward: gradients of gradients (create_graph=True) -----------------------------------
# Each case returns dy/dx computed with create_graph=True; the harness then backpropagates a seeded
# gradient through it, so the inputs' gradients compared are second derivatives.
def _grad(y, x):
    return torch.autograd.grad(y, x, create_graph=True)[0]


case("double/tanh", lambda x: _grad(x.tanh().sum(), x), grad=True, x=randn(3, 4))
case("double/sigmoid-exp", lambda x, w: _grad((x.sigmoid() * x.exp() * w).sum(), x), grad=True,
     x=randn(5), w=randn(5))
case("double/div-pow-log", lambda x: _grad(((1 / x).pow(3) + x.log() * x.sqrt()).sum(), x), grad=True, x=positive(4))
case("double/softmax", lambda x, w: _grad((x.softmax(1) * w).sum(), x), grad=True, nograd=("w",),
     x=randn(2, 4), w=randn(4))
case("double/log-softmax", lambda x, w: _grad((x.log_softmax(1) * w).sum(), x), grad=True, nograd=("w",),
     x=randn(2, 4), w=randn(2, 4))
case("double/mm", lambda a, b: _grad((a @ b).pow(2).sum(), a), grad=True, a=randn(2, 3), b=randn(3, 4))
case("double/matmul-batched", lambda a, b: _grad((a @ b).tanh().sum(), b), grad=True, a=randn(2, 2, 3),
     b=randn(3, 4))
case("double/broadcast", lambda x, b: _grad(((x * b + b) ** 2).sum(), b), grad=True, x=randn(3, 4), b=randn(4))
case("double/var-std", lambda x: _grad(x.var(1).sum() + x.std(), x), grad=True, x=randn(3, 4))
case("double/slice-select", lambda x: _grad((x[:, 1:3] ** 2).sum() + (x[0] ** 3).sum(), x), grad=True, x=randn(3, 4))
case("double/max-where", lambda x: _grad((x.max(1)[0] ** 2).sum() + torch.where(x > 0, x * x, -x).sum(), x),
     grad=True, x=distinct(3, 4))
case("double/cat-stack", lambda a, b: _grad((torch.cat([a, b]) ** 2).sum() + (torch.stack([a, b]) ** 3).sum(), a),
     grad=True, a=randn(2, 3), b=randn(2, 3))
# A gradient penalty (WGAN-GP): the norm of d out/d x, pushed towards 1, is part of the loss.
case("double/gradient-penalty",
     lambda x, w: ((_grad((x @ w).tanh().sum(), x).pow(2).sum(1).sqrt() - 1) ** 2).mean(),
     grad=True, x=randn(4, 3), w=randn(3, 2))
# A Hessian-vector product H v without building H: the gradient of (grad f · v).
case("double/hessian-vector-product",
     lambda x, v: torch.autograd.grad((_grad((x.tanh() * x).sum() + (x ** 3).sum(), x) * v).sum(), x,
                                      create_graph=True)[0],
     grad=True, nograd=("v",), x=randn(5), v=randn(5))

# ---- issue 18: x[...] is a new view (AliasBackward0), not x itself --------------------------------
case("graph/ellipsis-alias", lambda x: x[...] * 2, graph=True, x=randn(2, 3))
case("graph/ellipsis-alias-0d", lambda x: x[...].exp(), graph=True, x=randn())


def _retained(x):
    # the alias is not a leaf: it keeps its own gradient only when asked, like any other view
    y = x[...]
    y.retain_grad()
    (y * y).sum().backward()
    return y.grad, x.grad


case("ellipsis/retain-grad-of-alias", _retained, grad=True, x=randn(3))


# ---- issue 18: a second backward without retain_graph, and saved tensors edited in place ----------
# PyTorch refuses exactly when a node of the graph needs a saved tensor it has already freed; graphs
# whose nodes save nothing (add, sub, neg, sum, view) run again and accumulate.
def _twice(y):
    y.backward()
    y.backward()
    return y


for name, f in [("add-scalar", lambda x: (x + 1).sum()), ("sub", lambda x: (x - 1).sum()),
                ("neg", lambda x: (-x).sum()), ("mean", lambda x: x.mean()),
                ("view", lambda x: x.view(3, 1).sum()), ("clone", lambda x: x.clone().sum()),
                ("sum-of-empty-slice", lambda x: x[:0].sum())]:
    case(f"backward-twice/{name}", lambda x, f=f: _twice(f(x)), grad=True, x=randn(3))
# The gradient of an empty leaf is an expanded (stride-0) empty tensor: accumulating into it again is fine.
case("backward-twice/sum-empty-leaf", lambda x: _twice(x.sum()), grad=True, x=randn(0, 4))
case("backward-twice/sum-dim-empty-leaf", lambda x: _twice(x.sum(0).sum()), grad=True, x=randn(0, 4))
for name, f in [("mul-scalar", lambda x: (x * 2).sum()), ("div-scalar", lambda x: (x / 2).sum()),
                ("mul-self", lambda x: (x * x).sum()), ("exp", lambda x: x.exp().sum()),
                ("relu", lambda x: x.relu().sum()), ("tanh", lambda x: x.tanh().sum()),
                ("sigmoid", lambda x: x.sigmoid().sum()), ("pow", lambda x: (x ** 2).sum()),
                ("max", lambda x: x.max()), ("softmax", lambda x: x.softmax(0).sum()),
                ("matmul", lambda x: (x.view(1, 3) @ x.view(3, 1)).sum())]:
    case(f"backward-twice/{name}-refused", lambda x, f=f: _twice(f(x)), grad=True, expect_error=True, x=randn(3))


def _edit_saved(x):
    y = x.exp()             # ExpBackward0 saves its result y
    y.detach().add_(1)      # same storage: y's version moves on
    return y.sum()


case("saved-edited/exp-result-through-detach", lambda x: _twice(_edit_saved(x)), grad=True, expect_error=True,
     x=randn(3))
case("saved-edited/exp-result-backward", lambda x: _edit_saved(x).backward(), grad=True, expect_error=True, x=randn(3))


def _edit_input(x):
    a = x * 1
    y = a * a               # MulBackward0 saves a (both sides)
    a.detach().mul_(2)
    y.sum().backward()


case("saved-edited/mul-input-through-detach", _edit_input, grad=True, expect_error=True, x=randn(3))

# ---- more pointwise functions (issue 18): gradients, and the graph's node names ------------------
for name, inp in [("sin", randn(3, 4, scale=3)), ("cos", randn(3, 4, scale=3)), ("log1p", rand(3, 4, low=-0.9, high=3)),
                  ("expm1", randn(3, 4)), ("erf", randn(3, 4, scale=2)), ("floor", randn(3, 4, scale=3)),
                  ("ceil", randn(3, 4, scale=3)), ("round", randn(3, 4, scale=3)), ("trunc", randn(3, 4, scale=3)),
                  ("sign", randn(3, 4))]:
    f = getattr(torch, name)
    case(f"{name}/grad-transposed", lambda x, f=f: f(x.t()), graph=True, x=inp)
    case(f"{name}/grad-float64", f, grad=True, x=Input(inp.kind, inp.shape, "float64", **inp.opts))

# ---- indexing with tensors (issue 18): gradients flow back to the positions they came from -------
case("index_select/repeats", lambda x, i: x.index_select(0, i), graph=True, x=randn(4, 3),
     i=value([3, 0, 0, 2], dtype="int64"))
case("index_select/dim1-transposed", lambda x, i: x.t().index_select(1, i), grad=True, x=randn(3, 4),
     i=value([1, 1, 2], dtype="int64"))
case("index_select/0d-index", lambda x, i: x.index_select(1, i), grad=True, x=randn(2, 3), i=value(2, dtype="int64"))
case("gather/repeats", lambda x, i: x.gather(1, i), graph=True, x=randn(3, 4), i=value([[0, 0], [3, 1], [2, 2]], dtype="int64"))
case("gather/3d-transposed", lambda x, i: x.transpose(0, 2).gather(1, i), grad=True, x=randn(2, 3, 4),
     i=randint(0, 3, 4, 2, 2))
case("gather/nll-by-hand", lambda x, t: -x.log_softmax(1).gather(1, t.unsqueeze(1)).mean(), grad=True, x=randn(5, 4),
     t=randint(0, 4, 5))
case("scatter_add/both", lambda x, i, s: x.scatter_add(0, i, s), graph=True, x=randn(3, 4), i=randint(0, 3, 5, 4),
     s=randn(5, 4))
# (an index smaller than src: PyTorch 1.13's own backward fails there, so the case keeps src = index's shape)
case("scatter_add/index-smaller-than-self", lambda x, i, s: x.scatter_add(1, i, s), grad=True, x=randn(3, 4),
     i=randint(0, 4, 2, 2), s=randn(2, 2))
case("scatter/both", lambda x, i, s: x.scatter(1, i, s), graph=True, x=randn(3, 4),
     i=value([[0, 2], [1, 3], [3, 0]], dtype="int64"), s=randn(3, 2))
case("scatter/value", lambda x, i: x.scatter(1, i, 5.0), graph=True, x=randn(3, 4), i=value([[0], [3], [1]], dtype="int64"))
case("masked_fill/broadcast", lambda x, m: x.masked_fill(m, 0.5), graph=True, x=randn(3, 4), m=randint(0, 2, 4, dtype="bool"))
case("masked_fill/mask-broadcasts-self", lambda x, m: x.masked_fill(m, 0.5), grad=True, x=randn(4),
     m=randint(0, 2, 3, 4, dtype="bool"))

# ---- tril/triu, flip, outer (issue 18) --------------------------------------------------------------
case("tril/graph", lambda x: torch.tril(x, 1), graph=True, x=randn(3, 4))
case("triu/batched-transposed", lambda x: torch.triu(x.transpose(1, 2), -1), grad=True, x=randn(2, 4, 3))
case("flip/graph", lambda x: x.t().flip((0, 1)), graph=True, x=randn(3, 4))
case("outer/graph", torch.outer, graph=True, a=randn(3), b=randn(4))
