# Parity of the ops a PyTorch learner reaches for beyond chapter 1's core: ordering (sort, argsort,
# topk), more reductions (amax/amin, prod, cumsum, cumprod, logsumexp, norm), Python's // and %,
# numbers on the left of comparisons, cutting and tiling (split, chunk, repeat, roll,
# take_along_dim) and einsum -- values, gradients, and the errors PyTorch raises.
# The C++ twin of each case is in ch02_ops.cpp, same name.
inf = float("inf")
nan = float("nan")

# ---- ordering --------------------------------------------------------------------------------------
case("sort/last-dim", lambda x: torch.sort(x), grad=True, x=distinct(3, 5))
case("sort/dim0-descending", lambda x: torch.sort(x, 0, descending=True), grad=True, x=distinct(4, 3))
case("sort/transposed", lambda x: torch.sort(x.t(), 1), grad=True, x=distinct(4, 3))
case("sort/nan-last", lambda x: torch.sort(x), x=value([3.0, nan, -1.0, inf, -inf]))
case("sort/nan-first-descending", lambda x: torch.sort(x, descending=True), x=value([3.0, nan, -1.0, inf]))
case("sort/int64", lambda x: torch.sort(x, descending=True), x=value([[3, -1, 7], [0, 2, 1]], dtype="int64"))
case("sort/bool", lambda x: torch.sort(x), x=value([True, False, True, False], dtype="bool"))
case("sort/0d", lambda x: torch.sort(x), x=randn())
case("sort/empty", lambda x: torch.sort(x, 1), x=randn(0, 3))
case("sort/bad-dim", lambda x: torch.sort(x, 2), x=randn(2, 3), expect_error=True)
case("argsort/dim1", lambda x: torch.argsort(x, 1), x=distinct(3, 4))
case("argsort/descending", lambda x: torch.argsort(x, 0, descending=True), x=distinct(5, 2))
case("topk/largest", lambda x: torch.topk(x, 2), grad=True, x=distinct(3, 5))
case("topk/smallest-dim0", lambda x: torch.topk(x, 3, dim=0, largest=False), grad=True, x=distinct(4, 3))
case("topk/k0", lambda x: torch.topk(x, 0), x=randn(2, 3))
case("topk/k-too-big", lambda x: torch.topk(x, 4), x=randn(2, 3), expect_error=True)
case("topk/k-negative", lambda x: torch.topk(x, -1), x=randn(2, 3), expect_error=True)

# ---- more reductions ---------------------------------------------------------------------------
case("amax/dims", lambda x: torch.amax(x, (0, 2)), grad=True, x=randn(2, 3, 4))
case("amax/keepdim-transposed", lambda x: torch.amax(x.t(), 1, keepdim=True), grad=True, x=randn(3, 4))
case("amax/all", lambda x: torch.amax(x), grad=True, x=randn(3, 4))
case("amax/ties-share", lambda x: torch.amax(x, 1), grad=True, x=value([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]))
case("amin/ties-share", lambda x: torch.amin(x, 0), grad=True, x=value([[1.0, 3.0], [1.0, 2.0], [4.0, 2.0]]))
case("amax/nan", lambda x: torch.amax(x, 1), x=value([[1.0, nan], [2.0, 0.0]]))
case("amax/int64", lambda x: torch.amax(x, 0), x=value([[3, -1], [-5, 2]], dtype="int64"))
case("amax/empty-dim", lambda x: torch.amax(x, 0), x=randn(0, 3), expect_error=True)
case("amax/empty-other-dim", lambda x: torch.amax(x, 1), x=randn(0, 3))
case("prod/all", lambda x: torch.prod(x), grad=True, x=rand(2, 3, low=0.5, high=1.5))
case("prod/dim", lambda x: torch.prod(x, 1), grad=True, x=rand(3, 4, low=-1.5, high=1.5))
case("prod/keepdim-transposed", lambda x: torch.prod(x.t(), 0, keepdim=True), grad=True, x=randn(3, 4))
case("prod/one-zero", lambda x: torch.prod(x, 1), grad=True, x=value([[2.0, 0.0, 3.0], [1.0, 2.0, 4.0]]))
case("prod/two-zeros", lambda x: torch.prod(x), grad=True, x=value([0.0, 2.0, 0.0, 5.0]))
case("prod/int64", lambda x: torch.prod(x, 0), x=value([[3, -1], [-5, 2]], dtype="int64"))
case("prod/bool", lambda x: torch.prod(x), x=value([True, True, False], dtype="bool"))
case("prod/empty", lambda x: torch.prod(x, 0), x=randn(0, 3))
case("cumsum/dim1", lambda x: torch.cumsum(x, 1), grad=True, x=randn(3, 4))
case("cumsum/dim0-transposed", lambda x: torch.cumsum(x.t(), 0), grad=True, x=randn(3, 4))
case("cumsum/uint8-to-int64", lambda x: torch.cumsum(x, 0), x=value([200, 100, 50], dtype="uint8"))
case("cumsum/0d", lambda x: torch.cumsum(x, 0), grad=True, x=randn())
case("cumsum/empty", lambda x: torch.cumsum(x, 1), x=randn(2, 0))
case("cumsum/bad-dim", lambda x: torch.cumsum(x, 2), x=randn(2, 3), expect_error=True)
case("cumprod/dim1", lambda x: torch.cumprod(x, 1), grad=True, x=rand(3, 4, low=0.5, high=1.5))
case("cumprod/negative", lambda x: torch.cumprod(x, 0), grad=True, x=rand(5, 2, low=-1.5, high=1.5))
case("cumprod/zeros", lambda x: torch.cumprod(x, 1), grad=True,
     x=value([[2.0, 0.0, 3.0, 0.0, 4.0], [1.0, 2.0, 3.0, 4.0, 0.0], [0.0, 1.0, 2.0, 3.0, 4.0]]))
