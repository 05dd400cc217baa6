# Chapter 1's graded tests, PyTorch's side (see tests/grading/twins.py). Each @case twins the TEST_CASE
# of the same name in tests/grading/ch01/*.cpp: it makes the inputs and says, with PyTorch 1.13, what each
# result the C++ test reports must be. Nothing here is typed in by hand but inputs.
import numpy as np


def s(v):
    """[2, 3] — how both sides spell a list of integers in a result's name."""
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def lines(items):
    """One list of integers per line ("-" for the empty list): a text input the C++ side parses."""
    return "\n".join(" ".join(str(x) for x in it) if len(it) else "-" for it in items) + "\n"


def apply_view(t, program):
    """The view programs of ch01_grading.hpp ("t; slice 1 0 6 2"), applied with PyTorch."""
    for op in program.split(";"):
        words = op.split()
        if not words:
            continue
        verb, a = words[0], [int(w) for w in words[1:]]
        if verb == "t":
            t = t.t()
        elif verb == "permute":
            t = t.permute(*a)
        elif verb == "transpose":
            t = t.transpose(a[0], a[1])
        elif verb == "slice":
            idx = [slice(None)] * a[0] + [slice(a[1], a[2], a[3])]
            t = t[tuple(idx)]
        elif verb == "narrow":
            t = t.narrow(a[0], a[1], a[2])
        elif verb == "select":
            t = t.select(a[0], a[1])
        elif verb == "expand":
            t = t.expand(*a)
        elif verb == "unsqueeze":
            t = t.unsqueeze(a[0])
        else:
            raise SystemExit(f"unknown view op {verb}")
    return t


# The layouts most tests walk: contiguous, transposed, permuted, stepped slices, offsets, selects,
# stride-0 expands, size-1 dims with odd strides, 0-d and empty tensors.
ZOO = [
    ("contiguous [2, 3, 4]", (2, 3, 4), ""),
    ("transposed [3, 4].t()", (3, 4), "t"),
    ("permuted [2, 3, 4] -> (2, 0, 1)", (2, 3, 4), "permute 2 0 1"),
    ("stepped slice [3, 7][:, 1::2]", (3, 7), "slice 1 1 7 2"),
    ("narrowed rows [5, 3][1:4] (an offset)", (5, 3), "narrow 0 1 3"),
    ("one row [3, 4][2]", (3, 4), "select 0 2"),
    ("one column [3, 4][:, 1]", (3, 4), "select 1 1"),
    ("expanded [3, 1] -> [3, 4] (stride 0)", (3, 1), "expand 3 4"),
    ("expanded new dim [3, 4] -> [2, 3, 4]", (3, 4), "expand 2 3 4"),
    ("transposed + unsqueezed [4, 1, 3]", (3, 4), "t; unsqueeze 1"),
    ("size-1 dim with an odd stride [4, 1].t()", (4, 1), "t"),
    ("0-d view with an offset", (5,), "select 0 3"),
    ("empty [0, 3]", (0, 3), ""),
    ("empty transposed [3, 0]", (0, 3), "t"),
    ("5-d permuted and sliced", (2, 1, 4, 3, 2), "permute 4 2 0 1 3; slice 1 1 4 2"),
]


def layout_inputs(zoo, dtype="float32"):
    """Inputs for a list of layouts: the layouts text and one base tensor per layout."""
    inputs = {"layouts": "".join(f"{name}|{prog}\n" for name, _, prog in zoo)}
    for k, (_, shape, _) in enumerate(zoo):
        if dtype == "bool":
            inputs[f"base_{k}"] = randint(0, 2, *shape, dtype="bool")
        elif dtype in ("uint8", "int64"):
            inputs[f"base_{k}"] = randint(0 if dtype == "uint8" else -50, 256 if dtype == "uint8" else 50, *shape,
                                          dtype=dtype)
        else:
            inputs[f"base_{k}"] = randn(*shape, dtype=dtype)
    return inputs


