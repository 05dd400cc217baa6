#!/usr/bin/python3
"""The graded tests' PyTorch twins: inputs and expected results for tests/grading/chNN/*.cpp.

    /usr/bin/python3 twins.py OUT_DIR chNN/pytorch.py [hidden/chNN/pytorch.py ...]

A twin file (tests/grading/chNN/pytorch.py, hidden ones in tests/grading/hidden/chNN/pytorch.py) declares,
for a graded TEST_CASE of the same name, its inputs and what PyTorch 1.13 says each reported result is:

    @case("softmax: every dim of a float32 batch", x=randn(4, 10))
    def _(x):
        return {f"softmax(x, {d})": x.softmax(d) for d in (0, 1)}

Inputs are generated here and saved as .npy, so both sides see the same bits. They are drawn afresh for
every grading run: numpy generators seeded by a secret the grader draws after the build (os.urandom) and
hands to this process on its standard input, mixed with the test's and the input's names. The secret is
never written to disk and never reaches a test process, so a submission cannot know PyTorch's answers in
advance and replay them (the learner's own `make grade` sees other inputs than the instructor's). A twin
whose results would be guessable from fixed shapes (strides, broadcast shapes) draws its shapes from the
run too: `vary(lo, hi)` is an integer in [lo, hi) and `run_rng` a generator, both secret per run.
Inputs given as literal arrays stay as they are (a chosen edge case); an input given as a string is saved as <name>.txt (grading::input_text reads it),
e.g. a list of view programs both sides apply. A result is a tensor (compared in shape, dtype and value; tolerance by dtype or
`approx(t, rtol=, atol=)`), a list of ints (shapes, strides), a bool, an int, a float, a string or a list
of strings (exact), or an error: `torch_error(lambda: ...)` runs PyTorch and expects an error exactly where
PyTorch raises one (the learner's code must then throw a kindling::Error), `raises("ShapeError")` asks for
one of a given class.

For every test this writes OUT_DIR/<slug>/in/<input>.npy (what the test process may read) and
OUT_DIR/<slug>/expected.json (what only the grader reads), plus OUT_DIR/manifest.json {test name: slug}.
One Python process for all twins of a chapter: `import torch` costs about a second. The grader asks only
for the twins of the tests it runs (`make grade EX=ch02.ex3` computes ex3's), and OUT_DIR is in its
private working folder, gone when it ends.

    stdin: {"secret": "<hex>", "only": ["test name", ...] or null}   (without stdin: a fresh secret, all)

A result may also be judged rather than compared: `judge_classifier(...)` hands grade_compare.py held-out
data the test never sees and the bounds its reported network must meet there (see that function).
"""
import hashlib
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "parity"))
from oracle import Input, rand, randint, randn, positive, distinct, value  # noqa: E402,F401  (parity's generators)

_CASES = {}
# float32 results of different but correct summation orders differ by a few ulps times sqrt(n).
DEFAULT_TOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-11)}


