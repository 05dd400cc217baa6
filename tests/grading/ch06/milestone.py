#!/usr/bin/python3
"""Chapter 6's milestone, judged: SimpleNet trained in mixed precision (float16 autocast, GradScaler, a
checkpointed hidden layer) by the learner's library (chapters 1-6) on Fashion-MNIST, and what each of the
chapter's pieces did on the way. The program gets the training set only and writes its trained weights;
they are evaluated here on the 10,000 test images, which it never sees. Accuracy alone passes pieces that
are wrong where the run does not go, so the checker also judges, with numbers drawn per run from
ms.secret_rng (tests/grading/ch06/milestone.cpp says what the program writes):
  ex2  the scale after every step follows PyTorch's rule (backoff on a skipped step, growth after
       growth_interval clean ones) at this run's growth_interval, and the run overflowed and skipped;
  ex1  the unscaled gradients of a probe batch (scaled by this run's scale) are the gradients the checker
       computes from the written weights, and a gradient with an inf in it skips the step and halves the scale;
  ex3  the probe's hidden layer is checkpointed with dropout in it: the gradients must be those of the
       forward's mask, which only a recomputation with the same random numbers gives.
See tests/grading/milestones.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

GOAL = 0.83
WHAT = "SimpleNet trained in float16 with GradScaler by your chapters 1-6, test accuracy"
NAMES = list(ms.SIMPLENET)
GRAD_RTOL = 1e-2   # float32 gradients against float64 ones (measured ~1e-6 to 1e-4); a wrong piece is off by O(1)


def draws():
    """This run's numbers: growth_interval, the probe's scale, where its inf goes, the probe's rows."""
    rng = ms.secret_rng("ch06 milestone")
    growth_interval = int(rng.integers(40, 81))
    scale = float(2.0 ** int(rng.integers(6, 13)))
    inf_param = int(rng.integers(0, len(NAMES)))
    inf_index = int(rng.integers(0, int(np.prod(ms.SIMPLENET[NAMES[inf_param]]))))
    rows = rng.choice(60000, size=int(rng.integers(48, 97)), replace=False)
    return growth_interval, scale, inf_param, inf_index, rows


def probe_batch(rows):
    x = ms.idx("train-images-idx3-ubyte.gz")[rows].reshape(-1, 784).astype(np.float32) / np.float32(255)
    x = (x - np.float32(0.2860)) / np.float32(0.3530)
    return x, ms.idx("train-labels-idx1-ubyte.gz")[rows].astype(np.int64)


def prepare(in_dir):
    ms.prepare_fashion_mnist_train_only(in_dir)
    growth_interval, scale, inf_param, inf_index, rows = draws()
    x, y = probe_batch(rows)
    ms.save(os.path.join(in_dir, "probe_config.npy"),
            np.array([growth_interval, scale, inf_param, inf_index], dtype=np.float64))
    ms.save(os.path.join(in_dir, "probe_x.npy"), x)
    ms.save(os.path.join(in_dir, "probe_y.npy"), y)


def replay_scales(flags, growth_interval):
    """PyTorch's _amp_update_scale_ from the skips, in float32: the scale after every step."""
    scale, tracker, out = np.float32(65536.0), 0, []
    for skipped in flags:
        if skipped:
            scale, tracker = np.float32(scale * np.float32(0.5)), 0
        elif tracker + 1 == growth_interval:
            grown = np.float32(scale * np.float32(2.0))
            scale = grown if np.isfinite(grown) else scale
            tracker = 0
        else:
            tracker += 1
        out.append(float(scale))
    return np.array(out)


def check_scales(out_dir, growth_interval):
    s = ms.load_output(out_dir, "scales.npy", dtype="float64")
    if s.ndim != 2 or s.shape[1] != 2 or s.shape[0] < 100 or not np.isin(s[:, 0], (0.0, 1.0)).all():
        raise ValueError("scales.npy is not one (skipped, scale) row per step")
    flags = s[:, 0] == 1.0
    if not flags.any():
        raise ValueError(f"no step was skipped in {len(flags)} steps: at growth_interval {growth_interval} the scale "
                         "doubles until float16 gradients overflow, so a run whose inf check works skips some "
                         "(ex1: does unscale_and_check find inf, not only NaN?)")
    want = replay_scales(flags, growth_interval)
    bad = np.nonzero(s[:, 1] != want)[0]
    if len(bad):
        i = int(bad[0])
        raise ValueError(f"the loss scale after step {i + 1} is {s[i, 1]:.9g}, PyTorch's rule gives {want[i]:.9g} "
                         f"(growth_interval {growth_interval}, {int(flags[:i + 1].sum())} skipped step(s) so far; ex2)")
    return int(flags.sum()), len(flags)


