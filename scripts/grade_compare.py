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
import operator

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


def _differ(got, exp, dtype: str = "") -> str:
    """'got G, expected E (difference D, dtype)' with as many digits as it takes for G and E to differ on the
    page: at six digits 0.0274738 and 0.0274738 can be two numbers rtol 1e-9 tells apart."""
    if not (isinstance(got, float) and isinstance(exp, float)) or isinstance(got, bool) or isinstance(exp, bool):
        return f"got {_fmt(got)}, expected {_fmt(exp)}" + (f" ({dtype})" if dtype else "")
    digits = 6
    while digits < 17 and f"{got:.{digits}g}" == f"{exp:.{digits}g}" and got != exp:
        digits += 1
    text = f"got {got:.{digits}g}, expected {exp:.{digits}g}"
    extra = [f"difference {got - exp:.3g}"] if math.isfinite(got) and math.isfinite(exp) else []
    if dtype:
        extra.append(dtype)
    return text + (f" ({', '.join(extra)})" if extra else "")


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


def _tensor(got: dict, name: str, shape: list[int] | None = None) -> tuple[list[float] | None, list[int], str]:
    """A reported floating-point tensor's values and shape, or why it cannot be used."""
    rec = got.get(name)
    if rec is None:
        return None, [], f"{name}: no result was reported (the test stopped before it)"
    if rec.get("kind") != "tensor" or rec.get("undefined") or not str(rec.get("dtype", "")).startswith("float"):
        return None, [], f"{name}: expected a floating-point tensor, the test reported {rec.get('kind')}"
    sh = [int(x) for x in rec.get("shape", [])]
    data = [float(_num(x)) for x in rec.get("data", [])]
    if shape is not None and sh != list(shape):
        return None, sh, f"{name}: expected shape {_ints(shape)}, got {_ints(sh)}"
    if len(data) != math.prod(sh):
        return None, sh, f"{name}: the report's values do not fill its shape"
    return data, sh, ""


def _rows(flat: list[float], cols: int) -> list[list[float]]:
    return [flat[i:i + cols] for i in range(0, len(flat), cols)]


def _evaluate(w1, b1, w2, b2, xs, ys) -> tuple[float, float]:
    """(mean cross-entropy, accuracy) of Linear -> ReLU -> Linear on (xs, ys), in float64. Ties in the
    argmax go to the first class, as torch.argmax does."""
    total, correct = 0.0, 0
    for x, y in zip(xs, ys):
        h = [max(0.0, b + sum(map(operator.mul, x, w))) for w, b in zip(w1, b1)]
        z = [b + sum(map(operator.mul, h, w)) for w, b in zip(w2, b2)]
        m = max(z)
        total += m + math.log(sum(math.exp(v - m) for v in z)) - z[y]
        correct += int(z.index(m) == y)
    return total / len(ys), correct / len(ys)