def slug(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()[:16]


class Approx:
    def __init__(self, t, rtol=None, atol=None):
        self.t, self.rtol, self.atol = t, rtol, atol


def approx(t, rtol=None, atol=None):
    """A tensor result with its own tolerance."""
    return Approx(t, rtol, atol)


class Raises:
    def __init__(self, error=None, torch_message="", contains=()):
        self.error, self.torch_message, self.contains = error, torch_message, list(contains)


class NoError:
    pass


def raises(error=None, contains=()):
    """The learner's code must throw a kindling::Error (of class `error`, e.g. "ShapeError", if given) whose
    message contains every string of `contains`."""
    return Raises(error, "", contains)


def torch_error(fn, error=None, contains=()):
    """Whatever PyTorch does: an error where fn() raises, no error where it does not."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 — any PyTorch error is what we mirror
        return Raises(error, f"{type(e).__name__}: {str(e).splitlines()[0][:200]}", contains)
    return NoError()


def case(name, **inputs):
    def register(fn):
        if name in _CASES:
            raise SystemExit(f"oracle: two twins named {name!r}")
        _CASES[name] = (fn, inputs)
        return fn
    return register


_SECRET = b""  # this run's secret (main() reads it); never written anywhere


def _seed(*names):
    """A generator seed for one input of one test: the run's secret and the names, hashed together."""
    return int.from_bytes(hashlib.blake2b("/".join(names).encode(), key=_SECRET[:64], digest_size=8).digest(),
                          "little")


class _RunRng:
    """The run's own generator for twins that vary shapes, drawn lazily so that it follows the secret."""
    def __init__(self):
        self._rng = None

    def __getattr__(self, attr):
        if self._rng is None:
            self._rng = np.random.default_rng(_seed("run"))
        return getattr(self._rng, attr)


run_rng = _RunRng()


def case_rng(*names):
    """A generator for a twin's own draws (a teacher network, a held-out set), secret per run."""
    return np.random.default_rng(_seed("case", *names))


def vary(lo, hi):
    """An integer in [lo, hi), secret per grading run (a shape that a submission cannot know in advance)."""
    return int(run_rng.integers(lo, hi))


class Judged:
    """A result judged outside the test process by grade_compare.py from what the test reported."""
    def __init__(self, spec):
        self.spec = spec


def judge_classifier(weights, sets, losses=None, last_loss_of=None, last_loss_tol=0.02, moved=None, max_rise=None):
    """A two-layer ReLU classifier (Linear -> ReLU -> Linear, PyTorch's [out, in] weights) the test trained
    and reported: `weights` names the four reported tensors (fc1.weight, fc1.bias, fc2.weight, fc2.bias);
    each entry of `sets` is (label, x, y, max_loss, min_accuracy) with data the checker evaluates the
    network on (held-out data the test process never sees, or the training set it had); `losses` names a
    reported float64 tensor of per-step losses that must all be finite, and with `last_loss_of` (a label
    of `sets`) the last one must be the network's own loss there within last_loss_tol; `moved` = (name of
    the reported initial fc1.weight, least relative change) asks that the first layer moved; `max_rise`
    (with `losses`) that no recorded loss rises more than that fraction above the lowest one before it."""
    def arr(t):
        return np.asarray(t.detach().numpy() if isinstance(t, torch.Tensor) else t)
    spec = {"kind": "classifier", "weights": list(weights), "sets": [], "losses": losses,
            "last_loss_of": last_loss_of, "last_loss_tol": last_loss_tol, "moved": list(moved) if moved else None,
            "max_rise": max_rise}
    for label, x, y, max_loss, min_acc in sets:
        spec["sets"].append({"label": label, "x": arr(x).astype(float).tolist(), "y": arr(y).astype(int).tolist(),
                             "max_loss": max_loss, "min_accuracy": min_acc})
    return Judged(spec)


def judge_permutations(result, n, rows=None, not_sorted=False, uniform=None, same_as=(), differs_from=()):
    """The reported int64 tensor `result` ([rows, n], or [n]) must hold permutations of 0..n-1, judged
    outside the test process by grade_compare.py: with not_sorted, some draw is not in order; with
    uniform = (chi2_max, first_tol), all n! orders appear with a chi-square below chi2_max and every first
    element within first_tol of rows / n; it must equal each reported result of `same_as` and differ from
    each of `differs_from`."""
    spec = {"kind": "permutations", "result": result, "n": int(n), "rows": rows, "not_sorted": not_sorted,
            "same_as": list(same_as), "differs_from": list(differs_from),
            "uniform": {"chi2_max": uniform[0], "first_tol": uniform[1]} if uniform else None}
    return Judged(spec)


def judge_values(result, uniform=None, spread=None, dropout=None, mask_grad=None):
    """The reported floating-point tensor `result` judged outside the test process by grade_compare.py
    (judge_values): uniform = (b, tol), spread = (b, least), dropout = (x, p) with x the twin's input,
    mask_grad = (name of the reported dropout output, p)."""
    spec = {"kind": "values", "result": result, "uniform": list(uniform) if uniform else None,
            "spread": list(spread) if spread else None, "mask_grad": list(mask_grad) if mask_grad else None,
            "dropout": [[float(v) for v in np.asarray(dropout[0]).reshape(-1)], float(dropout[1])] if dropout else None}
    return Judged(spec)


def encode(rname, v, case_name):
    if isinstance(v, Judged):
        return v.spec
    if isinstance(v, Approx):
        e = encode(rname, v.t, case_name)
        if v.rtol is not None:
            e["rtol"] = v.rtol
        if v.atol is not None:
            e["atol"] = v.atol
        return e
    if isinstance(v, Raises):
        return {"kind": "error", "raises": True, "error": v.error, "torch": v.torch_message, "contains": v.contains}
    if isinstance(v, NoError):
        return {"kind": "error", "raises": False}
    if isinstance(v, torch.Tensor):
        a = v.detach().numpy()
        dt = str(a.dtype)
        rtol, atol = DEFAULT_TOL.get(dt, (0.0, 0.0))
        data = [float(x) if dt.startswith("float") else (bool(x) if dt == "bool" else int(x)) for x in a.reshape(-1)]
        data = [("nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")) if isinstance(x, float) and not np.isfinite(x)
                else x for x in data]
        return {"kind": "tensor", "dtype": dt, "shape": list(a.shape), "data": data, "rtol": rtol, "atol": atol}
    if isinstance(v, bool):
        return {"kind": "bool", "data": v}
    if isinstance(v, int):
        return {"kind": "int", "data": v}
    if isinstance(v, float):
        return {"kind": "float", "data": v, "rtol": 1e-6, "atol": 1e-9}
    if isinstance(v, str):
        return {"kind": "str", "data": v}
    if isinstance(v, (list, tuple, torch.Size)) and all(isinstance(x, str) for x in v) and len(v) > 0:
        return {"kind": "strs", "data": list(v)}
    if isinstance(v, (list, tuple, torch.Size)) and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                                                         for x in v):
        return {"kind": "ints", "data": [int(x) for x in v]}
    raise SystemExit(f"oracle: case {case_name!r}, result {rname!r}: cannot encode {type(v).__name__}")


