"""Shared by the chapters' milestone checkers (tests/grading/chNN/milestone.py).

A milestone is a program (tests/grading/chNN/milestone.cpp) that runs on the learner's library and is
graded by outcome. Its checker has two steps, both run by the grader outside the program's sandbox:

    milestone.py prepare IN_DIR     write what the program may read (never the answers, e.g. test labels)
    milestone.py check OUT_DIR      judge what the program wrote; print the one line
                                    MILESTONE chNN <what>: <value> (goal <bound>) PASS|FAIL
                                    and write OUT_DIR/../verdict.json

The program runs as `milestone_chNN IN_DIR OUT_DIR`. What it prints is for people; only the checker's
verdict counts. numpy only (runs under /usr/bin/python3).
"""
from __future__ import annotations

import gzip
import json
import os
import sys

import numpy as np

FASHION_MNIST = os.environ.get("KINDLING_FASHION_MNIST", "/usr/share/datasets/fashion-mnist")


def idx(name: str) -> np.ndarray:
    """An IDX file of Fashion-MNIST (gz) as a numpy array."""
    with gzip.open(os.path.join(FASHION_MNIST, name)) as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(dims)


def save(path: str, array: np.ndarray) -> None:
    tmp = path + ".tmp.npy"
    np.save(tmp, np.ascontiguousarray(array))
    os.replace(tmp, path)


def load_output(out_dir: str, name: str, shape=None, dtype=None) -> np.ndarray:
    """A file the program wrote, checked: a missing or malformed file fails the milestone, never the checker."""
    path = os.path.join(out_dir, name)
    if not os.path.exists(path):
        raise ValueError(f"the program wrote no {name}")
    a = np.load(path, allow_pickle=False)
    if shape is not None and tuple(a.shape) != tuple(shape):
        raise ValueError(f"{name} has shape {list(a.shape)}, expected {list(shape)}")
    if dtype is not None and a.dtype != np.dtype(dtype):
        raise ValueError(f"{name} has dtype {a.dtype}, expected {np.dtype(dtype)}")
    return a


def verdict(out_dir: str, chapter: str, what: str, value: str, goal: str, passed: bool, detail: str = "") -> int:
    line = f"MILESTONE {chapter} {what}: {value} (goal {goal}) {'PASS' if passed else 'FAIL'}"
    print(line)
    if detail:
        print(f"  {detail}")
    path = os.path.join(os.path.dirname(os.path.abspath(out_dir)), "verdict.json")
    with open(path + ".tmp", "w") as f:
        json.dump({"line": line, "passed": passed, "value": value, "goal": goal, "detail": detail}, f)
    os.replace(path + ".tmp", path)
    return 0 if passed else 1


def prepare_fashion_mnist_hidden_labels(in_dir: str) -> None:
    """The Fashion-MNIST folder a classifier milestone reads: the training set and the test images as
    they are, the test labels replaced by zeros (the answers stay with the checker)."""
    import shutil
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz"):
        shutil.copyfile(os.path.join(FASHION_MNIST, name), os.path.join(in_dir, name))
    labels = idx("t10k-labels-idx1-ubyte.gz")
    header = b"\x00\x00\x08\x01" + len(labels).to_bytes(4, "big")
    with gzip.open(os.path.join(in_dir, "t10k-labels-idx1-ubyte.gz"), "wb") as f:
        f.write(header + bytes(len(labels)))


def check_test_accuracy(out_dir: str, chapter: str, what: str, goal: float) -> int:
    """Judges OUT_DIR/predictions.npy (int64, one class per test image) against the real test labels."""
    labels = idx("t10k-labels-idx1-ubyte.gz").astype("int64")
    try:
        pred = load_output(out_dir, "predictions.npy", shape=labels.shape, dtype="int64")
    except ValueError as e:
        return verdict(out_dir, chapter, what, "none", f">= {goal:.0%}", False, str(e))
    acc = float((pred == labels).mean())
    return verdict(out_dir, chapter, what, f"{acc:.2%}", f">= {goal:.0%}", acc >= goal)


def main(prepare, check) -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("prepare", "check"):
        print("usage: milestone.py prepare IN_DIR | check OUT_DIR", file=sys.stderr)
        return 2
    os.makedirs(sys.argv[2], exist_ok=True)
    return prepare(sys.argv[2]) or 0 if sys.argv[1] == "prepare" else check(sys.argv[2])
