"""Shared by the chapters' milestone checkers (tests/grading/chNN/milestone.py).

A milestone is a program (tests/grading/chNN/milestone.cpp) that runs on the learner's library and is
graded by outcome. Its checker has two steps, both run by the grader outside the program's sandbox:

    milestone.py prepare IN_DIR     write what the program may read (never the answers, e.g. test labels)
    milestone.py check OUT_DIR      judge what the program wrote; print the one line
                                    MILESTONE chNN <what>: <value> (goal <bound>) PASS|FAIL
                                    and write OUT_DIR/../verdict.json

The program runs as `milestone_chNN IN_DIR OUT_DIR`. What it prints is for people; only the checker's
verdict counts. numpy only (runs under /usr/bin/python3).

The checker runs outside the sandbox, on files the learner's program wrote: it reads them only through
load_output / read_text_output (regular files, never through a symlink, size-capped: scripts/grade_safe.py)
and never quotes what they hold in its verdict (a verdict is shown to the student; a file could hold
anything the program got hold of).
"""
from __future__ import annotations

import gzip
import io
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from grade_safe import UnsafeOutput, read_output  # noqa: E402

MAX_OUTPUT_BYTES = 64 << 20  # the largest file a milestone writes is about 1 MB

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


def read_text_output(out_dir: str, name: str, cap: int = 1 << 20) -> str:
    """A text file the program wrote ('' when there is none); ValueError when it is not a regular file or
    too big. Compare it; never quote it in a verdict."""
    try:
        return read_output(out_dir, name, cap).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""
    except OSError as e:
        raise ValueError(f"{name} could not be read ({e.strerror})") from None


def load_output(out_dir: str, name: str, shape=None, dtype=None) -> np.ndarray:
    """A file the program wrote, checked: a missing, unsafe (symlink, FIFO, device, too big) or malformed
    file fails the milestone, never the checker, and its contents are never quoted."""
    try:
        data = read_output(out_dir, name, MAX_OUTPUT_BYTES)
    except FileNotFoundError:
        raise ValueError(f"the program wrote no {name}") from None
    except UnsafeOutput:
        raise
    except OSError as e:
        raise ValueError(f"{name} could not be read ({e.strerror})") from None
    try:
        a = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception:  # whatever numpy says about a malformed file, it is the program's failure
        raise ValueError(f"{name} is not a valid .npy file") from None
    if not isinstance(a, np.ndarray):
        raise ValueError(f"{name} is not a single array")
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
    # A fresh file, never through a link a program (without the sandbox) could have left in its place.
    try:
        os.unlink(path + ".tmp")
    except FileNotFoundError:
        pass
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w") as f:
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
