"""Shared by the chapters' milestone checkers (tests/grading/chNN/milestone.py).

A milestone is a program (tests/grading/chNN/milestone.cpp) that runs on the learner's library and is
graded by outcome. Its checker has two steps, both run by the grader outside the program's sandbox:

    milestone.py prepare IN_DIR     write what the program may read (never the answers: no test images,
                                    no test labels)
    milestone.py check OUT_DIR      judge what the program wrote; print the one line
                                    MILESTONE chNN <what>: <value> (goal <bound>) PASS|FAIL
                                    and write OUT_DIR/../verdict.json

The program runs as `milestone_chNN IN_DIR OUT_DIR`. What it prints is for people; only the checker's
verdict counts, and the checker never trusts what the program says about data it was given: a program
that learns writes its trained weights, and the checker evaluates them on data the program never saw
(the 10,000 Fashion-MNIST test images, which are not in IN_DIR). What a checker draws (a network's
weights, inputs, a projection) comes from `secret_rng`: a secret the grader draws for each run and hands
to both steps on their standard input, so a submission cannot know it in advance. numpy only, and torch
where a checker needs it (runs under /usr/bin/python3).

The checker runs outside the sandbox, on files the learner's program wrote: it reads them only through
load_output / read_text_output (regular files, never through a symlink, size-capped: scripts/grade_safe.py)
and never quotes what they hold in its verdict (a verdict is shown to the student; a file could hold
anything the program got hold of).
"""
from __future__ import annotations

import gzip
import hashlib
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


_SECRET = b""  # this run's secret (main() reads it from stdin); never written anywhere


def secret_rng(*names: str) -> np.random.Generator:
    """A generator that only this grading run can reproduce: its secret and `names`, hashed together."""
    seed = hashlib.blake2b("/".join(names).encode(), key=_SECRET[:64], digest_size=16).digest()
    return np.random.default_rng(int.from_bytes(seed, "little"))


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


def prepare_fashion_mnist_train_only(in_dir: str) -> None:
    """The Fashion-MNIST folder a classifier milestone reads: the training set only. The test images and
    labels stay with the checker, which evaluates the weights the program wrote on them."""
    import shutil
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"):
        shutil.copyfile(os.path.join(FASHION_MNIST, name), os.path.join(in_dir, name))


def test_set() -> tuple[np.ndarray, np.ndarray]:
    """The 10,000 test images as float32 rows [10000, 784], normalised as the programs normalise their
    training images (ToTensor, then Normalize((0.2860,), (0.3530,))), and their labels."""
    x = idx("t10k-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / np.float32(255)
    x = (x - np.float32(0.2860)) / np.float32(0.3530)
    return x, idx("t10k-labels-idx1-ubyte.gz").astype(np.int64)


def load_weights(out_dir: str, shapes: dict[str, tuple]) -> dict[str, np.ndarray]:
    """The trained weights the program wrote (<name>.npy, float32, of the given shapes), as float64 and
    checked finite; a ValueError says what is wrong."""
    w = {}
    for name, shape in shapes.items():
        a = load_output(out_dir, f"{name}.npy", shape=shape, dtype="float32")
        if not np.isfinite(a).all():
            raise ValueError(f"{name}.npy holds non-finite values (the training diverged)")
        w[name] = a.astype(np.float64)
    return w


def check_weights_accuracy(out_dir: str, chapter: str, what: str, goal: float, shapes: dict[str, tuple],
                           forward) -> int:
    """Judges the trained weights the program wrote: `forward(weights, x)` (the reference network, in
    numpy, in eval mode) classifies the 10,000 test images, which the program never saw."""
    try:
        w = load_weights(out_dir, shapes)
    except ValueError as e:
        return verdict(out_dir, chapter, what, "none", f">= {goal:.0%}", False, str(e))
    x, labels = test_set()
    logits = forward(w, x.astype(np.float64))
    acc = float((logits.argmax(1) == labels).mean())
    return verdict(out_dir, chapter, what, f"{acc:.2%}", f">= {goal:.0%}", acc >= goal,
                   "the weights your program wrote, evaluated by the grader on the 10,000 test images")


SIMPLENET = {"fc1.weight": (128, 784), "fc1.bias": (128,), "fc2.weight": (10, 128), "fc2.bias": (10,)}


def simplenet(w: dict, x: np.ndarray) -> np.ndarray:
    """SimpleNet (chapters 5 and 6): Linear(784, 128) -> ReLU -> Linear(128, 10), [n, 784] -> [n, 10]."""
    h = np.maximum(x @ w["fc1.weight"].T + w["fc1.bias"], 0)
    return h @ w["fc2.weight"].T + w["fc2.bias"]


def main(prepare, check) -> int:
    """stdin: {"secret": "<hex>"} from the grader, the same for both steps of one run (without it, a
    fresh one: prepare and check then disagree about anything drawn from secret_rng)."""
    global _SECRET
    if len(sys.argv) != 3 or sys.argv[1] not in ("prepare", "check"):
        print("usage: milestone.py prepare IN_DIR | check OUT_DIR", file=sys.stderr)
        return 2
    request = json.loads(sys.stdin.read() or "{}") if not sys.stdin.isatty() else {}
    _SECRET = bytes.fromhex(request["secret"]) if request.get("secret") else os.urandom(32)
    os.makedirs(sys.argv[2], exist_ok=True)
    return prepare(sys.argv[2]) or 0 if sys.argv[1] == "prepare" else check(sys.argv[2])
