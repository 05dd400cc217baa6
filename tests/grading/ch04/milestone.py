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
    seed, draws, q, image = probe()
    ms.save(os.path.join(in_dir, "probe_config.npy"), np.array([seed, draws], dtype=np.int64))
    ms.save(os.path.join(in_dir, "probe_q.npy"), q)
    ms.save(os.path.join(in_dir, "probe_image.npy"), image)


# A uniform shuffle of 3 gives each of the 6 orders 1/6 of the draws; chi-square with 5 degrees of freedom
# stays below 35 but once in a million runs. The classic biased shuffle (j drawn from all n) gives the
# orders 4/27 or 5/27 each: at 6,000 draws its chi-square is about 70.
PERM_DRAWS, CHI2_MAX = 6000, 35.0


def probe():
    rng = ms.secret_rng("ch04 probe")
    r, c = (int(v) for v in rng.integers(3, 9, 2))
    return (int(rng.integers(1, 1 << 62)), PERM_DRAWS, rng.standard_normal((r, c)).astype(np.float32),
            rng.standard_normal((1, int(rng.integers(3, 9)), int(rng.integers(3, 12)))).astype(np.float32))


def check_probe(out_dir):
    """'' or which piece the probe found wrong."""
    _, draws, q, image = probe()
    perms = ms.load_output(out_dir, "probe_perms.npy", shape=(draws, 3), dtype="int64")
    if not (np.sort(perms, 1) == np.arange(3)).all():
        return "random_permutation(3) gave something that is not a permutation of 0, 1, 2 (ex1)"
    counts = np.unique(perms[:, 0] * 9 + perms[:, 1] * 3 + perms[:, 2], return_counts=True)[1]
    counts = np.concatenate([counts, np.zeros(6 - len(counts))])
    chi2 = float(((counts - draws / 6) ** 2 / (draws / 6)).sum())
    if not chi2 < CHI2_MAX:
        return (f"{draws} draws of random_permutation(3): the 6 orders come {sorted(int(c) for c in counts)} times, "
                f"chi-square {chi2:.1f} (a uniform shuffle stays below {CHI2_MAX:g}; ex1)")
    got = ms.load_output(out_dir, "probe_collate.npy", dtype="float32")
    if got.shape != q.T.shape or not np.array_equal(got, q.T):
        return f"collate_tensors of the {q.shape[1]} columns of a [{q.shape[0]}, {q.shape[1]}] matrix (views) is not its transpose (ex2)"
    got = ms.load_output(out_dir, "probe_flip.npy", dtype="float32")
    if got.shape != image.shape or not np.array_equal(got, image[..., ::-1]):
        return f"hflip of a {list(image.shape)} image is not the image mirrored left to right (ex3)"
    got = ms.load_output(out_dir, "probe_order.npy", dtype="int64")
    if got.tolist() != list(range(24)):
        return ("a DataLoader with 4 workers handed out its 24 samples (the earlier ones slower to load) in another "
                "order than 0, 1, 2, ... (ex4: batches come out in order, whichever is ready first)")
    return ""


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
    try:
        wrong = check_probe(out_dir)
    except ValueError as e:
        wrong = str(e)
    if wrong:
        problems.append(wrong)
    value = f"{matched[0]}+{matched[1]} of 2x{N} images matched" + ("" if not problems else "; " + "; ".join(problems))
    return ms.verdict(out_dir, "ch04", what, value, goal + ", every piece checked", not problems)


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
