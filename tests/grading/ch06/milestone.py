#!/usr/bin/python3
"""Chapter 6's milestone, judged: the test accuracy of SimpleNet trained in mixed precision (float16
autocast, GradScaler, a checkpointed hidden layer) by the learner's library (chapters 1-6) on Fashion-MNIST. The program gets the training set and the test images; the test labels it sees are
zeros, the real ones stay here. See tests/grading/milestones.py."""
import gzip
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

GOAL = 0.83


def prepare(in_dir):
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz"):
        shutil.copyfile(os.path.join(ms.FASHION_MNIST, name), os.path.join(in_dir, name))
    labels = ms.idx("t10k-labels-idx1-ubyte.gz")
    header = b"\x00\x00\x08\x01" + len(labels).to_bytes(4, "big")
    with gzip.open(os.path.join(in_dir, "t10k-labels-idx1-ubyte.gz"), "wb") as f:
        f.write(header + bytes(len(labels)))  # zeros: the answers stay with the checker


def check(out_dir):
    labels = ms.idx("t10k-labels-idx1-ubyte.gz").astype("int64")
    what = "SimpleNet trained in float16 with GradScaler by your chapters 1-6, test accuracy"
    try:
        pred = ms.load_output(out_dir, "predictions.npy", shape=labels.shape, dtype="int64")
    except ValueError as e:
        return ms.verdict(out_dir, "ch06", what, "none", f">= {GOAL:.0%}", False, str(e))
    acc = float((pred == labels).mean())
    return ms.verdict(out_dir, "ch06", what, f"{acc:.2%}", f">= {GOAL:.0%}", acc >= GOAL)


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
