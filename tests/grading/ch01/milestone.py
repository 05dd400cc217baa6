#!/usr/bin/python3
"""Chapter 1's milestone, judged: the class means the learner's tensors computed from the training images,
used here to classify the 10,000 Fashion-MNIST test images by nearest mean (images the program never
sees). See tests/grading/milestones.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

GOAL = 0.65  # nearest class mean reaches about two thirds on Fashion-MNIST; a wrong piece falls far below


def probe():
    """This run's probe (float32 unless said): a shape with a 0 (int64), p, k, u [n, 1], v [1, m], logits."""
    rng = ms.secret_rng("ch01 probe")
    shape = [int(v) for v in rng.integers(2, 6, int(rng.integers(3, 5)))]
    shape[int(rng.integers(1, len(shape)))] = 0  # a 0 with dimensions on its left
    r, c = (int(v) for v in rng.integers(3, 9, 2))
    return {"shape": np.array(shape, dtype=np.int64), "p": rng.standard_normal((r, c)).astype(np.float32),
            # k != r / 2: there p[-k] is p[k], and a negative index read as a positive one would pass
            "k": np.array(int(rng.choice([k for k in range(1, r + 1) if 2 * k != r])), dtype=np.int64),
            "u": rng.standard_normal((r, 1)).astype(np.float32), "v": rng.standard_normal((1, c)).astype(np.float32),
            "logits": (rng.standard_normal((r, c)) * 30 + rng.uniform(100, 300)).astype(np.float32)}


def prepare(in_dir):
    ms.save(os.path.join(in_dir, "train_images.npy"), ms.idx("train-images-idx3-ubyte.gz"))
    ms.save(os.path.join(in_dir, "train_labels.npy"), ms.idx("train-labels-idx1-ubyte.gz").astype("int64"))
    for name, a in probe().items():
        ms.save(os.path.join(in_dir, f"probe_{name}.npy"), a)


def check_probe(out_dir):
    """'' or which piece the probe found wrong."""
    pr = probe()
    shape = [int(v) for v in pr["shape"]]
    want = [int(np.prod([max(s, 1) for s in shape[d + 1:]])) for d in range(len(shape))]  # PyTorch's strides
    got = ms.load_output(out_dir, "probe_strides.npy", dtype="int64")
    if got.tolist() != want:
        return f"a new tensor of shape {shape} has strides {got.tolist()}, PyTorch's are {want} (ex1)"
    p, k = pr["p"].astype(np.float64), int(pr["k"])
    e = np.exp(pr["logits"] - pr["logits"].max(1, keepdims=True).astype(np.float64))
    # (file, what, expected, rtol, atol, piece): float32 results against float64 ones
    cases = [("probe_select.npy", f"p[-{k}] of a [{p.shape[0]}, {p.shape[1]}] tensor", p[-k], 0, 0, "ex2"),
             ("probe_add.npy", "u [n, 1] and v [1, m], each expanded to [n, m] and made contiguous, added", pr["u"].astype(np.float64) + pr["v"], 1e-6, 1e-7, "ex3"),
             ("probe_softmax.npy", "softmax of logits in the hundreds", e / e.sum(1, keepdims=True), 1e-5, 1e-7, "ex5"),
             ("probe_sum.npy", f"the sum of the {p.size} elements of p", np.array(p.sum()), 1e-5,
              1e-6 * np.abs(p).sum(), "ex6")]
    for name, what, ref, rtol, atol, ex in cases:
        got = ms.load_output(out_dir, name, dtype="float32")
        if got.shape != ref.shape or not np.allclose(got, ref, rtol=rtol, atol=atol):
            return f"{what}: not the values numpy computes ({ex})"
    return ""


def check(out_dir):
    labels = ms.idx("t10k-labels-idx1-ubyte.gz").astype("int64")
    what = "nearest class mean on Fashion-MNIST, test accuracy"
    try:
        means = ms.load_weights(out_dir, {"means": (10, 784)})["means"]
    except ValueError as e:
        return ms.verdict(out_dir, "ch01", what, "none", f">= {GOAL:.0%}", False, str(e))
    # The program's rows are transposed images (permute(0, 2, 1)): the same pixel order here.
    t = ms.idx("t10k-images-idx3-ubyte.gz").transpose(0, 2, 1).reshape(-1, 784).astype(np.float64) / 255.0
    d2 = (t * t).sum(1, keepdims=True) - 2.0 * t @ means.T + (means * means).sum(1)[None, :]
    acc = float((d2.argmin(1) == labels).mean())
    try:
        wrong = check_probe(out_dir)
    except ValueError as e:
        wrong = str(e)
    return ms.verdict(out_dir, "ch01", what, f"{acc:.2%}", f">= {GOAL:.0%}, every piece checked",
                      acc >= GOAL and not wrong, wrong)


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