def views(kw, zoo):
    return [(name, apply_view(kw[f"base_{k}"], prog)) for k, (name, _, prog) in enumerate(zoo)]


def random_programs(count, seed):
    """Random non-contiguous views: rank 1..4, permuted, sliced with steps, sometimes a stride-0 lead dim."""
    rng = case_rng("random views", str(seed))  # other views every grading run
    out = []
    for i in range(count):
        rank = int(rng.integers(1, 5))
        shape = [int(rng.integers(1, 6)) for _ in range(rank)]
        perm = list(rng.permutation(rank))
        prog = [f"permute {' '.join(map(str, perm))}"]
        permuted = [shape[p] for p in perm]
        for d in range(rank):
            start = int(rng.integers(0, permuted[d]))
            step = int(rng.integers(1, 3))
            prog.append(f"slice {d} {start} {permuted[d]} {step}")
            permuted[d] = len(range(start, permuted[d], step))
        if rng.integers(0, 2):
            lead = int(rng.integers(1, 4))
            prog.append("unsqueeze 0")
            prog.append("expand " + " ".join(map(str, [lead] + permuted)))
        out.append((f"random view {i}", tuple(shape), "; ".join(prog)))
    return out


# ---- ex1: the strides of a new tensor ---------------------------------------------------------------------
SHAPES = [(), (7,), (2, 3), (2, 3, 4), (4, 1, 3), (1, 1), (0,), (0, 3), (3, 0, 2), (2, 1, 0, 5), (5, 4, 3, 2, 1)]


def random_shape(lo_rank=1, hi_rank=5, hi_dim=9):
    """A shape drawn for this grading run (secret): strides and broadcast shapes depend on nothing else,
    so fixed shapes alone would let a submission know every answer in advance."""
    return tuple(vary(1, hi_dim + 1) for _ in range(vary(lo_rank, hi_rank + 1)))


def unique(items):
    out = []
    for it in items:
        if it not in out:
            out.append(it)
    return out


SHAPES = unique(SHAPES + [random_shape() for _ in range(5)])


@case("strides: every new tensor is row-major", shapes=lines(SHAPES))
def _(shapes):
    out = {}
    for shape in SHAPES:
        out[f"zeros({s(shape)}).strides()"] = list(torch.zeros(shape).stride())
        out[f"contiguous_strides({s(shape)})"] = list(torch.zeros(shape).stride())
    return out


_R, _C = vary(2, 7), vary(2, 7)  # shapes drawn for this run: the strides follow from them alone


@case("strides: results of ops on row-major inputs", a=randn(_R, _C), b=randn(_C), x=randn(vary(2, 7), vary(2, 7)))
def _(a, b, x):
    return {"(a + b).strides()": list((a + b).stride()), "(x * 2).strides()": list((x * 2).stride()),
            "x.matmul(x.t()).strides()": list(x.matmul(x.t()).stride()),
            "x.t().contiguous().strides()": list(x.t().contiguous().stride())}


def near_contiguous(count, seed):
    """Views drawn for this run that are row-major or nearly so (a leading narrow or select, an unsqueeze,
    a swap of size-1 dims, a step of 2): whether each one is contiguous is not known in advance."""
    rng = case_rng("near-contiguous views", str(seed))
    out = []
    for i in range(count):
        shape = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(2, 5)))]
        kind = int(rng.integers(0, 5))
        if kind == 0:
            start = int(rng.integers(0, shape[0]))
            prog = f"narrow 0 {start} {int(rng.integers(1, shape[0] - start + 1))}"
        elif kind == 1:
            prog = f"select 0 {int(rng.integers(0, shape[0]))}"
        elif kind == 2:
            prog = f"unsqueeze {int(rng.integers(0, len(shape) + 1))}"
        elif kind == 3:
            d = int(rng.integers(0, len(shape) - 1))
            prog = f"transpose {d} {d + 1}"
        else:
            d = int(rng.integers(0, len(shape)))
            prog = f"slice {d} 0 {shape[d]} {int(rng.integers(1, 3))}"
        out.append((f"drawn view {i} {shape} {prog}", tuple(shape), prog))
    return out


