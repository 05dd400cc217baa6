#!/usr/bin/python3
"""Chapter 5's milestone, judged: the test accuracy of SimpleNet trained by the learner's library (chapters
1-5) on Fashion-MNIST, and each of the chapter's pieces on numbers drawn here per run (ms.secret_rng). The
program gets the training set only and writes its trained weights; they are evaluated here on the 10,000
test images, which it never sees. Accuracy alone passes pieces that are wrong where the run does not go,
so the checker also computes with PyTorch, and compares (tests/grading/ch05/milestone.cpp says what the
program writes): SGD with momentum, dampening and weight decay, and Adam, a few steps each on the checker's
gradients (ex1, ex2); ReduceLROnPlateau with a cooldown on the checker's metrics (ex3); count_correct of the
trained network on the checker's rows (ex4). See tests/grading/milestones.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

GOAL = 0.85
WHAT = "SimpleNet trained by your chapters 1-5 on Fashion-MNIST, test accuracy"
STEP_RTOL = 1e-4  # float32 optimizer steps against PyTorch's float32 ones: rounding only


def draws():
    rng = ms.secret_rng("ch05 milestone")
    p = int(rng.integers(5, 40))
    steps = int(rng.integers(3, 7))
    config = np.array([
        rng.uniform(0.05, 0.5), rng.uniform(0.5, 0.95), rng.uniform(0.1, 0.5), rng.uniform(0, 0.1),  # SGD
        rng.uniform(1e-3, 1e-1), rng.uniform(0.8, 0.95), rng.uniform(0.99, 0.9999), 1e-8, rng.uniform(0, 0.1),  # Adam
        rng.uniform(0.1, 0.5), int(rng.integers(1, 3)), int(rng.integers(1, 4)),  # plateau: factor, patience, cooldown
    ], dtype=np.float64)
    param = rng.standard_normal(p).astype(np.float32)
    grads = rng.standard_normal((steps, p)).astype(np.float32)
    # Metrics that improve, stall (a cut), stall on through the cooldown, then improve and stall again.
    metrics = np.concatenate([np.linspace(1.0, 0.5, int(rng.integers(2, 5))), np.full(int(rng.integers(6, 10)), 0.6),
                              np.linspace(0.45, 0.3, 2), np.full(int(rng.integers(5, 9)), 0.35)])
    rows = rng.choice(60000, size=int(rng.integers(200, 500)), replace=False)
    return config, param, grads, metrics, rows


def prepare(in_dir):
    ms.prepare_fashion_mnist_train_only(in_dir)
    config, param, grads, metrics, rows = draws()
    x = ms.idx("train-images-idx3-ubyte.gz")[rows].reshape(-1, 784).astype(np.float32) / np.float32(255)
    for name, a in (("probe_config", config), ("probe_param", param), ("probe_grads", grads),
                    ("probe_metrics", metrics), ("probe_x", (x - np.float32(0.2860)) / np.float32(0.3530)),
                    ("probe_y", ms.idx("train-labels-idx1-ubyte.gz")[rows].astype(np.int64))):
        ms.save(os.path.join(in_dir, f"{name}.npy"), a)


def torch_steps(make, param, grads):
    import torch
    w = torch.tensor(param, requires_grad=True)
    opt = make([w])
    out = []
    for g in grads:
        w.grad = torch.tensor(g)
        opt.step()
        out.append(w.detach().numpy().copy())
    return np.stack(out).astype(np.float64)


def check_pieces(out_dir, w):
    import torch
    config, param, grads, metrics, rows = draws()
    c = [float(v) for v in config]
    want = {
        "sgd_steps.npy": ("SGD (momentum, dampening, weight decay)", "ex1", torch_steps(
            lambda p: torch.optim.SGD(p, lr=c[0], momentum=c[1], dampening=c[2], weight_decay=c[3]), param, grads)),
        "adam_steps.npy": ("Adam", "ex2", torch_steps(
            lambda p: torch.optim.Adam(p, lr=c[4], betas=(c[5], c[6]), eps=c[7], weight_decay=c[8]), param, grads)),
    }
    for name, (what, ex, ref) in want.items():
        got = ms.load_output(out_dir, name, shape=ref.shape, dtype="float32").astype(np.float64)
        bad = ~np.isclose(got, ref, rtol=STEP_RTOL, atol=1e-6)
        if bad.any():
            s, i = (int(v) for v in np.argwhere(bad)[0])
            raise ValueError(f"{what} on the grader's gradients: after step {s + 1}, element {i} is {got[s, i]:.9g}, "
                             f"PyTorch's is {ref[s, i]:.9g} ({ex})")
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=c[9], patience=int(c[10]), cooldown=int(c[11]))
    ref = []
    for m in metrics:
        sched.step(float(m))
        ref.append(opt.param_groups[0]["lr"])
    got = ms.load_output(out_dir, "plateau_lrs.npy", shape=(len(metrics),), dtype="float64")
    bad = ~np.isclose(got, ref, rtol=1e-9)
    if bad.any():
        e = int(np.argmax(bad))
        raise ValueError(f"ReduceLROnPlateau (factor {c[9]:.3g}, patience {int(c[10])}, cooldown {int(c[11])}) on the "
                         f"grader's metrics: after epoch {e + 1} the lr is {got[e]:.6g}, PyTorch's is {ref[e]:.6g} (ex3)")
    x = ms.idx("train-images-idx3-ubyte.gz")[rows].reshape(-1, 784).astype(np.float32) / np.float32(255)
    x = ((x - np.float32(0.2860)) / np.float32(0.3530)).astype(np.float64)
    y = ms.idx("train-labels-idx1-ubyte.gz")[rows].astype(np.int64)
    logits = ms.simplenet(w, x)
    top2 = np.sort(logits, 1)[:, -2:]
    correct = int((logits.argmax(1) == y).sum())
    near_ties = int((top2[:, 1] - top2[:, 0] < 1e-4).sum())  # float32 may order these the other way
    got = ms.load_output(out_dir, "correct.npy", shape=(1,), dtype="float64")[0]
    if not abs(got - correct) <= near_ties:
        raise ValueError(f"count_correct says {got:.0f} of the grader's {len(y)} rows; the trained network classifies "
                         f"{correct} of them correctly (ex4)")


def check(out_dir):
    goal = f">= {GOAL:.0%}, every piece checked"
    try:
        w = ms.load_weights(out_dir, ms.SIMPLENET)
    except ValueError as e:
        return ms.verdict(out_dir, "ch05", WHAT, "none", goal, False, str(e))
    x, labels = ms.test_set()
    acc = float((ms.simplenet(w, x.astype(np.float64)).argmax(1) == labels).mean())
    try:
        check_pieces(out_dir, w)
    except ValueError as e:
        return ms.verdict(out_dir, "ch05", WHAT, f"{acc:.2%}", goal, False, str(e))
    return ms.verdict(out_dir, "ch05", WHAT, f"{acc:.2%}", goal, acc >= GOAL,
                      "the weights your program wrote, evaluated by the grader on the 10,000 test images; SGD, Adam, "
                      "ReduceLROnPlateau and count_correct as PyTorch computes them on the grader's numbers")


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