case("cumprod/int64", lambda x: torch.cumprod(x, 0), x=value([3, -1, 2], dtype="int64"))
case("logsumexp/dim", lambda x: torch.logsumexp(x, 1), grad=True, x=randn(3, 4, scale=3))
case("logsumexp/large-values", lambda x: torch.logsumexp(x, 0), grad=True, x=value([1000.0, 1000.0, 999.0]))
case("logsumexp/keepdim-dims", lambda x: torch.logsumexp(x.transpose(0, 2), (0, 1), keepdim=True), grad=True,
     x=randn(2, 3, 4))
case("logsumexp/neg-inf-row", lambda x: torch.logsumexp(x, 1), x=value([[-inf, -inf], [0.0, -inf]]))
case("logsumexp/int64", lambda x: torch.logsumexp(x, 0), x=value([1, 2, 3], dtype="int64"))
case("norm/2-all", lambda x: torch.norm(x), grad=True, x=randn(3, 4))
case("norm/2-dim", lambda x: torch.norm(x, 2, 1), grad=True, x=randn(3, 4))
case("norm/2-at-zero", lambda x: torch.norm(x, 2, 1), grad=True, x=value([[0.0, 0.0], [3.0, 4.0]]))
case("norm/1-keepdim", lambda x: torch.norm(x, 1, 0, keepdim=True), grad=True, x=randn(3, 4))
case("norm/inf", lambda x: torch.norm(x, inf, 1), grad=True, x=distinct(3, 4))
case("norm/3", lambda x: torch.norm(x.t(), 3, 0), grad=True, x=randn(3, 4))
case("norm/0", lambda x: torch.norm(x, 0), x=value([0.0, 1.5, 0.0, -2.0]))
# p < 2 with zero elements: x |x|^(p-2) is 0 * inf there, PyTorch's gradient is 0.
case("norm/1.5-zeros", lambda x: torch.norm(x, 1.5, 1), grad=True,
     x=value([[0.0, 2.0, -1.0], [0.0, 0.0, 0.0], [-0.5, 0.0, 3.0]]))
case("norm/0.5-zeros", lambda x: torch.norm(x, 0.5), grad=True, x=value([[0.0, 2.0, -1.0], [0.0, 0.25, 0.0]]))
case("norm/int-refused", lambda x: torch.norm(x), x=value([1, 2], dtype="int64"), expect_error=True)

# ---- // and %, numbers on the left -----------------------------------------------------------
case("floor_divide/float", lambda a, b: a // b, a=value([5.0, -5.0, 3.5, 7.5, -0.0, 1.0]),
     b=value([2.0, 2.0, -1.5, 2.5, 3.0, 0.0]))
case("floor_divide/int64", lambda a, b: a // b, a=value([7, -7, 7, -7], dtype="int64"),
     b=value([2, 2, -2, -2], dtype="int64"))