# The fixed layouts, and views drawn for this run (the answers to fixed layouts alone are known in advance).
ZOO_RUN = ZOO + random_programs(4, 11) + near_contiguous(10, 12)


@case("is_contiguous: views in many layouts", **layout_inputs(ZOO_RUN))
def _(layouts, **kw):
    return {f"is_contiguous: {name}": v.is_contiguous() for name, v in views(kw, ZOO_RUN)}


@case("contiguous: a row-major tensor is returned as it is", **layout_inputs(ZOO_RUN))
def _(layouts, **kw):
    return {f"contiguous() shares storage: {name}": v.contiguous().data_ptr() == v.data_ptr()
            for name, v in views(kw, ZOO_RUN)}


# ---- ex2: views: permute and select ---------------------------------------------------------------------
PERMS = [(2, 0, 1), (1, 0, 2), (0, 1, 2), (-1, 0, 1), (2, 1, 0)]


@case("permute: the view's shape, strides, offset and values", x=randn(2, 3, 4), perms=lines(PERMS))
def _(x, perms):
    out = {}
    for bname, base in (("x", x), ("x[:, :, 1:]", x[:, :, 1:])):
        for p in PERMS:
            v = base.permute(*p)
            out[f"{bname}.permute({s(p)})"] = v
            out[f"{bname}.permute({s(p)}).strides()"] = list(v.stride())
            out[f"{bname}.permute({s(p)}).storage_offset()"] = v.storage_offset()
    return out


@case("permute: writing through the view changes its input", x=randn(2, 3, 4))
def _(x):
    p = x.permute(2, 0, 1)
    shares = p.data_ptr() - p.storage_offset() * 4 == x.data_ptr() - x.storage_offset() * 4
    p.fill_(7.0)
    return {"shares storage": bool(shares), "x after p.fill_(7)": x}


BAD_PERMS = [(0, 1), (0, 0, 1), (0, 1, 3), (), (0, 1, 2, 3)]


def random_perm():
    """A list of dims drawn for this run for a 3-d tensor: a permutation (accepted) or, half the time, one
    with a repeated dim (refused): which, is not known in advance."""
    p = [int(d) for d in run_rng.permutation(3)]
    if vary(0, 2):
        k = vary(0, 3)
        p[k] = p[(k + 1) % 3]
    return tuple(d - 3 if vary(0, 3) == 0 else d for d in p)  # sometimes negative dims


PERMS_RUN = unique(BAD_PERMS + [random_perm() for _ in range(6)])


@case("permute: wrong lists of dims are refused", x=randn(2, 3, 4), perms=lines(PERMS_RUN))
def _(x, perms):
    return {f"x.permute({s(p)})": torch_error(lambda p=p: x.permute(*p),
                                              error="IndexError" if 3 in p and len(p) == 3 else "ShapeError")
            for p in PERMS_RUN}


@case("select: every index along every dim", x=randn(3, 4, 5))
def _(x):
    out = {}
    for d in range(-3, 3):
        for i in (0, 1, -1):
            v = x.select(d, i)
            out[f"x.select({d}, {i})"] = v
            out[f"x.select({d}, {i}).strides()"] = list(v.stride())
            out[f"x.select({d}, {i}).storage_offset()"] = v.storage_offset()
    return out


@case("select: x[i], index() and selects of views", x=randn(3, 4, 5), y=randn(3, 1))
def _(x, y):
    return {"x.transpose(0, 2)[1]": x.transpose(0, 2)[1], "x[-1]": x[-1], "x.index({1, Slice(), 2})": x[1, :, 2],
            "y.expand(3, 4).select(1, 2)": y.expand(3, 4).select(1, 2),
            "x[2][3][4]": x[2][3][4], "x.select(1, 2).select(0, 1).storage_offset()": x.select(1, 2).select(0, 1).storage_offset()}


