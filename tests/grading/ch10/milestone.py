#!/usr/bin/python3
"""Chapter 10's milestone, judged: the learner's jit layer runs ONNX files the checker made, and compiles a
model whose every output and gradient equals PyTorch's, with fewer kernels than eager
(tests/grading/ch10/milestone.cpp says what the program writes). Checked, on sizes and weights drawn per run:

  1. model_gemm.onnx (three Gemm nodes: trans_b with a [N] bias as exporters write a Linear, then alpha,
     beta and a [1, N] bias, then trans_a after a Transpose) run by kd::onnx::load: its output, and the
     gradient of every initializer through it, equal PyTorch's (ex1);
  2. model_window.onnx (a Conv with auto_pad SAME_LOWER and a stride, a MaxPool with SAME_UPPER, a Conv
     with asymmetric explicit pads; sizes drawn so that every SAME_* padding is odd, so UPPER and LOWER
     differ): its output equals PyTorch's F.pad and conv2d / max_pool2d with ONNX's reference pads (ex2);
  3. a model kd::compile'd in four calls (train with grad, eval without grad at another batch size, a
     transposed input, the eval call again): every output and gradient equals PyTorch's; it traced once
     per distinct (shape, strides, dtype, grad mode, train flags, requires_grad flags), as the checker
     counts them replaying the calls in PyTorch (ex4); the dead branch was removed, as many nodes as
     torch.fx's dead-code elimination removes from the same forward (ex3); and the compiled graph
     launches fewer kernels than the eager one (fusion).
Both files pass onnx.checker.check_model(full_check=True) before the program sees them.
See tests/grading/milestones.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import milestones as ms  # noqa: E402
from reference import onnx_pads  # noqa: E402

GOAL = 1e-4
WHAT = "the grader's ONNX files and a compiled model against PyTorch, max abs error"
RTOL, ATOL = 1e-4, 1e-5


def odd_same_config(rng, kernel_hi, stride):
    """An input size and kernel whose SAME padding is odd in both dims (so UPPER and LOWER differ)."""
    while True:
        size = [int(rng.integers(5, 16)), int(rng.integers(5, 16))]
        k = [int(rng.integers(2, kernel_hi)), int(rng.integers(2, kernel_hi))]
        p = onnx_pads("SAME_UPPER", size, k, stride, [1, 1])
        if all((p[i] + p[i + 2]) % 2 == 1 for i in range(2)):
            return size, k


def draws():
    rng = ms.secret_rng("ch10 milestone")
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    d = {}
    # 1. Gemm: [B, D] -> [B, H] -> [B, O] -> [B, P]
    B, D, H, O, P = (int(rng.integers(2, 7)), int(rng.integers(3, 9)), int(rng.integers(3, 9)),
                     int(rng.integers(2, 7)), int(rng.integers(2, 6)))
    d["gemm"] = dict(W1=f(H, D), b1=f(H), W2=f(H, O), b2=f(1, O), W3=f(O, P), b3=f(P),
                     scales=(rng.uniform(0.5, 2.0, 4).astype(np.float32)), x=f(B, D), g=f(B, P))
    # 2. windows: [N, C, size] -> SAME_LOWER conv, stride s -> relu -> SAME_UPPER max pool, stride 2 -> conv
    s = int(rng.integers(1, 3))
    size, k = odd_same_config(rng, 5, [s, s])
    C, C2 = int(rng.integers(1, 4)), int(rng.integers(2, 5))
    inner = [(v + s - 1) // s for v in size]
    while True:  # the pool's SAME_UPPER padding odd too
        kp = [int(rng.integers(2, 5)), int(rng.integers(2, 5))]
        p = onnx_pads("SAME_UPPER", inner, kp, [2, 2], [1, 1])
        if all((p[i] + p[i + 2]) % 2 == 1 for i in range(2)):
            break
    d["window"] = dict(Wc=f(C2, C, *k), bc=f(C2), Wc2=f(3, C2, 2, 2), x=f(int(rng.integers(1, 4)), C, *size),
                       stride=s, kernel=k, pool=kp, pads2=[int(v) for v in rng.integers(0, 2, 4)])
    # 3. the compiled model: [B, D] -> fc1 [B, H] -> chain -> half -> fc2 [B, O]
    B2 = B + int(rng.integers(1, 4))
    d["net"] = dict(fc1_weight=f(H, D), fc1_bias=f(H), gamma=f(H), fc2_weight=f(O, H), fc2_bias=f(O),
                    x1=f(B, D), g1=f(B, O), x2=f(B2, D), x3t=f(D, B2))
    return d


def gemm_model(w):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    a1, be1, a2, be2 = (float(v) for v in w["scales"])
    nodes = [helper.make_node("Gemm", ["x", "W1", "b1"], ["h"], transB=1),
             helper.make_node("Tanh", ["h"], ["t"]),
             helper.make_node("Gemm", ["t", "W2", "b2"], ["u"], alpha=a1, beta=be1),
             helper.make_node("Transpose", ["u"], ["ut"], perm=[1, 0]),
             helper.make_node("Gemm", ["ut", "W3", "b3"], ["y"], transA=1, alpha=a2, beta=be2)]
    inits = [numpy_helper.from_array(w[n], n) for n in ("W1", "b1", "W2", "b2", "W3", "b3")]
    graph = helper.make_graph(
        nodes, "ch10_gemm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", w["x"].shape[1]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", w["W3"].shape[1]])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ch10 milestone")
    onnx.checker.check_model(model, full_check=True)
    return model


def gemm_torch(w, params):
    import torch
    a1, be1, a2, be2 = (float(v) for v in w["scales"])
    x = torch.tensor(w["x"])
    t = (x @ params["W1"].t() + params["b1"]).tanh()
    u = a1 * (t @ params["W2"]) + be1 * params["b2"]
    return a2 * (u @ params["W3"]) + be2 * params["b3"]  # Gemm(transA) of uᵀ is u


def window_model(w):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    s = w["stride"]
    nodes = [helper.make_node("Conv", ["x", "Wc", "bc"], ["c"], auto_pad="SAME_LOWER", strides=[s, s],
                              kernel_shape=w["kernel"]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("MaxPool", ["r"], ["m"], auto_pad="SAME_UPPER", kernel_shape=w["pool"], strides=[2, 2]),
             helper.make_node("Conv", ["m", "Wc2"], ["y"], pads=w["pads2"], kernel_shape=[2, 2])]
    inits = [numpy_helper.from_array(w[n], n) for n in ("Wc", "bc", "Wc2")]
    graph = helper.make_graph(
        nodes, "ch10_window", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(w["x"].shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", "c", "h", "w"])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ch10 milestone")
    onnx.checker.check_model(model, full_check=True)
    return model


def window_torch(w):
    import torch
    import torch.nn.functional as F
    x = torch.tensor(w["x"])
    s = w["stride"]
    p = onnx_pads("SAME_LOWER", list(x.shape[2:]), w["kernel"], [s, s], [1, 1])
    c = F.conv2d(F.pad(x, (p[1], p[3], p[0], p[2])), torch.tensor(w["Wc"]), torch.tensor(w["bc"]), stride=s).relu()
    p = onnx_pads("SAME_UPPER", list(c.shape[2:]), w["pool"], [2, 2], [1, 1])
    m = F.max_pool2d(F.pad(c, (p[1], p[3], p[0], p[2]), value=float("-inf")), w["pool"], stride=2)
    q = w["pads2"]
    return F.conv2d(F.pad(m, (q[1], q[3], q[0], q[2])), torch.tensor(w["Wc2"]))


def net_twin(w):
    import torch

    class Half(torch.nn.Module):
        def forward(self, x):
            return x if self.training else x * 0.5

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(*w["fc1_weight"].shape[::-1])
            self.fc2 = torch.nn.Linear(*w["fc2_weight"].shape[::-1])
            self.gamma = torch.nn.Parameter(torch.tensor(w["gamma"]))
            self.halve = Half()
            with torch.no_grad():
                for n in ("fc1", "fc2"):
                    getattr(self, n).weight.copy_(torch.tensor(w[f"{n}_weight"]))
                    getattr(self, n).bias.copy_(torch.tensor(w[f"{n}_bias"]))

        def forward(self, x):
            h = self.fc1(x)
            a = h.tanh() * self.gamma + h
            unused = (a.sin() * 2.0).exp()  # noqa: F841  (dead: the compiler removes it)
            return self.fc2(self.halve(a))

    return Net()


def prepare(in_dir):
    import onnx
    d = draws()
    onnx.save(gemm_model(d["gemm"]), os.path.join(in_dir, "model_gemm.onnx"))
    onnx.save(window_model(d["window"]), os.path.join(in_dir, "model_window.onnx"))
    ms.save(os.path.join(in_dir, "x_gemm.npy"), d["gemm"]["x"])
    ms.save(os.path.join(in_dir, "g_gemm.npy"), d["gemm"]["g"])
    ms.save(os.path.join(in_dir, "x_window.npy"), d["window"]["x"])
    for name, a in d["net"].items():
        ms.save(os.path.join(in_dir, f"net_{name}.npy"), a)


def close(name, got, want, errs):
    want = np.asarray(want, dtype=np.float32)
    if got.shape != want.shape:
        raise ValueError(f"{name}: shape {list(got.shape)}, PyTorch's is {list(want.shape)}")
    err = float(np.abs(got.astype(np.float64) - want).max()) if want.size else 0.0
    errs.append(err)
    if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
        raise ValueError(f"{name}: max abs error {err:.3g} against PyTorch")


def check_onnx(out_dir, d, errs):
    import torch
    w = d["gemm"]
    params = {n: torch.tensor(w[n]).requires_grad_(True) for n in ("W1", "b1", "W2", "b2", "W3", "b3")}
    y = gemm_torch(w, params)
    y.backward(torch.tensor(w["g"]))
    try:
        close("model_gemm.onnx's output", ms.load_output(out_dir, "y_gemm.npy", dtype="float32"), y.detach(), errs)
        for n, p in params.items():
            close(f"the gradient of initializer {n} through model_gemm.onnx",
                  ms.load_output(out_dir, f"grad_gemm_{n}.npy", dtype="float32"), p.grad, errs)
    except ValueError as e:
        raise ValueError(f"{e} (Gemm: ex1)")
    try:
        close("model_window.onnx's output", ms.load_output(out_dir, "y_window.npy", dtype="float32"),
              window_torch(d["window"]), errs)
    except ValueError as e:
        raise ValueError(f"{e} (auto_pad SAME_LOWER / SAME_UPPER and explicit pads: ex2)")


def check_compiled(out_dir, d, errs):
    import torch
    w = d["net"]
    net = net_twin(w)
    seen = set()

    def key(x):
        return (x.dtype, tuple(x.shape), x.stride(), torch.is_grad_enabled(),
                tuple(m.training for m in net.modules()), tuple(p.requires_grad for p in net.parameters()))

    x1 = torch.tensor(w["x1"])
    seen.add(key(x1))
    y1 = net(x1)
    y1.backward(torch.tensor(w["g1"]))
    want = {"y_train": y1.detach()}
    for n, p in net.named_parameters():
        want["grad_net_" + n.replace(".", "_")] = p.grad
    net.eval()
    with torch.no_grad():
        x2, x3 = torch.tensor(w["x2"]), torch.tensor(w["x3t"]).t()
        for name, x in (("y_eval", x2), ("y_transposed", x3), ("y_eval_again", x2)):
            seen.add(key(x))
            want[name] = net(x)
    for name, t in want.items():
        try:
            close(name, ms.load_output(out_dir, f"{name}.npy", dtype="float32"), t, errs)
        except ValueError as e:
            raise ValueError(f"the compiled model's {e} (the guard, ex4, reuses a graph traced for other calls; "
                             f"or dead-code elimination, ex3, dropped a node)")
    stats = ms.load_output(out_dir, "compile_stats.npy", shape=(4,), dtype="int64")
    traces, eager_kernels, compiled_kernels, removed = (int(v) for v in stats)
    if traces != len(seen):
        raise ValueError(f"the compiled model traced {traces} time(s) for calls that bring {len(seen)} distinct "
                         f"(shape, strides, dtype, grad mode, train flags, requires_grad flags) (ex4)")
    gm = torch.fx.symbolic_trace(net_twin(w))
    before = len(gm.graph.nodes)
    gm.graph.eliminate_dead_code()
    if removed != before - len(gm.graph.nodes):
        raise ValueError(f"eliminate_dead_code removed {removed} node(s) from the traced forward; torch.fx removes "
                         f"{before - len(gm.graph.nodes)} from the same forward (ex3)")
    if not compiled_kernels < eager_kernels:
        raise ValueError(f"the compiled graph launches {compiled_kernels} kernels, eager {eager_kernels}: no fewer")


def check(out_dir):
    goal = f"<= {GOAL:g}, traces as the calls ask, dead code removed, fewer kernels than eager"
    d = draws()
    errs = []
    try:
        check_onnx(out_dir, d, errs)
        check_compiled(out_dir, d, errs)
    except ValueError as e:
        value = f"{max(errs):.3g}" if errs else "not measured"
        return ms.verdict(out_dir, "ch10", WHAT, value, goal, False, str(e))
    worst = max(errs)
    return ms.verdict(out_dir, "ch10", WHAT, f"{worst:.3g}", goal, worst <= GOAL,
                      "the outputs and gradients your program wrote for the grader's two ONNX files and its compiled "
                      "model, against PyTorch on the same weights; the traces counted, the dead nodes removed and the "
                      "kernels compared")


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
