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


def prepare(in_dir):
    x, y = data()
    ms.save(os.path.join(in_dir, "x.npy"), x)
    ms.save(os.path.join(in_dir, "y.npy"), y)


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
    passed = bool(np.isfinite(value) and value < GOAL and np.isfinite(held_out) and held_out < HELD_OUT_GOAL
                  and grads_ok)
    detail = (f"loss on 1024 held-out points {held_out:.4f} (goal < {HELD_OUT_GOAL}); gradients vs central "
              f"differences: max |difference| {worst:.1e} (allowed {GRAD_TOL:g})")
    return ms.verdict(out_dir, "ch02", what, f"{value:.4f}", f"< {GOAL}, gradients match", passed, detail)


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