@case("select: indices and dims out of range are refused", x=randn(3, 4), z=value(2.5))
def _(x, z):
    return {"x.select(0, 3)": torch_error(lambda: x.select(0, 3), error="IndexError"),
            "x.select(0, -4)": torch_error(lambda: x.select(0, -4), error="IndexError"),
            "x.select(1, 4)": torch_error(lambda: x.select(1, 4), error="IndexError"),
            "x.select(2, 0)": torch_error(lambda: x.select(2, 0), error="IndexError"),
            "z.select(0, 0) of a 0-d tensor": torch_error(lambda: z.select(0, 0), error="IndexError")}


# ---- ex3: broadcasting ------------------------------------------------------------------------------------
PAIRS = [((3, 1), (4,)), ((8, 1, 6, 1), (7, 1, 5)), ((), (2, 3)), ((5,), (5,)), ((1,), (3, 1)), ((2, 1, 3), (4, 1)),
         ((0, 1), (1, 4)), ((1, 0), (3, 1)), ((), ())]
BAD_PAIRS = [((3,), (4,)), ((2, 3), (3, 2)), ((4, 3), (2, 1, 2)), ((0,), (2,))]


def random_pair(bad):
    """Two shapes drawn for this run that broadcast (some dims 1, leading dims dropped), or, with `bad`,
    that do not (one dim differs and neither is 1)."""
    out = random_shape(1, 4, 6)
    a, b = list(out), list(out)
    for d in range(len(out)):
        r = vary(0, 4)
        if r == 0:
            a[d] = 1
        elif r == 1:
            b[d] = 1
    b = b[vary(0, len(b) + 1):]
    if rng_flip := vary(0, 2):
        a, b = b, a
    if bad:
        a = a or [vary(2, 6)]
        k = len(a) - 1 - vary(0, min(len(a), max(len(b), 1)))
        j = k - (len(a) - len(b))
        if j < 0:
            b = [a[k] + 1] + b if a[k] != 1 else [2] + b
            a[k] = max(a[k], 2)
            j = 0
            k = len(a) - len(b)
        a[k], b[j] = (a[k] if a[k] > 1 else 2), (a[k] if a[k] > 1 else 2) + 1
    return tuple(a), tuple(b)


PAIRS = unique(PAIRS + [random_pair(False) for _ in range(4)])
BAD_PAIRS = unique(BAD_PAIRS + [random_pair(True) for _ in range(2)])


@case("broadcast_shapes: pairs of shapes", pairs=lines([a + (-1,) + b for a, b in PAIRS]))
def _(pairs):
    out = {}
    for a, b in PAIRS:
        out[f"broadcast_shapes({s(a)}, {s(b)})"] = list(torch.broadcast_shapes(a, b))
        out[f"(zeros({s(a)}) + zeros({s(b)})).shape()"] = list((torch.zeros(a) + torch.zeros(b)).shape)
    return out


@case("broadcast_shapes: shapes that cannot broadcast are refused", pairs=lines([a + (-1,) + b for a, b in BAD_PAIRS]))
def _(pairs):
    out = {}
    for a, b in BAD_PAIRS:
        out[f"broadcast_shapes({s(a)}, {s(b)})"] = torch_error(lambda a=a, b=b: torch.broadcast_shapes(a, b),
                                                               error="ShapeError")
        out[f"zeros({s(a)}) * zeros({s(b)})"] = torch_error(lambda a=a, b=b: torch.zeros(a) * torch.zeros(b),
                                                            error="ShapeError")
    return out


EXPANDS = [((3, 1), (3, 4)), ((3, 1), (2, 3, 4)), ((3,), (2, 3)), ((1,), (5,)), ((), (2, 2)), ((3, 1), (-1, 4)),
           ((1, 3), (1, 3)), ((3,), (1, 3)), ((2, 1, 3), (4, 2, 5, 3)), ((3, 1), (3, 0)), ((1, 1), (2, 1, 3))]
BAD_EXPANDS = [((3,), (4,)), ((2, 3), (3,)), ((3,), (-1, 3)), ((3, 1), (3, -2)), ((2, 1), (3, 4))]


