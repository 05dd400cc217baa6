#!/usr/bin/python3
"""Chapter 7's milestone, judged: the test accuracy of a BatchNorm + Dropout network trained on
Fashion-MNIST at a large step by the learner's library (chapters 1-7: clip_grad_norm_ on every step,
evaluate() picking the epoch), and every piece of the chapter on the checker's data. The program gets the
training set only and writes the weights it kept; they are evaluated here, in eval() mode, on the 10,000
test images, which it never sees. Accuracy alone passes pieces this run does not lean on, so the checker
also judges, with numbers drawn per run from ms.secret_rng (milestone.cpp says what the program writes):
  ex1       a probe batch's gradients clipped at a max_norm far below their norm and one far above it:
            scaled to the max_norm, and left alone, as the checker computes them from the kept weights;
  ex7, ex9  evaluate's and validate's accuracies of the kept network on the probe batch are the checker's
            (validate's the same on five calls), and evaluate left the model's parameters, buffers and train() mode as it found them;
  ex2-ex6, ex8  each find-the-bug program's network, trained on the checker's problem (a random teacher's
            labels, as in the exercises' tests), classifies held-out samples it never saw, within the
            exercises' bounds. See tests/grading/milestones.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from grade_compare import judge_classifier  # noqa: E402

GOAL = 0.84
VALIDATE_CALLS = 5  # milestone.cpp's kValidateCalls
WHAT = "a clipped, evaluated pipeline trained by your chapters 1-7, test accuracy"

HIDDEN = 256
SHAPES = {"fc1.weight": (HIDDEN, 784), "fc1.bias": (HIDDEN,), "bn.weight": (HIDDEN,), "bn.bias": (HIDDEN,),
          "bn.running_mean": (HIDDEN,), "bn.running_var": (HIDDEN,), "fc2.weight": (10, HIDDEN), "fc2.bias": (10,)}
PARAMS = ["fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight", "fc2.bias"]
RAW_RTOL = 0.05    # the reported gradient against the checker's float64 one, by norm (measured: below 1e-2)
CLIP_RTOL = 1e-4   # clipped against reported * coefficient: float32 rounding only; a wrong clip is off by O(1)

# The find-the-bug programs' problem: as in tests/grading/ch07/pytorch.py (16 features, 4 classes).
FEATURES, CLASSES, N_TRAIN, N_HELD_OUT = 16, 4, 512, 1024
MLP_WEIGHTS = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")


def dropout_mlp(w, x):
    """find_the_bug::DropoutMLP in eval() mode: Linear -> BatchNorm1d (running statistics, eps 1e-5) ->
    ReLU -> Dropout (the identity) -> Linear."""
    h = x @ w["fc1.weight"].T + w["fc1.bias"]
    h = (h - w["bn.running_mean"]) / np.sqrt(w["bn.running_var"] + 1e-5) * w["bn.weight"] + w["bn.bias"]
    return np.maximum(h, 0) @ w["fc2.weight"].T + w["fc2.bias"]


def dropout_mlp_grads(w, x, y):
    """The gradients of the mean cross-entropy of dropout_mlp (eval mode) with respect to its parameters."""
    n = len(y)
    h = x @ w["fc1.weight"].T + w["fc1.bias"]
    inv = 1 / np.sqrt(w["bn.running_var"] + 1e-5)
    z = (h - w["bn.running_mean"]) * inv
    a = z * w["bn.weight"] + w["bn.bias"]
    r = np.maximum(a, 0)
    logits = r @ w["fc2.weight"].T + w["fc2.bias"]
    e = np.exp(logits - logits.max(1, keepdims=True))
    d = e / e.sum(1, keepdims=True)
    d[np.arange(n), y] -= 1
    d /= n
    da = (d @ w["fc2.weight"]) * (a > 0)
    dh = da * w["bn.weight"] * inv
    return {"fc1.weight": dh.T @ x, "fc1.bias": dh.sum(0), "bn.weight": (da * z).sum(0), "bn.bias": da.sum(0),
            "fc2.weight": d.T @ r, "fc2.bias": d.sum(0)}


def draws():
    rng = ms.secret_rng("ch07 milestone")
    rows = rng.choice(60000, size=int(rng.integers(1200, 2001)), replace=False)
    max_norms = np.array([10.0 ** rng.uniform(-4, -2), 10.0 ** rng.uniform(3, 4)])
    teacher_w = rng.standard_normal((FEATURES, CLASSES))
    teacher_b = rng.standard_normal(CLASSES) * 0.5
    sets = {}
    for part, n in (("train", N_TRAIN), ("held_out", N_HELD_OUT)):
        x = rng.standard_normal((n, FEATURES)).astype(np.float32)
        sets[part] = (x, np.argmax(x.astype(np.float64) @ teacher_w + teacher_b, axis=1).astype(np.int64))
    return rows, max_norms, sets


def probe_batch(rows):
    x = ms.idx("train-images-idx3-ubyte.gz")[rows].reshape(-1, 784).astype(np.float32) / np.float32(255)
    x = (x - np.float32(0.2860)) / np.float32(0.3530)
    return x, ms.idx("train-labels-idx1-ubyte.gz")[rows].astype(np.int64)


def prepare(in_dir):
    ms.prepare_fashion_mnist_train_only(in_dir)
    rows, max_norms, sets = draws()
    x, y = probe_batch(rows)
    ms.save(os.path.join(in_dir, "probe_x.npy"), x)
    ms.save(os.path.join(in_dir, "probe_y.npy"), y)
    ms.save(os.path.join(in_dir, "probe_max_norms.npy"), max_norms)
    ms.save(os.path.join(in_dir, "ftb_x.npy"), sets["train"][0])
    ms.save(os.path.join(in_dir, "ftb_y.npy"), sets["train"][1])
    ms.save(os.path.join(in_dir, "ftb_classes.npy"), np.array(CLASSES, dtype=np.int64))


def check_clip(out_dir, w, x, y, max_norms):
    # The gradients before clipping are the probe's own (as the checker computes them in float64; a loose
    # bound: summing ~2,000 float32 terms that nearly cancel loses digits), then clipping is judged on them.
    want = dropout_mlp_grads(w, x, y)
    raw = {}
    for name in PARAMS:
        raw[name] = ms.load_output(out_dir, f"raw.{name}.npy", shape=SHAPES[name], dtype="float32").astype(np.float64)
        err = float(np.linalg.norm(raw[name] - want[name]) / max(np.linalg.norm(want[name]), 1e-30))
        if not err <= RAW_RTOL:
            raise ValueError(f"the probe's gradient of {name} is off by {err:.3g} of its norm (allowed {RAW_RTOL:g}): "
                             "not the gradient of the kept network's loss in eval() mode")
    total = float(np.sqrt(sum((v ** 2).sum() for v in raw.values())))
    norms = ms.load_output(out_dir, "clip_norms.npy", shape=(2,), dtype="float64")
    for k, max_norm in enumerate(max_norms):
        if not abs(norms[k] - total) <= CLIP_RTOL * total:
            raise ValueError(f"clip_grad_norm_ returned a total norm of {norms[k]:.6g}; the probe's gradients have "
                             f"{total:.6g} (ex1)")
        coef = min(1.0, max_norm / (total + 1e-6))
        for name in PARAMS:
            got = ms.load_output(out_dir, f"clip{k}.{name}.npy", shape=SHAPES[name], dtype="float32")
            expected = raw[name] * coef
            err = (float(np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30)) if np.isfinite(got).all()
                   else float("inf"))
            if err > CLIP_RTOL:
                what = ("scaled to a total norm of max_norm" if coef < 1 else
                        "left as they are (their norm is below max_norm: never scaled up)")
                raise ValueError(f"with max_norm {max_norm:.4g} and a total norm of {total:.4g}, the gradients must "
                                 f"be {what}; {name}'s is off by {err:.3g} of its largest value (ex1)")


def check_evaluate(out_dir, w, x, y):
    n = len(y)
    acc = float((dropout_mlp(w, x).argmax(1) == y).mean())
    e = ms.load_output(out_dir, "evaluate.npy", shape=(2 + VALIDATE_CALLS,), dtype="float64")
    tol = max(3.0 / n, 0.002)  # float32 against float64: a near-tie may go the other way
    if not abs(e[0] - acc) <= tol:
        raise ValueError(f"evaluate says {e[0]:.2%} of the {n} probe samples; the kept network (eval mode) "
                         f"classifies {acc:.2%} of them (ex7)")
    for name in SHAPES:
        after = ms.load_output(out_dir, f"eval_after.{name}.npy", shape=SHAPES[name], dtype="float32")
        if not np.array_equal(after.astype(np.float64), w[name]):
            raise ValueError(f"evaluate changed the model's {name} (ex7: it must leave the state as it found it)")
    if e[1] != 1.0:
        raise ValueError("evaluate left a model it got in train() mode in eval() mode (ex7: it must leave the "
                         "state as it found it)")
    answers = e[2:]
    for v in answers:
        if not abs(v - acc) <= tol:
            raise ValueError(f"validate says {v:.2%} of the {n} probe samples; the kept network (eval mode) "
                             f"classifies {acc:.2%} of them (ex9)")
    # Noise added to the validation data moves samples near a decision boundary both ways: one answer can
    # land within the tolerance, but the same network on the same data must get the same answer every time.
    if len(set(answers.tolist())) != 1:
        raise ValueError(f"validate gave {len(set(answers.tolist()))} different answers in {VALIDATE_CALLS} calls "
                         f"about the same network and probe ({', '.join(f'{v:.2%}' for v in answers)}; ex9)")


def tensor_record(a):
    return {"kind": "tensor", "dtype": "float64", "shape": list(a.shape), "data": a.astype(np.float64).ravel().tolist()}


def reference(sets):
    """What PyTorch's repaired program reaches on this problem (the worst of three initialisations), as
    tests/grading/ch07/pytorch.py measures it: bounds relative to it separate a repaired program from a
    mildly buggy one whatever the problem's difficulty."""
    import torch
    torch.manual_seed(int(ms.secret_rng("ch07 milestone torch").integers(1 << 31)))
    x, y = (torch.from_numpy(a) for a in sets["train"])
    hx, hy = (torch.from_numpy(a) for a in sets["held_out"])
    train, held = [], []
    for _ in range(3):
        model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.ReLU(), torch.nn.Linear(32, CLASSES))
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        for _step in range(200):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        with torch.no_grad():
            train.append(float(torch.nn.functional.cross_entropy(model(x), y)))
            held.append(float(torch.nn.functional.cross_entropy(model(hx), hy)))
    return max(train), max(held)


