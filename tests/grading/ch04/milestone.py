#!/usr/bin/python3
"""Chapter 4's milestone, judged: two epochs of Fashion-MNIST through the learner's data pipeline must each
hold every training image exactly once, with its label, normalized as ToTensor + Normalize((0.2860,),
(0.3530,)) do, in two different shuffled orders. See tests/grading/milestones.py."""
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

N = 60000


def fingerprints(w):
    x = ms.idx("train-images-idx3-ubyte.gz").reshape(N, 784).astype(np.float32) / np.float32(255)
    x = (x - np.float32(0.2860)) / np.float32(0.3530)  # in float32, as the pipeline computes them
    return x.astype(np.float64) @ w


def prepare(in_dir):
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
                 "t10k-labels-idx1-ubyte.gz"):
        shutil.copyfile(os.path.join(ms.FASHION_MNIST, name), os.path.join(in_dir, name))
    ms.save(os.path.join(in_dir, "w.npy"), ms.secret_rng("ch04 projection").standard_normal(784))


def check(out_dir):
    what = "2 epochs of Fashion-MNIST through your pipeline"
    goal = "every image once per epoch, labelled, in shuffled and different orders"
    try:
        got = ms.load_output(out_dir, "fingerprints.npy", shape=(2, N), dtype="float64")
        lab = ms.load_output(out_dir, "labels.npy", shape=(2, N), dtype="int64")
    except ValueError as e:
        return ms.verdict(out_dir, "ch04", what, "none", goal, False, str(e))
    w = ms.secret_rng("ch04 projection").standard_normal(784)
    want = fingerprints(w)
    labels = ms.idx("train-labels-idx1-ubyte.gz").astype(np.int64)
    order = np.argsort(want, kind="stable")
    want_sorted, labels_sorted = want[order], labels[order]
    tol = 1e-3 * (1 + np.abs(want_sorted))
    matched = []
    problems = []
    for e in range(2):
        o = np.argsort(got[e], kind="stable")
        ok = np.abs(got[e][o] - want_sorted) <= tol
        # Images with (nearly) equal fingerprints may swap places: compare labels as multisets per value run.
        lab_ok = np.sort(lab[e][o]) == np.sort(labels_sorted) if ok.all() else np.zeros(N, bool)
        same_labels = bool(ok.all() and (lab[e][o] == labels_sorted).mean() > 0.999 and lab_ok.all())
        matched.append(int(ok.sum()))
        if not ok.all():
            problems.append(f"epoch {e + 1}: {N - int(ok.sum())} images do not match an image of the dataset "
                            f"(missing, repeated or wrongly normalized)")
        elif not same_labels:
            problems.append(f"epoch {e + 1}: the labels do not go with their images")
    shuffled = bool(not (np.diff(got[0]) == 0).all() and (np.argsort(got[0]) != np.arange(N)).mean() > 0.9)
    # Different orders: the fingerprint sequences of the two epochs differ in most positions.
    differ = bool((np.abs(got[0] - got[1]) > 1e-9).mean() > 0.9)
    if not shuffled:
        problems.append("epoch 1 is not shuffled")
    if not differ:
        problems.append("both epochs come in the same order (a new permutation per epoch?)")
    value = f"{matched[0]}+{matched[1]} of 2x{N} images matched" + ("" if not problems else "; " + "; ".join(problems))
    return ms.verdict(out_dir, "ch04", what, value, goal, not problems)


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