def expand_inputs(cases):
    inputs = {"cases": lines([a + (-9,) + b for a, b in cases])}
    for k, (a, _) in enumerate(cases):
        inputs[f"x_{k}"] = randn(*a)
    return inputs


@case("expand: the view's shape, strides and values", **expand_inputs(EXPANDS))
def _(cases, **kw):
    out = {}
    for k, (a, b) in enumerate(EXPANDS):
        v = kw[f"x_{k}"].expand(*b)
        out[f"zeros-like {s(a)}.expand({s(b)})"] = v
        out[f"{s(a)}.expand({s(b)}).strides()"] = list(v.stride())
    return out


def random_expand():
    """An expand drawn for this run: from a shape with some size-1 dims to one that keeps its other dims
    (maybe -1), adds leading dims and widens the 1s -- or, half the time, changes a dim that is not 1
    (refused). Whether it is refused is not known in advance."""
    a = [vary(1, 5) if vary(0, 2) else 1 for _ in range(vary(1, 4))]
    b = [vary(2, 5) if d == 1 else (-1 if vary(0, 3) == 0 else d) for d in a]
    b = [vary(1, 4) for _ in range(vary(0, 2))] + b
    if vary(0, 2):
        wide = [k for k, d in enumerate(a) if d > 1]
        if wide:
            k = wide[vary(0, len(wide))] + len(b) - len(a)
            b[k] = a[k - len(b) + len(a)] + vary(1, 3)
    return tuple(a), tuple(b)


# The fixed refusals, and expands drawn for this run that PyTorch may or may not refuse.
BAD_EXPANDS_RUN = unique(BAD_EXPANDS + [random_expand() for _ in range(6)])


@case("expand: sizes it cannot reach are refused", **expand_inputs(BAD_EXPANDS_RUN))
def _(cases, **kw):
    return {f"{s(a)}.expand({s(b)})": torch_error(lambda k=k, b=b: kw[f"x_{k}"].expand(*b), error="ShapeError")
            for k, (a, b) in enumerate(BAD_EXPANDS_RUN)}


@case("broadcasting: arithmetic on broadcast shapes", a=randn(4, 1), b=randn(3), c=randn(2, 1, 3))
def _(a, b, c):
    return {"a + b": a + b, "a * b": a * b, "c - a": c - a, "b / 2 + c": b / 2 + c,
            "maximum(a, c)": torch.maximum(a, c)}


# ---- ex4: the strided copy ----------------------------------------------------------------------------------
def copy_results(kw, zoo):
    out = {}
    for name, v in views(kw, zoo):
        c = v.contiguous()
        out[f"contiguous(): {name}"] = c
        out[f"contiguous().strides(): {name}"] = list(c.stride())
        out[f"contiguous().is_contiguous(): {name}"] = c.is_contiguous()
        out[f"contiguous().storage_offset(): {name}"] = c.storage_offset()
    return out


@case("contiguous: float32 views in many layouts", **layout_inputs(ZOO))
def _(layouts, **kw):
    return copy_results(kw, ZOO)


ZOO_SMALL = [z for z in ZOO if z[0].split()[0] in ("transposed", "permuted", "stepped", "expanded", "one", "empty", "0-d")]


@case("contiguous: every dtype", **{f"{dt}_{k}": v for dt in ("float64", "int64", "uint8", "bool")
                                    for k, v in layout_inputs(ZOO_SMALL, dt).items()})
def _(**kw):
    out = {}
    for dt in ("float64", "int64", "uint8", "bool"):
        sub = {k[len(dt) + 1:]: v for k, v in kw.items() if k.startswith(dt + "_")}
        for name, v in views(sub, ZOO_SMALL):
            out[f"{dt} contiguous(): {name}"] = v.contiguous()
    return out


@case("clone: keeps a dense layout and copies the values", **layout_inputs(ZOO))
def _(layouts, **kw):
    out = {}
    for name, v in views(kw, ZOO):
        c = v.clone()
        out[f"clone(): {name}"] = c
        out[f"clone().strides(): {name}"] = list(c.stride())
    return out


