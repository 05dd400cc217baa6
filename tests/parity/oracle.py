#!/usr/bin/python3
"""The PyTorch oracle: computes expected values for a parity suite with real PyTorch 1.13.

    /usr/bin/python3 oracle.py ch01_tensor.py OUT_DIR

A suite file declares cases with `case(name, fn, **inputs)`. For every case this writes, under
OUT_DIR/<case name with / replaced by __>/:
    in_<input>.npy     the inputs (generated here, seeded by the case and input names)
    out_<k>.npy        PyTorch's outputs (a tuple/list gives several)
    gout_<k>.npy       for grad cases: the upstream gradient fed to backward for output k
    grad_<input>.npy   for grad cases: PyTorch's gradient of each floating-point input
and OUT_DIR/manifest.json listing cases with their tolerances. The C++ side (parity.hpp) loads these
files, runs the same computation with Kindling and compares. One Python process per suite:
`import torch` costs about a second.
"""
import json
import os
import sys
import zlib

import numpy as np
import torch

_CASES = []


class Input:
    """How to make one input: a generator name, a shape, a dtype, and options."""

    def __init__(self, kind, shape, dtype="float32", **opts):
        self.kind, self.shape, self.dtype, self.opts = kind, tuple(shape), dtype, opts

    def make(self, rng):
        k, s, o = self.kind, self.shape, self.opts
        if k == "randn":
            v = rng.standard_normal(s) * o.get("scale", 1.0) + o.get("shift", 0.0)
        elif k == "rand":
            lo, hi = o.get("low", 0.0), o.get("high", 1.0)
            v = rng.uniform(lo, hi, s)
        elif k == "randint":
            v = rng.integers(o["low"], o["high"], s)
        elif k == "positive":  # for log, sqrt, pow: away from 0
            v = rng.uniform(o.get("low", 0.5), o.get("high", 2.0), s)
        elif k == "distinct":  # a permutation: no ties (max/argmax/sort are then unambiguous)
            v = (rng.permutation(int(np.prod(s))).reshape(s) - np.prod(s) / 2) * o.get("scale", 0.1)
        elif k == "value":
            v = np.asarray(o["value"])
        else:
            raise ValueError(f"unknown input kind {k}")
        # np.array(order="C"), not np.ascontiguousarray: the latter turns 0-d arrays into 1-d ones.
        # NumPy has no bfloat16: such an input is made in float32, rounded by PyTorch, and travels as
        # the float32 values of its bfloat16s (exact), its dtype named in the manifest.
        if self.dtype == "bfloat16":
            return torch.from_numpy(np.array(v, dtype="float32", order="C")).bfloat16().float().numpy()
        return np.array(v, dtype=self.dtype, order="C")


def randn(*shape, dtype="float32", **o): return Input("randn", shape, dtype, **o)
def rand(*shape, dtype="float32", **o): return Input("rand", shape, dtype, **o)
def randint(low, high, *shape, dtype="int64"): return Input("randint", shape, dtype, low=low, high=high)
def positive(*shape, dtype="float32", **o): return Input("positive", shape, dtype, **o)
def distinct(*shape, dtype="float32", **o): return Input("distinct", shape, dtype, **o)
def value(v, dtype="float32"): return Input("value", np.asarray(v).shape, dtype, value=v)


def case(name, fn, grad=False, rtol=None, atol=None, expect_error=False, nograd=(), graph=False, **inputs):
    """Declares one parity case.

    name          unique, "op/what" (the C++ PARITY_CASE uses the same name)
    fn            takes the inputs as torch tensors (keyword order as given) and returns a tensor or
                  a tuple of tensors
    grad          also compare gradients of every floating-point input
    rtol, atol    tolerances (defaults depend on dtype: see DEFAULT_TOL)
    expect_error  PyTorch raises here, and Kindling must throw a kindling::Error
    nograd        names of floating-point inputs that must NOT require grad (class weights, ...)
    graph         also compare the backward graph: every node's name and its next_functions, from
                  each output down to the leaves (implies grad)
    """
    _CASES.append(dict(name=name, fn=fn, grad=grad or graph, rtol=rtol, atol=atol,
                       expect_error=expect_error, nograd=tuple(nograd), graph=graph, inputs=inputs))


def _graph(fn):
    """The backward graph below a grad_fn as nested lists: [name, [child, ...]], None for an edge
    that leads nowhere -- the same structure the C++ side builds from Kindling's nodes."""
    if fn is None:
        return None
    return [type(fn).__name__, [_graph(child) for child, _ in fn.next_functions]]


# float32 results of different but correct summation orders differ by a few ulps times sqrt(n).
# float16/bfloat16 results are float32 results rounded once: one ulp (2^-10, 2^-7) apart at most.
DEFAULT_TOL = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-11), "float16": (1e-3, 1e-5),
               "bfloat16": (8e-3, 1e-5)}