def judge_classifier(spec: dict, got: dict) -> str:
    """'' when the network the test trained and reported meets the bounds of `spec` (see twins.py's
    judge_classifier) on data evaluated here, else what it missed. The network's weights are the test's
    only say: its loss and accuracy are computed here, on held-out data its process never saw."""
    names = spec["weights"]
    w1, sh1, why = _tensor(got, names[0])
    if why:
        return why
    if len(sh1) != 2 or not 0 < sh1[0] <= 4096:
        return f"{names[0]}: expected a [hidden, features] weight, got shape {_ints(sh1)}"
    features = len(spec["sets"][0]["x"][0])
    hidden = sh1[0]
    b1, _, why = _tensor(got, names[1], [hidden])
    if why:
        return why
    w2, sh2, why = _tensor(got, names[2])
    if why:
        return why
    if len(sh2) != 2 or sh2[1] != hidden or not 0 < sh2[0] <= 1000:
        return f"{names[2]}: expected a [classes, {hidden}] weight, got shape {_ints(sh2)}"
    b2, _, why = _tensor(got, names[3], [sh2[0]])
    if why:
        return why
    if sh1[1] != features:
        return f"{names[0]}: expected shape [{hidden}, {features}], got {_ints(sh1)}"
    for n, v in zip(names, (w1, b1, w2, b2)):
        if not all(math.isfinite(a) for a in v):
            return f"{n}: the trained network has non-finite weights (the training diverged)"
    W1, W2 = _rows(w1, features), _rows(w2, hidden)
    measured = {}
    for st in spec["sets"]:
        loss, acc = _evaluate(W1, b1, W2, b2, st["x"], st["y"])
        measured[st["label"]] = loss
        n = len(st["y"])
        if st.get("max_loss") is not None and not loss < st["max_loss"]:
            return (f"the trained network's cross-entropy on {st['label']} ({n} samples) is {loss:.4g}; learning "
                    f"happened below {st['max_loss']:g} (a network that guesses has about "
                    f"{math.log(len(b2)):.3g})")
        if st.get("min_accuracy") is not None and not acc >= st["min_accuracy"]:
            return (f"the trained network classifies {acc:.1%} of {st['label']} ({n} samples) correctly; "
                    f"needed: {st['min_accuracy']:.0%} (guessing: {1 / len(b2):.0%})")
    if spec.get("losses"):
        losses, sh, why = _tensor(got, spec["losses"])
        if why:
            return why
        if not losses:
            return f"{spec['losses']}: the program recorded no loss"
        for k, v in enumerate(losses):
            if not math.isfinite(v):
                return f"the loss the program recorded at step {k} is {_fmt(v)} (it must stay finite)"
        if spec.get("max_rise") is not None:
            # Stable training: no step's loss rises more than max_rise above the lowest loss before it (a
            # step too large overshoots, and the loss jumps up before it settles, if it does).
            lowest = losses[0]
            for k, v in enumerate(losses[1:], 1):
                if v > lowest * (1 + spec["max_rise"]):
                    return (f"the loss rose from {_fmt(lowest)} (its lowest so far) to {_fmt(v)} at step {k}: "
                            f"more than {spec['max_rise']:.0%} up, the training is not stable (a step that "
                            f"overshoots; a stable run's loss falls at every step)")
                lowest = min(lowest, v)
        if spec.get("last_loss_of"):
            real = measured[spec["last_loss_of"]]
            if not abs(losses[-1] - real) < spec.get("last_loss_tol", 0.02):
                return (f"the program's last recorded loss is {losses[-1]:.4g}; its network's cross-entropy on "
                        f"{spec['last_loss_of']} is {real:.4g} (a program must record the loss it trains on)")
    if spec.get("moved"):
        name, least = spec["moved"]
        w0, _, why = _tensor(got, name, sh1)
        if why:
            return why
        n0 = math.sqrt(sum(a * a for a in w0))
        moved = math.sqrt(sum((a - b) ** 2 for a, b in zip(w1, w0))) / n0 if n0 > 0 else 0.0
        if not moved >= least:
            return (f"{names[0]} moved by {100 * moved:.3g} % of its initial norm (needed: at least "
                    f"{100 * least:g} %; a layer that no gradient reaches keeps its initial weights)")
    return ""


