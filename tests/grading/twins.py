#!/usr/bin/python3
"""The graded tests' PyTorch twins: inputs and expected results for tests/grading/chNN/*.cpp.

    /usr/bin/python3 twins.py OUT_DIR chNN/pytorch.py [hidden/chNN/pytorch.py ...]

A twin file (tests/grading/chNN/pytorch.py, hidden ones in tests/grading/hidden/chNN/pytorch.py) declares,
for a graded TEST_CASE of the same name, its inputs and what PyTorch 1.13 says each reported result is:

    @case("softmax: every dim of a float32 batch", x=randn(4, 10))
    def _(x):
        return {f"softmax(x, {d})": x.softmax(d) for d in (0, 1)}

Inputs are generated here (numpy, seeded by the test's and the input's names) and saved as .npy, so both
sides see the same bits; an input given as a string is saved as <name>.txt (grading::input_text reads it),
e.g. a list of view programs both sides apply. A result is a tensor (compared in shape, dtype and value; tolerance by dtype or
`approx(t, rtol=, atol=)`), a list of ints (shapes, strides), a bool, an int, a float, a string or a list
of strings (exact), or an error: `torch_error(lambda: ...)` runs PyTorch and expects an error exactly where
PyTorch raises one (the learner's code must then throw a kindling::Error), `raises("ShapeError")` asks for
one of a given class.

For every test this writes OUT_DIR/<slug>/in/<input>.npy (what the test process may read) and
OUT_DIR/<slug>/expected.json (what only the grader reads), plus OUT_DIR/manifest.json {test name: slug}.
One Python process for all twins of a chapter: `import torch` costs about a second.
"""
import hashlib
import json
import os
import sys
import zlib

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


def _seed(*names):
    return zlib.crc32("/".join(names).encode())


def encode(rname, v, case_name):
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
    out_dir, files = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    env = {"case": case, "randn": randn, "rand": rand, "randint": randint, "positive": positive,
           "distinct": distinct, "value": value, "approx": approx, "raises": raises, "torch_error": torch_error,
           "torch": torch, "np": np}
    for path in files:
        exec(compile(open(path).read(), path, "exec"), dict(env, __name__="twins", __file__=path))
    for name, (fn, inputs) in _CASES.items():
        run(name, fn, inputs, out_dir)
    manifest = {name: slug(name) for name in _CASES}
    tmp = os.path.join(out_dir, "manifest.json.tmp")
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(tmp, os.path.join(out_dir, "manifest.json"))
    print(f"oracle: {len(_CASES)} twin(s) from {len(files)} file(s) into {out_dir}")


if __name__ == "__main__":
    main()