def _to_numpy(t):
    """A tensor as a NumPy array and its dtype's name; bfloat16 travels as float32 (exact)."""
    t = t.detach()
    if torch._is_zerotensor(t):
        # PyTorch 1.13's efficient zero tensor (a double backward's gradient through sgn and the like)
        # has no memory: .numpy() would read whatever lies at its null data pointer.
        t = torch.zeros(t.shape, dtype=t.dtype)
    if t.dtype == torch.bfloat16:
        return t.float().numpy(), "bfloat16"
    a = t.numpy()
    return a, str(a.dtype)


def _seed(*names):
    return zlib.crc32("/".join(names).encode())


def _run(c, out_dir):
    d = os.path.join(out_dir, c["name"].replace("/", "__"))
    os.makedirs(d, exist_ok=True)
    arrays = {}
    for iname, spec in c["inputs"].items():
        arrays[iname] = spec.make(np.random.default_rng(_seed(c["name"], iname)))
        np.save(os.path.join(d, f"in_{iname}.npy"), arrays[iname])
    tensors = {}
    for iname, a in arrays.items():
        t = torch.from_numpy(a.copy())
        if c["inputs"][iname].dtype == "bfloat16":
            t = t.bfloat16()
        if c["grad"] and t.is_floating_point() and iname not in c["nograd"]:
            t.requires_grad_(True)
        tensors[iname] = t
    entry = {"name": c["name"], "dir": os.path.basename(d), "inputs": list(arrays),
             "bfloat16_inputs": [i for i, spec in c["inputs"].items() if spec.dtype == "bfloat16"],
             "grad": c["grad"], "expect_error": c["expect_error"], "nograd": list(c["nograd"])}
    if c["expect_error"]:
        try:
            c["fn"](*tensors.values())
        except Exception as e:  # noqa: BLE001 — any PyTorch error is what we expect
            entry["torch_error"] = str(e).splitlines()[0][:200]
            return entry
        raise SystemExit(f"case {c['name']}: expect_error=True but PyTorch did not raise")
    out = c["fn"](*tensors.values())
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    entry["outputs"] = []
    for k, o in enumerate(outs):
        o_np, dt = _to_numpy(o)
        np.save(os.path.join(d, f"out_{k}.npy"), np.array(o_np, order="C"))
        rtol, atol = DEFAULT_TOL.get(dt, (0.0, 0.0))
        entry["outputs"].append({"dtype": dt, "shape": list(o_np.shape),
                                 "rtol": c["rtol"] if c["rtol"] is not None else rtol,
                                 "atol": c["atol"] if c["atol"] is not None else atol})
    if c["graph"]:
        entry["graphs"] = [_graph(o.grad_fn) for o in outs]
    if c["grad"]:
        diff_outs, gouts = [], []
        for k, o in enumerate(outs):
            if o.requires_grad:
                g = np.random.default_rng(_seed(c["name"], f"gout{k}")).standard_normal(o.shape)
                g = torch.from_numpy(np.array(g, order="C")).to(o.dtype)
                np.save(os.path.join(d, f"gout_{k}.npy"), np.array(_to_numpy(g)[0], order="C"))
                diff_outs.append(o)
                gouts.append(g)
        entry["gouts"] = [k for k, o in enumerate(outs) if o.requires_grad]
        torch.autograd.backward(diff_outs, gouts)
        entry["grads"] = []
        for iname, t in tensors.items():
            if t.requires_grad:
                g = t.grad if t.grad is not None else torch.zeros_like(t)
                g_np, g_dt = _to_numpy(g)
                np.save(os.path.join(d, f"grad_{iname}.npy"), g_np)
                rtol, atol = DEFAULT_TOL[g_dt]
                entry["grads"].append({"input": iname, "none": t.grad is None,
                                       "rtol": c["rtol"] if c["rtol"] is not None else rtol,
                                       "atol": c["atol"] if c["atol"] is not None else atol})
    return entry


def main():
    suite, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    sys.path.insert(0, os.path.dirname(os.path.abspath(suite)))
    code = compile(open(suite).read(), suite, "exec")
    exec(code, {"__name__": "suite", "case": case, "randn": randn, "rand": rand, "randint": randint,
                "positive": positive, "distinct": distinct, "value": value, "Input": Input,
                "torch": torch, "np": np})
    names = [c["name"] for c in _CASES]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SystemExit(f"duplicate case names: {sorted(dup)}")
    manifest = {"suite": os.path.basename(suite), "torch": torch.__version__,
                "cases": [_run(c, out_dir) for c in _CASES]}
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"oracle: {len(_CASES)} cases from {os.path.basename(suite)} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