@case("copy_: from a view into a view", src=randn(4, 3), big=randn(5, 6))
def _(src, big):
    dst = torch.zeros(3, 4)
    dst.t().copy_(src)  # dst's transposed view receives src
    b = big.clone()
    b[1:5:2, ::2].copy_(src[::2])  # a stepped view into a stepped view
    return {"dst after dst.t().copy_(src)": dst, "big after big[1:5:2, ::2].copy_(src[::2])": b}


@case("cat and stack of views", a=randn(2, 3), b=randn(3, 2), c=randn(3, 4))
def _(a, b, c):
    return {"cat({a, b.t()}, 0)": torch.cat([a, b.t()], 0), "cat({a.t(), b}, 1)": torch.cat([a.t(), b], 1),
            "stack({a, b.t()}, 1)": torch.stack([a, b.t()], 1), "stack({c[:, ::2], c[:, 1::2]}, 0)":
            torch.stack([c[:, ::2], c[:, 1::2]], 0)}


RANDOM = random_programs(60, 4)


@case("contiguous: 60 random views", **layout_inputs(RANDOM, "float64"))
def _(layouts, **kw):
    return {f"contiguous(): {name}": v.contiguous() for name, v in views(kw, RANDOM)}


# ---- ex5: softmax ------------------------------------------------------------------------------------------
@case("softmax: every dim, float32 and float64", x=randn(4, 10), y=randn(2, 3, 5, dtype="float64"), z=randn(3, 1, 4))
def _(x, y, z):
    out = {}
    for name, t in (("x", x), ("y", y), ("z", z)):
        for d in range(-t.dim(), t.dim()):
            out[f"softmax({name}, {d})"] = torch.softmax(t, d)
    return out


@case("log_softmax: every dim, float32 and float64", x=randn(64, 10), y=randn(2, 3, 5, dtype="float64"))
def _(x, y):
    out = {}
    for name, t in (("x", x), ("y", y)):
        for d in range(-t.dim(), t.dim()):
            out[f"log_softmax({name}, {d})"] = torch.log_softmax(t, d)
    return out


@case("softmax: non-contiguous inputs", a=randn(5, 4), b=randn(3, 4, 6), c=randn(4, 9, dtype="float64"), e=randn(4, 1))
def _(a, b, c, e):
    return {"softmax(a.t(), 1)": torch.softmax(a.t(), 1), "softmax(b.permute(2, 0, 1), 0)": torch.softmax(b.permute(2, 0, 1), 0),
            "softmax(c[:, ::2], -1)": torch.softmax(c[:, ::2], -1), "softmax(e.expand(4, 5), 1)": torch.softmax(e.expand(4, 5), 1),
            "log_softmax(b.permute(2, 0, 1), 1)": torch.log_softmax(b.permute(2, 0, 1), 1)}


@case("softmax: logits around 1000 stay finite", x=randn(6, 10, scale=100.0, shift=1000.0),
      y=randn(6, 10, dtype="float64", scale=100.0, shift=1000.0))
def _(x, y):
    out = {}
    for name, t in (("x", x), ("y", y)):
        for d in (0, 1, -1):
            out[f"softmax({name}, {d})"] = torch.softmax(t, d)
    return out


@case("log_softmax: finite where softmax underflows", x=value([[0.0, -1000.0, 5.0], [-2000.0, 1000.0, 0.0]]),
      y=value([[0.0, -1000.0, 5.0], [-2000.0, 1000.0, 0.0]], dtype="float64"))
def _(x, y):
    return {"log_softmax(x, 1)": torch.log_softmax(x, 1), "log_softmax(y, 1)": torch.log_softmax(y, 1),
            "log_softmax(x, 0)": torch.log_softmax(x, 0), "softmax(x, 1)": torch.softmax(x, 1)}