def softmax(z):
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def check_probe(out_dir, w, rows):
    x, y = probe_batch(rows)
    x = x.astype(np.float64)
    n = len(y)
    hidden = ms.load_output(out_dir, "probe_hidden.npy", shape=(n, 128), dtype="float32").astype(np.float64)
    pre = x @ w["fc1.weight"].T + w["fc1.bias"]
    kept = hidden != 0
    # The forward's hidden layer: ReLU(fc1(x)) times 2 where dropout kept a unit, 0 where it dropped one.
    if not np.allclose(hidden[kept], 2 * np.maximum(pre, 0)[kept], rtol=1e-4, atol=1e-5):
        raise ValueError("the probe's hidden layer is not dropout(ReLU(fc1(x))) of the written weights")
    active = pre > 1e-3
    dropped = float((~kept & active).sum() / max(active.sum(), 1))
    if not 0.3 <= dropped <= 0.7:
        raise ValueError(f"dropout(0.5) dropped {dropped:.0%} of the probe's active hidden units")
    p = softmax(hidden @ w["fc2.weight"].T + w["fc2.bias"])
    d = p.copy()
    d[np.arange(n), y] -= 1
    d /= n
    dpre = (d @ w["fc2.weight"]) * 2 * kept
    want = {"fc1.weight": dpre.T @ x, "fc1.bias": dpre.sum(0), "fc2.weight": d.T @ hidden, "fc2.bias": d.sum(0)}
    errors = {}
    for name in NAMES:
        g = ms.load_output(out_dir, f"probe_grad.{name}.npy", shape=ms.SIMPLENET[name], dtype="float32")
        ref = want[name]
        errors[name] = (float(np.abs(g - ref).max() / max(np.abs(ref).max(), 1e-12)) if np.isfinite(g).all()
                        else float("inf"))
    bad = [name for name in NAMES if errors[name] > GRAD_RTOL]
    if bad:
        # fc2's gradients do not go through the recomputed segment: right there and wrong in fc1 is ex3's
        # mask; wrong in fc2 too is the unscaling itself.
        why = ("ex3: the recomputed segment must draw the forward's dropout mask" if not bad[0].startswith("fc2")
               and all(errors[n] <= GRAD_RTOL for n in NAMES if n.startswith("fc2"))
               else "ex1: unscale_ divides every gradient by the scale")
        raise ValueError(f"the unscaled gradient of {bad[0]} on the probe batch is off by {errors[bad[0]]:.3g} of its "
                         f"largest value (allowed {GRAD_RTOL:g}; {why})")


def check_inf(out_dir, w, scale):
    step = ms.load_output(out_dir, "inf_step.npy", shape=(2,), dtype="float64")
    for name in NAMES:
        after = ms.load_output(out_dir, f"inf_after.{name}.npy", shape=ms.SIMPLENET[name], dtype="float32")
        if not np.array_equal(after.astype(np.float64), w[name]):
            raise ValueError(f"a gradient held +inf, yet the optimizer stepped: {name} changed (ex1: an inf must "
                             "be found and the step skipped)")
    if step[0] != 0.0:
        raise ValueError("a gradient held +inf, yet GradScaler.step says it stepped (ex1)")
    if step[1] != scale * 0.5:
        raise ValueError(f"after the skipped step the scale is {step[1]:.9g}, expected {scale * 0.5:.9g} (ex2: backoff)")


def check(out_dir):
    growth_interval, scale, _, _, rows = draws()
    goal = f">= {GOAL:.0%}, every piece checked"
    try:
        w = ms.load_weights(out_dir, ms.SIMPLENET)
    except ValueError as e:
        return ms.verdict(out_dir, "ch06", WHAT, "none", goal, False, str(e))
    x, labels = ms.test_set()
    acc = float((ms.simplenet(w, x.astype(np.float64)).argmax(1) == labels).mean())
    try:
        skipped, steps = check_scales(out_dir, growth_interval)
        check_probe(out_dir, w, rows)
        check_inf(out_dir, w, scale)
    except ValueError as e:
        return ms.verdict(out_dir, "ch06", WHAT, f"{acc:.2%}", goal, False, str(e))
    return ms.verdict(out_dir, "ch06", WHAT, f"{acc:.2%}", goal, acc >= GOAL,
                      f"the weights your program wrote, evaluated by the grader on the 10,000 test images; "
                      f"{skipped} of {steps} steps skipped and every scale as PyTorch's rule gives; the probe's "
                      f"unscaled, recomputed gradients match; an inf gradient skipped the step")


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
