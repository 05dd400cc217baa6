# Chapter 10's graded tests, PyTorch's side (see tests/grading/twins.py). Gemm is PyTorch's matmul
# with its transposes, scales and broadcast bias, and autograd's gradients; the window pads are
# ONNX's own reference (onnx.backend.test.case.node.pool_op_common, the code that made ONNX's
# conformance data), and a convolution padded by them is PyTorch's F.pad and conv2d; dead-code
# elimination is torch.fx's Graph.eliminate_dead_code on the same graphs (and on the same module,
# symbolically traced); the guard is judged by replaying the same calls in PyTorch, counting the
# distinct (dtype, shape, strides, grad mode, train flags, requires_grad flags) they bring. Sizes
# and graphs vary per grading run.
import operator
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import onnx_pads  # noqa: E402


def leaf(t):
    return t.clone().requires_grad_(True)


def ints(v):
    return value(v, dtype="int64")


# ---- ex1: Gemm ---------------------------------------------------------------------------------------------
M, K, N = vary(1, 7), vary(1, 9), vary(1, 8)


@case("Gemm: a Linear as exporters write it (trans_b, a bias of [N])", A=randn(M, K), B=randn(N, K), C=randn(N))
def _(A, B, C):
    return {"gemm(A, B, C, 1, 1, trans_b)": A @ B.t() + C}


@case("Gemm: trans_a, alpha, beta, every bias shape and none", A=randn(K, M, dtype="float64"),
      B=randn(K, N, dtype="float64"), Bt=randn(N, K, dtype="float64"), alpha_beta=randn(2, dtype="float64"),
      C_scalar=randn(dtype="float64"), C_row=randn(1, N, dtype="float64"), C_col=randn(M, 1, dtype="float64"),
      C_full=randn(M, N, dtype="float64"))
def _(A, B, Bt, alpha_beta, C_scalar, C_row, C_col, C_full):
    alpha, beta = float(alpha_beta[0]), float(alpha_beta[1])
    ab = alpha * (A.t() @ B)
    out = {f"gemm with {n}": ab + beta * c
           for n, c in (("C_scalar", C_scalar), ("C_row", C_row), ("C_col", C_col), ("C_full", C_full))}
    out["gemm without C"] = ab
    out["gemm, both transposed"] = alpha * (A.t() @ Bt.t()) + beta * C_row
    return out


@case("Gemm: gradients of A, B and C", A=randn(M, K, dtype="float64"), B=randn(N, K, dtype="float64"),
      C=randn(N, dtype="float64"), g=randn(M, N, dtype="float64"))
def _(A, B, C, g):
    A, B, C = leaf(A), leaf(B), leaf(C)
    y = 0.5 * (A @ B.t()) + 2.0 * C
    y.backward(g)
    return {"output": y.detach(), "A.grad": A.grad, "B.grad": B.grad, "C.grad": C.grad}


# ---- ex2: a window op's pads -----------------------------------------------------------------------------
def config():
    return [vary(1, 24), vary(1, 24), vary(1, 6), vary(1, 6), vary(1, 4), vary(1, 4), vary(1, 3), vary(1, 3)]


CONFIGS = [config() for _ in range(6)]
CONFIGS[0][4:6] = [1, 1]  # stride 1: the output keeps the input's size


@case("window pads: SAME_UPPER and SAME_LOWER, with strides and dilations", configs=ints(CONFIGS))
def _(configs):
    out = {}
    for i, c in enumerate(configs.tolist()):
        for mode in ("SAME_UPPER", "SAME_LOWER"):
            out[f"{mode} config {i}"] = onnx_pads(mode, c[0:2], c[2:4], c[4:6], c[6:8])
    return out


@case("window pads: NOTSET takes the pads as given, VALID has none", config=ints(config()),
      pads=ints([vary(0, 4) for _ in range(4)]))
def _(config, pads):
    return {"NOTSET with pads": [int(p) for p in pads], "NOTSET without pads": [0, 0, 0, 0], "VALID": [0, 0, 0, 0]}


