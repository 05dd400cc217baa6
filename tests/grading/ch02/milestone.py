#!/usr/bin/python3
"""Chapter 2's milestone, judged: the loss of the small network the learner's autograd trained, recomputed
here from the parameters it wrote, and its gradients at those parameters against central differences
computed here (numpy, float64). See tests/grading/milestones.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

GOAL = 0.005  # y = sin(2 x0) cos(x1) has variance ~0.2; the reference network reaches ~0.0005
HELD_OUT_GOAL = 0.01  # the same network on points it never saw (the reference: ~0.001)
GRAD_TOL = 1e-5
SHAPES = {"w1": (2, 16), "b1": (16,), "w2": (16, 1), "b2": (1,)}


def data(part="train", n=128):
    """Points of this grading run (secret): the training set the program fits, or held-out points of the
    same square that it never sees."""
    rng = ms.secret_rng("ch02 data", part)
    x = rng.uniform(-1.5, 1.5, (n, 2))
    y = (np.sin(2 * x[:, 0]) * np.cos(x[:, 1]))[:, None]
    return x, y


def loss(p, x, y):
    h = np.tanh(x @ p["w1"] + p["b1"])
    d = h @ p["w2"] + p["b2"] - y
    return float(np.mean(d * d))


def probe():
    """This run's probe tensors (float64): a, b (away from 0), c [n, 1], W, gradcheck's z, its [atol, rtol]."""
    rng = ms.secret_rng("ch02 probe")
    n, m, k = (int(v) for v in rng.integers(2, 7, 3))
    b = rng.uniform(0.5, 2.0, (n, m)) * rng.choice([-1.0, 1.0], (n, m))
    return {"a": rng.standard_normal((n, m)), "b": b, "c": rng.standard_normal((n, 1)),
            "W": rng.standard_normal((k, m)) * 0.5, "z": rng.uniform(1.0, 2.0, int(rng.integers(2, 6))),
            "x2": rng.standard_normal(n2 := int(rng.integers(3, 9))), "w2": rng.standard_normal(n2) * 0.8,
            "g2": rng.standard_normal(n2),
            "tol": np.array([10.0 ** rng.uniform(-14, -13), 10.0 ** rng.uniform(-3, -2)])}


def prepare(in_dir):
    x, y = data()
    ms.save(os.path.join(in_dir, "x.npy"), x)
    ms.save(os.path.join(in_dir, "y.npy"), y)
    for name, a in probe().items():
        ms.save(os.path.join(in_dir, f"probe_{name}.npy"), a)


def check_probe(out_dir):
    """'' or which of the chapter's pieces the probe found wrong."""
    import torch
    pr = probe()
    # The engine on graphs where a node waits for several gradients (ex4).
    for name, what in (("skip", "skip connections and a parameter used at every step"),
                       ("roots", "two roots, one inside the other's graph")):
        x2, w2 = (torch.tensor(pr[n], requires_grad=True) for n in ("x2", "w2"))
        if name == "skip":
            h = x2.tanh()
            y = h
            for i in range(6):
                y = (y * w2).tanh() + (h if i % 2 == 0 else y * 0.5)
            (y * y).sum().backward()
        else:
            y1 = (x2 * w2).exp()
            torch.autograd.backward([(y1 * x2).tanh().sum(), y1], [None, torch.tensor(pr["g2"])])
        want = np.stack([x2.grad.numpy(), w2.grad.numpy()])
        got = ms.load_output(out_dir, f"probe_grad_{name}.npy", dtype="float64")
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-9, atol=1e-12):
            return f"the gradients of a graph with {what} are not PyTorch's (ex4: a node waits for every gradient)"
    t = {n: torch.tensor(v, requires_grad=True) for n, v in pr.items() if n in ("a", "b", "c", "W")}
    s = ((t["a"] / t["b"]) * t["c"]).mm(t["W"].t())
    (s + s * s).sum().backward()
    blame = {"a": "ex1 (the quotient's derivatives), ex3 or ex4", "b": "ex1: d(a / b)/db = -a / b^2",
             "c": "ex2: sum_to sums the broadcast dimension of a [n, 1] input, keeping it",
             "W": "ex3: the gradient of a transposed operand, or ex4"}
    for n in ("b", "c", "W", "a"):
        want = t[n].grad.numpy()
        got = ms.load_output(out_dir, f"probe_grad_{n}.npy", dtype="float64")
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-9, atol=1e-12):
            return (f"the gradient of sum(s + s*s), s = ((a / b) * c) @ W.t(), with respect to {n} "
                    f"{list(want.shape)} is not PyTorch's (suspect {blame[n]}; s reached twice needs both "
                    f"gradients: ex4)")
    z = torch.tensor(pr["z"], requires_grad=True)
    torch_ok = torch.autograd.gradcheck(lambda v: (v * 3.0).exp().sum(), (z,), atol=float(pr["tol"][0]),
                                        rtol=float(pr["tol"][1]), raise_exception=False)
    ok = ms.load_output(out_dir, "gradcheck.npy", shape=(1,), dtype="float64")[0] == 1.0
    if ok != torch_ok:
        return (f"gradcheck of sum(exp(3 z)) with atol {pr['tol'][0]:.1e} and rtol {pr['tol'][1]:.1e} says "
                f"{'ok' if ok else 'not ok'}; PyTorch's says {'ok' if torch_ok else 'not ok'} (ex5: the allowed "
                f"difference is atol + rtol * |numerical|)")
    return ""


def check(out_dir):
    x, y = data()
    what = "a 2-16-1 tanh network fits sin(2 x0) cos(x1), loss"
    try:
        p = {n: ms.load_output(out_dir, f"{n}.npy", shape=s, dtype="float64") for n, s in SHAPES.items()}
        g = {n: ms.load_output(out_dir, f"grad_{n}.npy", shape=s, dtype="float64") for n, s in SHAPES.items()}
    except ValueError as e:
        return ms.verdict(out_dir, "ch02", what, "none", f"< {GOAL}", False, str(e))
    value = loss(p, x, y)
    hx, hy = data("held out", 1024)
    held_out = loss(p, hx, hy)  # the fit, not the 128 points: a network that learned the function
    # The gradients the program wrote, against central differences at its own final parameters.
    worst, eps = 0.0, 1e-6
    for n in SHAPES:
        for i in range(p[n].size):
            q = {k: v.copy() for k, v in p.items()}
            q[n].reshape(-1)[i] += eps
            up = loss(q, x, y)
            q[n].reshape(-1)[i] -= 2 * eps
            down = loss(q, x, y)
            worst = max(worst, abs((up - down) / (2 * eps) - g[n].reshape(-1)[i]))
    grads_ok = bool(np.isfinite(worst) and worst <= GRAD_TOL)
    try:
        wrong = check_probe(out_dir)
    except ValueError as e:
        wrong = str(e)
    passed = bool(np.isfinite(value) and value < GOAL and np.isfinite(held_out) and held_out < HELD_OUT_GOAL
                  and grads_ok and not wrong)
    detail = (f"loss on 1024 held-out points {held_out:.4f} (goal < {HELD_OUT_GOAL}); gradients vs central "
              f"differences: max |difference| {worst:.1e} (allowed {GRAD_TOL:g})" + (f"; {wrong}" if wrong else
              "; the probe's gradients and gradcheck's verdict are PyTorch's"))
    return ms.verdict(out_dir, "ch02", what, f"{value:.4f}", f"< {GOAL}, gradients match", passed, detail)


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
