#!/usr/bin/python3
"""Chapter 1's milestone, judged: accuracy of the learner's nearest-class-mean predictions on the 10,000
Fashion-MNIST test images (whose labels the program never sees). See tests/grading/milestones.py."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

GOAL = 0.65  # nearest class mean reaches about two thirds on Fashion-MNIST; a wrong piece falls far below


def prepare(in_dir):
    ms.save(os.path.join(in_dir, "train_images.npy"), ms.idx("train-images-idx3-ubyte.gz"))
    ms.save(os.path.join(in_dir, "train_labels.npy"), ms.idx("train-labels-idx1-ubyte.gz").astype("int64"))
    ms.save(os.path.join(in_dir, "test_images.npy"), ms.idx("t10k-images-idx3-ubyte.gz"))


def check(out_dir):
    labels = ms.idx("t10k-labels-idx1-ubyte.gz").astype("int64")
    what = "nearest class mean on Fashion-MNIST, test accuracy"
    try:
        pred = ms.load_output(out_dir, "predictions.npy", shape=labels.shape, dtype="int64")
    except ValueError as e:
        return ms.verdict(out_dir, "ch01", what, "none", f">= {GOAL:.0%}", False, str(e))
    acc = float((pred == labels).mean())
    return ms.verdict(out_dir, "ch01", what, f"{acc:.2%}", f">= {GOAL:.0%}", acc >= GOAL)


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