def run(name, fn, inputs, out_dir):
    d = os.path.join(out_dir, slug(name))
    os.makedirs(os.path.join(d, "in"), exist_ok=True)
    tensors = {}
    for iname, spec in inputs.items():
        if isinstance(spec, str):
            with open(os.path.join(d, "in", f"{iname}.txt"), "w") as f:
                f.write(spec)
            tensors[iname] = spec
            continue
        arr = spec.make(np.random.default_rng(_seed(name, iname))) if isinstance(spec, Input) else np.asarray(spec)
        np.save(os.path.join(d, "in", f"{iname}.npy"), arr)
        # A fresh row-major tensor, as the C++ side loads it (numpy may give an empty array odd strides).
        t = torch.from_numpy(arr.copy())
        tensors[iname] = torch.empty(t.shape, dtype=t.dtype).copy_(t)
    results = fn(**tensors)
    if not isinstance(results, dict) or not results:
        raise SystemExit(f"oracle: case {name!r} must return a non-empty dict of results")
    expected = {"name": name, "results": {r: encode(r, v, name) for r, v in results.items()}}
    tmp = os.path.join(d, "expected.json.tmp")
    with open(tmp, "w") as f:
        json.dump(expected, f)
    os.replace(tmp, os.path.join(d, "expected.json"))


def main():
    global _SECRET
    out_dir, files = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    request = json.loads(sys.stdin.read() or "{}") if not sys.stdin.isatty() else {}
    _SECRET = bytes.fromhex(request["secret"]) if request.get("secret") else os.urandom(32)
    only = set(request["only"]) if request.get("only") is not None else None
    torch.manual_seed(_seed("torch") % (1 << 63))  # twins that draw with torch (a dropout mask) follow the run
    torch.set_num_threads(1)
    env = {"case": case, "randn": randn, "rand": rand, "randint": randint, "positive": positive,
           "distinct": distinct, "value": value, "approx": approx, "raises": raises, "torch_error": torch_error,
           "torch": torch, "np": np, "vary": vary, "run_rng": run_rng, "case_rng": case_rng,
           "judge_classifier": judge_classifier, "judge_permutations": judge_permutations,
           "judge_values": judge_values}
    for path in files:
        exec(compile(open(path).read(), path, "exec"), dict(env, __name__="twins", __file__=path))
    ran = [name for name in _CASES if only is None or name in only]
    for name in ran:
        fn, inputs = _CASES[name]
        run(name, fn, inputs, out_dir)
    manifest = {name: slug(name) for name in ran}
    tmp = os.path.join(out_dir, "manifest.json.tmp")
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(tmp, os.path.join(out_dir, "manifest.json"))
    print(f"oracle: {len(ran)} of {len(_CASES)} twin(s) from {len(files)} file(s) into {out_dir}")


if __name__ == "__main__":
    main()