@case("softmax: 0-d and empty tensors", z=value(3.0), e=randn(0, 3), f=randn(2, 0))
def _(z, e, f):
    return {"softmax(z, 0)": torch.softmax(z, 0), "log_softmax(z, -1)": torch.log_softmax(z, -1),
            "softmax(e, 1)": torch.softmax(e, 1), "softmax(e, 0)": torch.softmax(e, 0), "softmax(f, 1)": torch.softmax(f, 1)}


# ---- ex6: a reduction -------------------------------------------------------------------------------------
@case("sum: along every dim, with and without keepdim", x=randn(2, 3, 4), y=randn(3, 5, dtype="float64"))
def _(x, y):
    out = {}
    for name, t in (("x", x), ("y", y)):
        for d in range(-t.dim(), t.dim()):
            for keep in (False, True):
                out[f"{name}.sum({d}, {str(keep).lower()})"] = t.sum(d, keepdim=keep)
    return out


@case("sum: over several dims, and over everything", x=randn(2, 3, 4, 5))
def _(x):
    return {"x.sum({0, 2})": x.sum((0, 2)), "x.sum({-1, 0}, true)": x.sum((-1, 0), keepdim=True),
            "x.sum({1, 2, 3})": x.sum((1, 2, 3)), "x.sum()": x.sum()}


@case("sum: bool, uint8 and int64 sum to int64", m=randint(0, 2, 5, 6, dtype="bool"), u=randint(0, 256, 4, 100, dtype="uint8"),
      i=randint(-1000, 1000, 3, 7, dtype="int64"))
def _(m, u, i):
    return {"m.sum()": m.sum(), "m.sum(0)": m.sum(0), "u.sum(1)": u.sum(1), "u.sum()": u.sum(),
            "i.sum(-1, true)": i.sum(-1, keepdim=True), "i.sum(0)": i.sum(0)}


@case("sum: empty dimensions sum to 0, and 0-d tensors", e=randn(0, 3), z=value(2.5), zi=value(7, dtype="int64"))
def _(e, z, zi):
    return {"e.sum(0)": e.sum(0), "e.sum(1)": e.sum(1), "e.sum()": e.sum(), "e.sum(0, true)": e.sum(0, keepdim=True),
            "z.sum(0)": z.sum(0), "z.sum(-1, true)": z.sum(-1, keepdim=True), "z.sum()": z.sum(), "zi.sum()": zi.sum()}


@case("sum: non-contiguous inputs", a=randn(5, 4), b=randn(3, 1), c=randn(4, 9, dtype="float64"), d=randn(2, 3, 4))
def _(a, b, c, d):
    return {"a.t().sum(1)": a.t().sum(1), "a.t().sum(0)": a.t().sum(0), "b.expand(3, 5).sum(1)": b.expand(3, 5).sum(1),
            "b.expand(3, 5).sum(0)": b.expand(3, 5).sum(0), "c[:, ::2].sum(-1)": c[:, ::2].sum(-1),
            "d.permute(2, 0, 1).sum({0, 2})": d.permute(2, 0, 1).sum((0, 2))}


@case("mean: along dims and over everything", x=randn(3, 4, 5), y=randn(6, 7, dtype="float64"))
def _(x, y):
    return {"x.mean(1)": x.mean(1), "x.mean({0, 2}, true)": x.mean((0, 2), keepdim=True), "x.mean()": x.mean(),
            "y.mean(0)": y.mean(0), "y.t().mean(1)": y.t().mean(1)}


@case("sum: a million float32 values, accurately", x=rand(1000000, low=0.0, high=1.0), y=randn(1000, 1000))
def _(x, y):
    # float32 sums in different (correct) orders differ by ~sqrt(n) ulps; a naive float32 running sum is
    # off by far more than this tolerance over 10^6 values.
    return {"x.sum()": approx(x.double().sum().float(), rtol=2e-6, atol=0), "y.sum(0)": approx(y.double().sum(0).float(), rtol=1e-5, atol=1e-4),
            "y.sum(1)": approx(y.double().sum(1).float(), rtol=1e-5, atol=1e-4)}
