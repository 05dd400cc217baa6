# Chapter 8's graded tests, PyTorch's side (see tests/grading/twins.py): what the chapter's kernels,
# run on the kernel emulator, must compute -- elementwise ops with broadcasting, sums, matmul and
# softmax on the CPU in PyTorch, and the strided views the device-to-host copy brings back.


def ops(name, a, b):
    return {f"{name}: a + b": a + b, f"{name}: a - b": a - b, f"{name}: a * b": a * b,
            f"{name}: a / b": a / b}


@case("binary kernel: two vectors of the same length; an empty one launches nothing", a=randn(37), b=randn(37))
def _(a, b):
    return ops("[37]", a, b)


@case("binary kernel: broadcasting a column, a row and a scalar", col=randn(5, 1), row=randn(1, 7),
      s=value(2.5))
def _(col, row, s):
    return ops("[5, 1] with [1, 7]", col, row) | ops("[5, 1] with 0-d", col, s)


@case("binary kernel: transposed and sliced inputs (strides, an offset)", a=randn(4, 1, 6),
      big=randn(6, 5))
def _(a, big):
    return ops("[4, 1, 6] with big[:, 1:4].t()", a, big[:, 1:4].t())


@case("binary kernel: many blocks", a=randn(3, 700), b=randn(700))
def _(a, b):
    return ops("[3, 700] with [700]", a, b)


# Sums of float32 in different orders differ by a few ulps times sqrt(n): compare with float64 sums,
# within a tolerance that scales with the length.
def fsum(x):
    return x.double().sum().float()


@case("block sum: lengths around the block size", x=randn(1000))
def _(x):
    return {f"sum(x[:{n}])": approx(fsum(x[:n]), rtol=1e-4, atol=1e-4)
            for n in (1, 31, 255, 256, 257, 1000)}


@case("block sum: many blocks add into out", x=randn(100000))
def _(x):
    return {"1.5 + sum(x)": approx(fsum(x) + 1.5, rtol=1e-4, atol=2e-3)}


@case("block sum: a tree in shared memory, without shuffles", x=randn(3000))
def _(x):
    return {"sum(x)": approx(fsum(x), rtol=1e-4, atol=5e-4)}


@case("block sum: an empty vector adds nothing", x=randn(10))
def _(x):
    return {"2.5 + sum(x[:0])": torch.tensor(2.5)}


# Products of K terms summed in another order: a tolerance in absolute terms too.
def mm(a, b):
    return approx(a @ b, rtol=1e-4, atol=1e-4)


@case("tiled matmul: shapes that are not multiples of 16", a1=randn(33, 29), b1=randn(29, 47),
      a2=randn(17, 40), b2=randn(40, 1))
def _(a1, b1, a2, b2):
    return {"[33, 29] @ [29, 47]": mm(a1, b1), "[17, 40] @ [40, 1]": mm(a2, b2)}


@case("tiled matmul: one row, one column, K = 1, K = 0, an empty c", a1=randn(1, 1), b1=randn(1, 1),
      a2=randn(1, 3), b2=randn(3, 20), a3=randn(20, 3), b3=randn(3, 1), a4=randn(5, 0), b4=randn(0, 7))
def _(a1, b1, a2, b2, a3, b3, a4, b4):
    return {"[1, 1] @ [1, 1]": mm(a1, b1), "[1, 3] @ [3, 20]": mm(a2, b2), "[20, 3] @ [3, 1]": mm(a3, b3),
            "[5, 0] @ [0, 7]": mm(a4, b4)}


@case("tiled matmul: one 16x16 block per tile, tiles in shared memory", a=randn(40, 35), b=randn(35, 50))
def _(a, b):
    return {"[40, 35] @ [35, 50]": mm(a, b)}


@case("tiled matmul: a larger product, 70 x 50 x 90", a=randn(70, 50), b=randn(50, 90))
def _(a, b):
    return {"[70, 50] @ [50, 90]": mm(a, b)}


@case("softmax rows: widths below, at and above the block", x7=randn(4, 7), x128=randn(3, 128),
      x300=randn(2, 300, scale=5.0))
def _(x7, x128, x300):
    return {f"softmax({n}, 1)": x.softmax(1) for n, x in (("x7", x7), ("x128", x128), ("x300", x300))}


@case("softmax rows: large logits do not overflow", x=randn(3, 50, scale=50.0, shift=100.0))
def _(x):
    return {"softmax(50 x + 100, 1)": x.softmax(1)}


@case("softmax rows: one block per row; an empty matrix launches nothing", x=randn(6, 45))
def _(x):
    return {"softmax(x, 1)": x.softmax(1)}


@case("strided copy: a transpose comes back from the device", x=randn(3, 4))
def _(x):
    return {"x.t()": x.t().contiguous(), "x": x}


@case("strided copy: slices with steps and offsets", x=randn(5, 6))
def _(x):
    return {"x[1:5:2, 2:6]": x[1:5:2, 2:6], "x[:, 3]": x[:, 3], "x[4, 1:]": x[4, 1:]}


@case("strided copy: an expanded view and a 0-d tensor", col=randn(3, 1))
def _(col):
    return {"col.expand(3, 4)": col.expand(3, 4), "col[2, 0]": col[2, 0]}


@case("strided copy: empty tensors, float64 and int64", d=randn(4, 3, dtype="float64"),
      i=randint(-50, 50, 3, 4))
def _(d, i):
    return {"d.t()": d.t(), "i[:, ::2]": i[:, ::2], "d[:0]": d[:0]}