def judge_permutations(spec: dict, got: dict) -> str:
    """'' when the reported int64 tensor spec["result"] holds `rows` permutations of 0..n-1 (one per row;
    a 1-d tensor is one) that meet the spec: some row not sorted ("not_sorted"); with "uniform", every
    one of the n! orders seen, a chi-square of the order counts below chi2_max and each first element
    within first_tol of rows / n. The statistics are computed here from the draws themselves, so the test
    process cannot claim them."""
    name, n, rows = spec["result"], int(spec["n"]), int(spec.get("rows") or 1)
    rec = got.get(name)
    if rec is None:
        return f"{name}: no result was reported (the test stopped before it)"
    want = [rows, n] if spec.get("rows") else [n]
    if rec.get("kind") != "tensor" or rec.get("dtype") != "int64":
        return f"{name}: expected an int64 tensor, the test reported {rec.get('kind')} {rec.get('dtype', '')}"
    if list(rec.get("shape", [])) != want:
        return f"{name}: expected shape {_ints(want)}, got {_ints(rec.get('shape', []))}"
    data = [int(x) for x in rec["data"]]
    perms = [tuple(data[i:i + n]) for i in range(0, len(data), n)] if n else [()] * rows
    target = list(range(n))
    for k, p in enumerate(perms):
        if sorted(p) != target:
            return f"{name}: draw {k} is not a permutation of 0..{n - 1}: {_ints(list(p)[:20])}"
    if spec.get("not_sorted") and all(list(p) == target for p in perms):
        return f"{name}: every draw is 0, 1, ..., {n - 1} in order (not shuffled)"
    for other, same in [(o, True) for o in spec.get("same_as", [])] + [(o, False) for o in spec.get("differs_from", [])]:
        rec2 = got.get(other)
        if rec2 is None:
            return f"{other}: no result was reported (the test stopped before it)"
        equal = rec2.get("kind") == "tensor" and list(rec2.get("shape", [])) == want and \
            [int(x) for x in rec2.get("data", [])] == data
        if equal != same:
            return f"{name} and {other} should be {'the same order' if same else 'different orders'}; they are not"
    uni = spec.get("uniform")
    if uni:
        counts: dict[tuple, int] = {}
        for p in perms:
            counts[p] = counts.get(p, 0) + 1
        orders = math.factorial(n)
        if len(counts) != orders:
            return f"{name}: {len(counts)} of the {orders} orders of {n} items appeared in {rows} draws"
        e = rows / orders
        chi2 = sum((c - e) ** 2 / e for c in counts.values())
        if not chi2 < uni["chi2_max"]:
            return (f"{name}: the orders are not equally likely: a chi-square of {chi2:.1f} over the {orders} "
                    f"order counts (a uniform shuffle stays below {uni['chi2_max']:g})")
        first = [0] * n
        for p in perms:
            first[p[0]] += 1
        worst = max(abs(c - rows / n) for c in first)
        if worst > uni["first_tol"]:
            return (f"{name}: the first element is not uniform: counts {_ints(first)} (each should be within "
                    f"{uni['first_tol']:g} of {rows / n:g})")
    return ""


def judge_values(spec: dict, got: dict) -> str:
    """'' when the reported floating-point tensor spec["result"] has the distribution the spec asks for,
    computed here from its values: "uniform" = (b, tolerance): every value in [-b, b], the extremes
    within 2 % of the ends, mean and std of U(-b, b) within tolerance * b; "spread" = (b, least): in
    [-b, b] with max - min above least * b; "dropout" = (x, p): each value 0 or x / (1 - p) (x the twin's
    input, flattened), the share of zeros within 0.012 of p; "mask_grad" = (name of the reported output,
    p): each value is 1 / (1 - p) where that output is not 0, else 0."""
    name = spec["result"]
    vals, shape, why = _tensor(got, name)
    if why:
        return why
    if not vals:
        return f"{name}: the tensor is empty"
    if not all(math.isfinite(v) for v in vals):
        return f"{name}: holds non-finite values"
    n = len(vals)
    if spec.get("uniform"):
        b, tol = spec["uniform"]
        lo, hi = min(vals), max(vals)
        mean = sum(vals) / n
        std = math.sqrt(sum((v - mean) ** 2 for v in vals) / max(n - 1, 1))
        if lo < -b or hi > b:
            return f"{name}: values in [{lo:.4g}, {hi:.4g}], outside the bound {b:.4g}"
        if not (lo < -0.98 * b and hi > 0.98 * b):
            return f"{name}: values in [{lo:.4g}, {hi:.4g}] do not use the range [-{b:.4g}, {b:.4g}]"
        if abs(mean) >= tol * b or abs(std - b / math.sqrt(3)) >= tol * b:
            return (f"{name}: mean {mean:.4g} and std {std:.4g}; U(-b, b) has mean 0 and std b/sqrt(3) = "
                    f"{b / math.sqrt(3):.4g}")
    if spec.get("spread"):
        b, least = spec["spread"]
        lo, hi = min(vals), max(vals)
        if lo < -b or hi > b or not hi - lo > least * b:
            return f"{name}: values in [{lo:.4g}, {hi:.4g}]; expected within ±{b:.4g} and spread over {least * b:.4g}"
    if spec.get("dropout"):
        x, p = spec["dropout"]
        if len(x) != n:
            return f"{name}: {n} values for an input of {len(x)}"
        zeros = 0
        for k, (v, xi) in enumerate(zip(vals, x)):
            if v == 0.0:
                zeros += 1
            elif abs(v - xi / (1 - p)) > 1e-5 * (1 + abs(xi / (1 - p))):
                return f"{name}: element {k} is {v:.6g}; it must be 0 or x / (1 - p) = {xi / (1 - p):.6g}"
        if abs(zeros / n - p) >= 0.012:
            return f"{name}: {zeros / n:.4f} of the elements are zero; with p = {p:g} that share must be near p"
    if spec.get("mask_grad"):
        other, p = spec["mask_grad"]
        y, _, why = _tensor(got, other, shape)
        if why:
            return why
        for k, (g, yv) in enumerate(zip(vals, y)):
            want = 1 / (1 - p) if yv != 0.0 else 0.0
            if abs(g - want) > 1e-5 * (1 + want):
                return f"{name}: element {k} is {g:.6g}; where the output is {yv:.6g} it must be {want:.6g}"
    return ""


