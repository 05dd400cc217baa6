"""The trusted comparer (used by grade.py): a graded test's reported results against its PyTorch twin's.

A graded test of a library-model chapter reports each result it computed with the learner's library
(tests/grading/grading.hpp) to <case>/out/reports.jsonl; its twin (tests/grading/chNN/pytorch.py, run by
tests/grading/twins.py) wrote what PyTorch says each result is to expected.json, which the test process
never sees. compare() decides, outside the learner's process, whether they agree, and words the first
disagreement for the learner. Standard library only.
"""
from __future__ import annotations

import json
import math

from grade_safe import NAME_LIMIT, UnsafeOutput, clean, read_output_text

MAX_REPORT_BYTES = 64 << 20  # a test reports a few MB at most; more is a flood


def _num(x):
    if isinstance(x, str):
        return float(x)  # "nan", "inf", "-inf"
    return x


def _fmt(x) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def _ints(v) -> str:
    return "[" + ", ".join(str(x) for x in v) + "]"


def _index(flat: int, shape: list[int]) -> str:
    idx = []
    for size in reversed(shape):
        idx.append(flat % size if size else 0)
        flat //= size if size else 1
    return _ints(list(reversed(idx)))


def _close(a, e, rtol: float, atol: float) -> bool:
    a, e = _num(a), _num(e)
    if isinstance(e, bool) or isinstance(a, bool):
        return a == e
    if isinstance(e, float) or isinstance(a, float):
        a, e = float(a), float(e)
        if math.isnan(e):
            return math.isnan(a)
        if math.isinf(e):
            return a == e
        return not math.isnan(a) and abs(a - e) <= atol + rtol * abs(e)
    return a == e


def compare_one(name: str, exp: dict, got: dict) -> str:
    """'' when `got` (the learner's report) agrees with `exp` (PyTorch's), else what differs."""
    kind = exp["kind"]
    if kind == "error":
        if got.get("kind") != "error":
            return f"{name}: the test reported a {got.get('kind')} where an error check was expected (grader bug?)"
        err = got.get("error")
        if exp["raises"]:
            torch = f" (PyTorch raises {exp['torch']})" if exp.get("torch") else ""
            if err is None:
                return f"{name}: expected a kindling error{torch}, but your code returned normally"
            if not str(err).startswith(("ShapeError", "IndexError", "DTypeError", "DeviceError", "ValueError",
                                        "IOError", "AutogradError", "Error")):
                return (f"{name}: expected a kindling::Error subclass{torch}, but your code threw {err}: "
                        f"{got.get('message', '')}")
            if exp.get("error") and err != exp["error"]:
                return f"{name}: expected kindling::{exp['error']}, got kindling::{err}: {got.get('message', '')}"
            for piece in exp.get("contains", []):
                if piece not in got.get("message", ""):
                    return f"{name}: the error message should contain {piece!r}; it was: {got.get('message', '')}"
            return ""
        if err is not None:
            return f"{name}: expected no error (PyTorch accepts this), but your code threw {err}: {got.get('message', '')}"
        return ""
    if got.get("kind") != kind:
        return f"{name}: expected a {kind}, the test reported a {got.get('kind')}"
    if kind == "tensor":
        if got.get("undefined"):
            return f"{name}: expected a {exp['dtype']} tensor of shape {_ints(exp['shape'])}, got an undefined tensor"
        if got["dtype"] != exp["dtype"]:
            return (f"{name}: expected dtype {exp['dtype']}, got {got['dtype']} (shape {_ints(got['shape'])}; "
                    f"PyTorch's result type rules apply)")
        if list(got["shape"]) != list(exp["shape"]):
            return f"{name}: expected shape {_ints(exp['shape'])}, got {_ints(got['shape'])}"
        gd, ed = got["data"], exp["data"]
        if len(gd) != len(ed):
            return f"{name}: expected {len(ed)} values, the report holds {len(gd)}"
        rtol, atol = float(exp.get("rtol", 0.0)), float(exp.get("atol", 0.0))
        bad = [k for k, (a, e) in enumerate(zip(gd, ed)) if not _close(a, e, rtol, atol)]
        if bad:
            k = bad[0]
            tol = f" (rtol {rtol:g}, atol {atol:g})" if exp["dtype"].startswith("float") else ""
            where = f" at {_index(k, list(exp['shape']))}" if exp["shape"] else ""
            return (f"{name}: {len(bad)} of {len(ed)} values differ{tol}; first{where}: got {_fmt(_num(gd[k]))}, "
                    f"expected {_fmt(_num(ed[k]))}")
        return ""
    if kind == "ints":
        if list(got["data"]) != list(exp["data"]):
            return f"{name}: expected {_ints(exp['data'])}, got {_ints(got['data'])}"
        return ""
    if kind == "float":
        if not _close(got["data"], exp["data"], float(exp.get("rtol", 1e-6)), float(exp.get("atol", 1e-9))):
            return f"{name}: expected {_fmt(_num(exp['data']))}, got {_fmt(_num(got['data']))}"
        return ""
    if got["data"] != exp["data"]:
        return f"{name}: expected {_fmt(exp['data'])}, got {_fmt(got['data'])}"
    return ""


def compare(expected_path: str, reports_path: str) -> tuple[bool, str, int]:
    """(agree, the first disagreement in words, how many results were compared)."""
    with open(expected_path) as f:
        expected = json.load(f)["results"]
    got: dict[str, dict] = {}
    dupes: list[str] = []
    # A regular file of at most 64 MB, never read through a symlink (grade_safe.py): the program could have
    # left a link to a file only the grader may read.
    try:
        text = read_output_text(reports_path, MAX_REPORT_BYTES)
    except FileNotFoundError:
        text = ""
    except UnsafeOutput as e:
        return False, f"the test's results were refused: {e}", 0
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            return False, "a report line is not valid JSON (something else wrote to the report file)", 0
        if not isinstance(rec, dict) or not isinstance(rec.get("name"), str):
            return False, "a report line is malformed", 0
        if rec["name"] in got:
            dupes.append(rec["name"])
        got[rec["name"]] = rec
    if dupes:  # a name the program chose: clipped and cleaned like every learner string
        return False, f"result {clean(dupes[0], NAME_LIMIT, keep_newlines=False)!r} was reported twice", 0
    for name, exp in expected.items():  # in the twin's order: the first disagreement a learner meets
        if name not in got:
            return False, f"{name}: no result was reported (the test stopped before it)", 0
        why = compare_one(name, exp, got[name])
        if why:
            return False, why, 0
    extra = sorted(set(got) - set(expected))
    if extra:
        return False, f"the test reported {clean(extra[0], NAME_LIMIT, keep_newlines=False)!r}, which its PyTorch twin does not know (twin out of date?)", 0
    return True, "", len(expected)