SH, SW = vary(1, 4), vary(1, 4)


@case("window pads: a SAME_LOWER strided convolution, padded by them",
      x=randn(vary(1, 3), 2, vary(4, 12), vary(4, 12)), w=randn(3, 2, vary(1, 5), vary(1, 5)), stride=ints([SH, SW]))
def _(x, w, stride):
    s = [int(v) for v in stride]
    p = onnx_pads("SAME_LOWER", list(x.shape[2:]), list(w.shape[2:]), s, [1, 1])
    return {"conv2d of the padded input": F.conv2d(F.pad(x, (p[1], p[3], p[0], p[2])), w, stride=s)}


# ---- ex3: dead-code elimination ------------------------------------------------------------------------
def draw_graph(rng, n_in, n_nodes, chunk):
    """Rows [kind, a, b] (0 neg, 1 add, 2 chunk into two values) over values numbered as they are made,
    and the graph's outputs: one or two late values, so that earlier branches die."""
    n_values, rows = n_in, []
    for _ in range(n_nodes):
        kind = int(rng.integers(0, 3 if chunk else 2))
        lo = max(0, n_values - 6)  # mostly recent values: chains, with some reaching back
        a = int(rng.integers(lo, n_values)) if rng.random() < 0.8 else int(rng.integers(0, n_values))
        b = int(rng.integers(0, n_values))
        rows.append([kind, a, b if kind == 1 else 0])
        n_values += 2 if kind == 2 else 1
    outs = sorted({int(rng.integers(n_values - 4, n_values)) for _ in range(int(rng.integers(1, 3)))})
    return rows, outs


def fx_kept(n_in, rows, outs):
    """Our graph as a torch.fx graph; which of its nodes torch.fx's dead-code elimination keeps."""
    g = torch.fx.Graph()
    values = [g.placeholder(f"x{i}") for i in range(n_in)]
    nodes = []
    for kind, a, b in rows:
        if kind == 0:
            n = g.call_function(torch.neg, (values[a],))
            values.append(n)
        elif kind == 1:
            n = g.call_function(torch.add, (values[a], values[b]))
            values.append(n)
        else:
            n = g.call_function(torch.chunk, (values[a], 2))
            values += [g.call_function(operator.getitem, (n, 0)), g.call_function(operator.getitem, (n, 1))]
        nodes.append(n)
    g.output(tuple(values[o] for o in outs))
    g.eliminate_dead_code()
    alive = set(g.nodes)
    return torch.tensor([int(n in alive) for n in nodes], dtype=torch.int64)


def graph_inputs(tag, count, chunk):
    rng = case_rng("ch10 dead code", tag)
    inputs, expected = {}, {}
    for k in range(count):
        n_in = int(rng.integers(1, 4))
        rows, outs = draw_graph(rng, n_in, int(rng.integers(8, 24)), chunk)
        inputs[f"inputs_{k}"] = ints([n_in])
        inputs[f"nodes_{k}"] = ints(rows)
        inputs[f"outputs_{k}"] = ints(outs)
        expected[f"kept nodes of graph {k}"] = fx_kept(n_in, rows, outs)
    return inputs, expected


_plain, _plain_expected = graph_inputs("plain", 3, False)


@case("dead code: graphs of neg and add, against torch.fx", **_plain)
def _(**_):
    return _plain_expected


_chunk, _chunk_expected = graph_inputs("chunk", 2, True)


@case("dead code: a node with two outputs is kept for either", **_chunk)
def _(**_):
    return _chunk_expected


class DeadBranches(torch.nn.Module):
    def forward(self, x):
        y = x * 2.0
        unused = y.exp()  # noqa: F841
        z = y + x
        also_unused = (z.sin() * 3.0).tanh()  # noqa: F841
        return z.tanh()