def judged_names(spec: dict) -> list[str]:
    """The reported results a judged result reads."""
    if spec.get("kind") == "permutations":
        return [spec["result"], *spec.get("same_as", []), *spec.get("differs_from", [])]
    if spec.get("kind") == "values":
        return [spec["result"]] + ([spec["mask_grad"][0]] if spec.get("mask_grad") else [])
    names = list(spec.get("weights", []))
    if spec.get("losses"):
        names.append(spec["losses"])
    if spec.get("moved"):
        names.append(spec["moved"][0])
    return names


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
            return (f"{name}: {len(bad)} of {len(ed)} values differ{tol}; first{where}: "
                    f"{_differ(*((float(_num(gd[k])), float(_num(ed[k]))) if exp['dtype'].startswith('float') else (_num(gd[k]), _num(ed[k]))), exp['dtype'])}")
        return ""
    if kind == "ints":
        if list(got["data"]) != list(exp["data"]):
            return f"{name}: expected {_ints(exp['data'])}, got {_ints(got['data'])}"
        return ""
    if kind == "float":
        if not _close(got["data"], exp["data"], float(exp.get("rtol", 1e-6)), float(exp.get("atol", 1e-9))):
            return (f"{name}: {_differ(float(_num(got['data'])), float(_num(exp['data'])), 'a double')} "
                    f"(rtol {float(exp.get('rtol', 1e-6)):g}, atol {float(exp.get('atol', 1e-9)):g})")
        return ""
    if got["data"] != exp["data"]:
        return f"{name}: expected {_fmt(exp['data'])}, got {_fmt(got['data'])}"
    return ""


JUDGES = {"classifier": judge_classifier, "permutations": judge_permutations, "values": judge_values}


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
    consumed = set(expected)
    for name, exp in expected.items():  # in the twin's order: the first disagreement a learner meets
        if exp.get("kind") in JUDGES:
            consumed |= set(judged_names(exp))
            why = JUDGES[exp["kind"]](exp, got)
            if why:
                return False, why, 0
            continue
        if name not in got:
            return False, f"{name}: no result was reported (the test stopped before it)", 0
        why = compare_one(name, exp, got[name])
        if why:
            return False, why, 0
    extra = sorted(set(got) - consumed)
    if extra:
        return False, f"the test reported {clean(extra[0], NAME_LIMIT, keep_newlines=False)!r}, which its PyTorch twin does not know (twin out of date?)", 0
    return True, "", len(expected)