def check_programs(out_dir, sets):
    ref_train, ref_held = reference(sets)
    # The exercises' bounds (tests/grading/ch07/pytorch.py): (train loss, held-out accuracy, held-out loss,
    # last recorded loss is the network's, first layer moved).
    bounds = {"train_fast": (0.35, 0.85, 0.5, False, False), "train_labels": (0.35, 0.85, 0.5, False, False),
              "train_from_scratch": (0.35, 0.85, 0.5, False, False),
              "train_steady": (0.35, 0.85, round(1.25 * ref_held, 4), False, False),
              "train_probabilities": (round(1.6 * ref_train, 4), 0.85, 0.5, True, False),
              "train_features": (0.1, 0.85, 0.5, False, True)}
    exercise = {"train_fast": "ex2", "train_labels": "ex3", "train_from_scratch": "ex4", "train_steady": "ex5",
                "train_probabilities": "ex6", "train_features": "ex8"}
    initial = ms.load_output(out_dir, "ftb.initial_fc1.npy", shape=(32, FEATURES), dtype="float32")
    for program, (train_loss, acc, held_loss, last, moved) in bounds.items():
        got = {name: tensor_record(ms.load_output(out_dir, f"ftb.{program}.{name}.npy", dtype="float32"))
               for name in MLP_WEIGHTS}
        got["losses"] = tensor_record(ms.load_output(out_dir, f"ftb.{program}.losses.npy", dtype="float64"))
        got["initial fc1.weight"] = tensor_record(initial)
        spec = {"weights": list(MLP_WEIGHTS), "losses": "losses",
                "last_loss_of": "its training set" if last else None, "last_loss_tol": 0.02,
                "moved": ["initial fc1.weight", 0.05] if moved else None,
                "max_rise": 0.1 if program == "train_fast" else None,  # as the exercise: stable, not just low
                "sets": [{"label": label, "x": x.astype(float).tolist(), "y": y.astype(int).tolist(),
                          "max_loss": max_loss, "min_accuracy": min_acc}
                         for label, (x, y), max_loss, min_acc in
                         (("its training set", sets["train"], train_loss, None),
                          ("held-out samples", sets["held_out"], held_loss, acc))]}
        why = judge_classifier(spec, got)
        if why:
            raise ValueError(f"the find-the-bug program {program} ({exercise[program]}) on this run's problem: {why}")


def check(out_dir):
    rows, max_norms, sets = draws()
    goal = f">= {GOAL:.0%}, every piece checked"
    try:
        w = ms.load_weights(out_dir, SHAPES)
    except ValueError as e:
        return ms.verdict(out_dir, "ch07", WHAT, "none", goal, False, str(e))
    xt, labels = ms.test_set()
    acc = float((dropout_mlp(w, xt.astype(np.float64)).argmax(1) == labels).mean())
    x, y = probe_batch(rows)
    try:
        check_clip(out_dir, w, x.astype(np.float64), y, max_norms)
        check_evaluate(out_dir, w, x.astype(np.float64), y)
        check_programs(out_dir, sets)
    except ValueError as e:
        return ms.verdict(out_dir, "ch07", WHAT, f"{acc:.2%}", goal, False, str(e))
    return ms.verdict(out_dir, "ch07", WHAT, f"{acc:.2%}", goal, acc >= GOAL,
                      "the weights your program wrote, evaluated by the grader on the 10,000 test images; the "
                      "probe's clipped gradients, evaluate's and validate's accuracies and the six find-the-bug "
                      "programs' networks judged on the grader's data")


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