@case("dead code: a traced forward with dead branches", x=randn(vary(1, 5), vary(2, 9)))
def _(x):
    gm = torch.fx.symbolic_trace(DeadBranches())
    before = len(gm.graph.nodes)
    gm.graph.eliminate_dead_code()
    return {"nodes removed": before - len(gm.graph.nodes), "output": DeadBranches()(x)}


# ---- ex4: the guard ----------------------------------------------------------------------------------
class Scale(torch.nn.Module):
    def __init__(self, w):
        super().__init__()
        self.w = torch.nn.Parameter(w.clone())

    def forward(self, x):
        return x * self.w if self.training else x * self.w * 0.5


class Net(torch.nn.Module):
    def __init__(self, wa, wb, bias):
        super().__init__()
        self.a, self.b = Scale(wa), Scale(wb)
        self.bias = torch.nn.Parameter(bias.clone())

    def forward(self, x):
        return self.b(self.a(x).tanh() + self.bias)


def key(net, x):
    """What a trace depends on: the facts the guard must tell apart, and nothing else."""
    return (x.dtype, tuple(x.shape), x.stride(), torch.is_grad_enabled(),
            tuple(m.training for m in net.modules()), tuple(p.requires_grad for p in net.parameters()))


B, W = vary(2, 6), vary(3, 10)
WEIGHTS = dict(wa=randn(W), wb=randn(W), bias=randn(W))


@case("guard: a new shape, stride or dtype traces again, a known one does not", x=randn(B, W),
      x2=randn(B + 1, W), x_transposed=randn(W, B), **WEIGHTS)
def _(x, x2, x_transposed, wa, wb, bias):
    net, seen, out = Net(wa, wb, bias), set(), {}
    with torch.no_grad():
        for name, inp in (("x", x), ("x again", x), ("another batch size", x2),
                          ("a transposed input", x_transposed.t()), ("float64", x.double()), ("x once more", x)):
            seen.add(key(net, inp))
            out[name] = net(inp)
    out["traces"] = len(seen)
    return out


@case("guard: train/eval of any module, grad mode, requires_grad", x=randn(B, W), g=randn(B, W), **WEIGHTS)
def _(x, g, wa, wb, bias):
    net, seen, out = Net(wa, wb, bias), set(), {}

    def step(name):
        for p in net.parameters():
            p.grad = None
        seen.add(key(net, x))
        y = net(x)
        out[name] = y.detach()
        if y.requires_grad:
            y.backward(g)
            for pname, p in net.named_parameters():
                out[f"{name}: {pname} has a gradient"] = p.grad is not None
            if net.b.w.grad is not None:
                out[f"{name}: b.w.grad"] = net.b.w.grad.clone()

    step("train")
    net.b.eval()
    step("b in eval")
    net.eval()
    step("eval")
    with torch.no_grad():
        step("eval, no grad")
    net.train()
    net.a.w.requires_grad_(False)
    step("a.w frozen")
    net.a.w.requires_grad_(True)
    step("a.w trains again")
    out["traces"] = len(seen)
    return out


STEPS = vary(3, 6)


@case("guard: a training loop with a validation pass traces once per mode", xs=randn(STEPS, B, W),
      ts=randn(STEPS, B, W), **WEIGHTS)
def _(xs, ts, wa, wb, bias):
    net, seen, out = Net(wa, wb, bias), set(), {}
    for i in range(xs.shape[0]):
        for p in net.parameters():
            p.grad = None
        seen.add(key(net, xs[i]))
        loss = (net(xs[i]) - ts[i]).pow(2.0).mean()
        loss.backward()
        with torch.no_grad():
            for p in net.parameters():
                p -= p.grad * 0.1
        out[f"loss {i}"] = loss.detach()
        if i == 1:
            net.eval()
            with torch.no_grad():
                seen.add(key(net, xs[0]))
                out["validation"] = net(xs[0])
            net.train()
    for name, p in net.named_parameters():
        out[name] = p.detach()
    out["traces"] = len(seen)
    return out