case("floor_divide/number-left", lambda b: 7 // b, b=value([2, -2, 3], dtype="int64"))
case("floor_divide/uint8-scalar", lambda a: a // 3, a=value([7, 200, 0], dtype="uint8"))
case("floor_divide/int-by-zero", lambda a: a // 0, a=value([3], dtype="int64"), expect_error=True)
case("floor_divide/bool", lambda a, b: a // b, a=value([True], dtype="bool"), b=value([True], dtype="bool"),
     expect_error=True)
case("remainder/float-grad", lambda a, b: a % b, grad=True, a=value([5.0, -5.0, 3.5, -7.25]),
     b=value([2.0, 2.0, -1.5, 2.5]))
case("remainder/broadcast-scalar", lambda a: a % 1.5, grad=True, a=randn(2, 3, scale=4))
case("remainder/int64", lambda a, b: a % b, a=value([7, -7, 7, -7], dtype="int64"), b=value([2, 2, -2, -2], dtype="int64"))
case("remainder/number-left", lambda b: 7 % b, b=value([2, -2, 3], dtype="int64"))
case("remainder/int-by-zero", lambda a: a % 0, a=value([3], dtype="int64"), expect_error=True)
case("xlogy/grad", torch.xlogy, grad=True, x=randn(3, 4), y=rand(3, 4, low=0.1, high=3))
case("xlogy/zeros-and-nan", torch.xlogy, grad=True, x=value([0.0, 0.0, 2.0, 0.0, 1.5]),
     y=value([0.0, 2.0, 0.0, float("nan"), -1.0]))
case("xlogy/same-tensor-zero", lambda t: torch.xlogy(t, t), grad=True, t=value([0.0, 0.5, 2.0]))
case("xlogy/broadcast-transposed", lambda x, y: torch.xlogy(x.t(), y), grad=True, x=randn(4, 3),
     y=rand(4, low=0.5, high=2))
case("xlogy/int64", torch.xlogy, x=value([0, 1, 2], dtype="int64"), y=value([0, 3, 4], dtype="int64"))
case("xlogy/scalar-right", lambda x: torch.xlogy(x, 3.0), grad=True, x=randn(2, 3))
case("xlogy/scalar-left", lambda y: torch.xlogy(2, y), grad=True, y=rand(5, low=0.1, high=2))
case("compare/number-left", lambda x: (2 < x, 2 <= x, 2 > x, 2 >= x, 2 == x, 2 != x),
     x=value([1.0, 2.0, 3.0]))

# ---- split, chunk, repeat, roll, take_along_dim ---------------------------------------------------
case("split/size", lambda x: x.split(2), grad=True, x=randn(5, 3))
case("split/sizes-dim1", lambda x: x.split([1, 3], 1), grad=True, x=randn(2, 4))
case("split/bad-sizes", lambda x: x.split([1, 1]), x=randn(3), expect_error=True)
case("split/zero-size", lambda x: x.split(0), x=randn(3), expect_error=True)
case("split/0d", lambda x: x.split(1), x=randn(), expect_error=True)
case("chunk/uneven", lambda x: x.chunk(3), grad=True, x=randn(5, 2))
case("chunk/fewer", lambda x: x.chunk(4, 1), grad=True, x=randn(2, 6))
case("chunk/zero", lambda x: x.chunk(0), x=randn(3), expect_error=True)
case("repeat/2d", lambda x: x.repeat(2, 3), grad=True, x=randn(2, 3))
case("repeat/more-dims", lambda x: x.repeat(2, 1, 2), grad=True, x=randn(3))
case("repeat/transposed", lambda x: x.t().repeat(1, 2), grad=True, x=randn(2, 3))
case("repeat/zero", lambda x: x.repeat(0, 2), grad=True, x=randn(2, 3))
case("repeat/too-few", lambda x: x.repeat(2), x=randn(2, 3), expect_error=True)
case("roll/flat", lambda x: x.roll(1), grad=True, x=randn(2, 3))
case("roll/dims", lambda x: x.roll((-4, 1), (1, 0)), grad=True, x=randn(2, 3))
case("roll/misaligned", lambda x: x.roll((1,), (0, 1)), x=randn(2, 3), expect_error=True)
case("take_along_dim/argmax", lambda x: torch.take_along_dim(x, x.argmax(1, keepdim=True), 1), grad=True,
     x=distinct(3, 4))
case("take_along_dim/broadcast", lambda x, i: torch.take_along_dim(x, i, 1), grad=True, x=randn(3, 4),
     i=value([[0, 3, 3]], dtype="int64"))
case("take_along_dim/flat", lambda x, i: torch.take_along_dim(x, i), grad=True, x=randn(3, 4),
     i=value([11, 0, 5], dtype="int64"))
case("take_along_dim/float-index", lambda x, i: torch.take_along_dim(x, i, 1), x=randn(2, 2),
     i=value([[0.0], [1.0]]), expect_error=True)

# ---- einsum ----------------------------------------------------------------------------------
case("einsum/matmul", lambda a, b: torch.einsum("ij,jk->ik", a, b), grad=True, a=randn(2, 3), b=randn(3, 4))
case("einsum/bmm", lambda a, b: torch.einsum("bij,bjk->bik", a, b), grad=True, a=randn(2, 2, 3), b=randn(2, 3, 4))
case("einsum/dot", lambda a, b: torch.einsum("i,i->", a, b), grad=True, a=randn(5), b=randn(5))
case("einsum/outer", lambda a, b: torch.einsum("i,j->ij", a, b), grad=True, a=randn(3), b=randn(4))
case("einsum/transpose", lambda a: torch.einsum("ij->ji", a), grad=True, a=randn(2, 3))
case("einsum/trace", lambda a: torch.einsum("ii", a), grad=True, a=randn(3, 3))
case("einsum/diagonal", lambda a: torch.einsum("ii->i", a), grad=True, a=randn(3, 3))
case("einsum/sum-rows", lambda a: torch.einsum("ij->i", a), grad=True, a=randn(2, 3))
case("einsum/implicit", lambda a, b: torch.einsum("ij,jk", a, b), grad=True, a=randn(2, 3), b=randn(3, 4))
case("einsum/attention", lambda q, k: torch.einsum("bhqd,bhkd->bhqk", q, k), grad=True, q=randn(2, 2, 3, 4),
     k=randn(2, 2, 5, 4))
case("einsum/ellipsis", lambda a, b: torch.einsum("...ij,...jk->...ik", a, b), grad=True, a=randn(2, 3, 4),
     b=randn(4, 5))
case("einsum/three", lambda a, b, c: torch.einsum("ij,jk,kl->il", a, b, c), grad=True, a=randn(2, 3),
     b=randn(3, 4), c=randn(4, 2))
case("einsum/bilinear", lambda x, w, y: torch.einsum("bi,oij,bj->bo", x, w, y), grad=True, x=randn(2, 3),
     w=randn(4, 3, 5), y=randn(2, 5))
# bool and uint8: a diagonal keeps the dtype; a product with nothing contracted is a mul (uint8 wraps
# around as PyTorch's does); summing a dim out promotes to int64 like sum.
case("einsum/diagonal-bool", lambda a: torch.einsum("ii->i", a), a=value([[True, False], [True, True]], dtype="bool"))
case("einsum/diagonal-uint8", lambda a: torch.einsum("ii->i", a), a=randint(0, 256, 3, 3, dtype="uint8"))
case("einsum/outer-bool", lambda a, b: torch.einsum("i,j->ij", a, b), a=value([True, False], dtype="bool"),
     b=value([True, True, False], dtype="bool"))
case("einsum/outer-uint8", lambda a, b: torch.einsum("i,j->ij", a, b), a=randint(0, 256, 3, dtype="uint8"),
     b=randint(0, 256, 4, dtype="uint8"))
case("einsum/batch-outer-int64", lambda a, b: torch.einsum("bi,bj->bij", a, b), a=randint(-5, 5, 2, 3),
     b=randint(-5, 5, 2, 4))
case("einsum/sum-rows-uint8", lambda a: torch.einsum("ij->i", a), a=randint(0, 256, 2, 3, dtype="uint8"))
case("einsum/size-mismatch", lambda a, b: torch.einsum("ij,jk->ik", a, b), a=randn(2, 3), b=randn(4, 4),
     expect_error=True)
case("einsum/too-few-terms", lambda a, b: torch.einsum("ij->ij", a, b), a=randn(2, 3), b=randn(3, 4),
     expect_error=True)
case("einsum/unknown-output", lambda a: torch.einsum("ij->k", a), a=randn(2, 3), expect_error=True)

# ---- advanced indexing: masks and position tensors --------------------------------------------
def _put(x, idx, v):
    y = x.detach().clone()
    y[idx] = v
    return y


case("index/mask", lambda x: x[x > 0], grad=True, x=randn(3, 4))
case("index/mask-rows", lambda x, m: x[m], grad=True, x=randn(3, 4), m=value([True, False, True], dtype="bool"))
case("index/mask-after-slice", lambda x, m: x[:, m], grad=True, x=randn(2, 3, 4),
     m=value([True, False, True], dtype="bool"))
case("index/mask-2d-of-3d", lambda x, m: x[m], grad=True, x=randn(2, 3, 4), m=randint(0, 2, 2, 3, dtype="bool"))
case("index/mask-uint8", lambda x, m: x[m.bool()], x=randn(3), m=value([1, 0, 1], dtype="uint8"))
case("index/mask-true-0d", lambda x: x[torch.tensor(True)], grad=True, x=randn(2, 3))
case("index/mask-bad-shape", lambda x, m: x[m], x=randn(2, 3), m=value([True, False, True], dtype="bool"),
     expect_error=True)
case("index/positions", lambda x, i: x[i], grad=True, x=randn(4, 3), i=value([3, 0, 0, -1], dtype="int64"))
case("index/positions-2d", lambda x, i: x[:, i], grad=True, x=randn(2, 5), i=value([[0, 4], [1, 1]], dtype="int64"))
case("index/two-adjacent", lambda x, i, j: x[:, i, j], grad=True, x=randn(2, 3, 4),
     i=value([0, 2], dtype="int64"), j=value([[1], [3]], dtype="int64"))
case("index/separated-go-first", lambda x, i, j: x[i, :, j], grad=True, x=randn(2, 3, 4),
     i=value([0, 1, 1], dtype="int64"), j=value([3, 0, 2], dtype="int64"))
case("index/int-then-positions", lambda x, i: x[0, :, i], grad=True, x=randn(2, 3, 4), i=value([0, 1], dtype="int64"))
case("index/none-and-positions", lambda x, i: x[None, i], grad=True, x=randn(3, 2), i=value([2, 0], dtype="int64"))
case("index/ellipsis-positions", lambda x, i: x[..., i], grad=True, x=randn(2, 3, 4), i=value([3, 1], dtype="int64"))
case("index/0d-position", lambda x, i: x[i], grad=True, x=randn(3, 2), i=value(1, dtype="int64"))
case("index/empty-positions", lambda x, i: x[i], grad=True, x=randn(3, 2), i=value([], dtype="int64"))
case("index/transposed-source", lambda x, i: x.t()[i], grad=True, x=randn(3, 4), i=value([1, 3], dtype="int64"))
case("index/out-of-range", lambda x, i: x[i], x=randn(2, 3), i=value([5], dtype="int64"), expect_error=True)
case("index/float-positions", lambda x, i: x[i], x=randn(2, 3), i=value([0.0]), expect_error=True)
case("index_put/mask-scalar", lambda x: _put(x, x > 0, 0.0), x=randn(3, 4))
case("index_put/mask-tensor", lambda x, v: _put(x, x < 0, v), x=value([[-1.0, 2.0], [3.0, -4.0]]),
     v=value([10.0, 20.0]))
case("index_put/positions-broadcast", lambda x, i, v: _put(x, (slice(None), i), v), x=randn(2, 5),
     i=value([0, 2], dtype="int64"), v=value([[1.0, 2.0]]))
case("index_put/two-positions", lambda x, i, j, v: _put(x, (i, j), v), x=randn(3, 3),
     i=value([0, 2], dtype="int64"), j=value([1, 1], dtype="int64"), v=value([7.0, 8.0]))
case("index_put/rows", lambda x, i: _put(x, i, 5.0), x=randn(3, 2), i=value([2, 0], dtype="int64"))
case("index_put/bad-value-shape", lambda x, i, v: _put(x, i, v), x=randn(3, 2), i=value([0, 1], dtype="int64"),
     v=value([1.0, 2.0, 3.0]), expect_error=True)
case("nonzero/2d", lambda x: torch.nonzero(x), x=value([[0.0, 1.0], [2.0, 0.0]]))
case("nonzero/empty", lambda x: torch.nonzero(x), x=randn(0, 3))
case("prod/int64-wraps", lambda x: torch.prod(x), x=value([2 ** 62, 4, 3], dtype="int64"))
case("cumsum/int64-wraps", lambda x: torch.cumsum(x, 0), x=value([2 ** 62, 2 ** 62, 2 ** 62], dtype="int64"))
