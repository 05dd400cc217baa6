# Instructor-only twins for chapter 2 (not in a handout): random shapes and graphs. Helpers come from
# the visible twins, exec'd first.
import os

exec(open(os.path.join(os.path.dirname(__file__), "..", "..", "ch02", "pytorch.py")).read().split("# ---- ex1")[0])

rng = case_rng("ch02 hidden shapes")  # other shapes every grading run


def random_broadcast(rng):
    full = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(0, 5)))]
    keep = int(rng.integers(0, len(full) + 1))
    shape = [1 if rng.integers(0, 3) == 0 else s for s in full[len(full) - keep:]]
    return tuple(shape), tuple(full)


BROADCASTS = [random_broadcast(rng) for _ in range(150)]


@case("sum_to: 150 random broadcasts in float64 (hidden)",
      shapes="".join(" ".join(map(str, s)) + " -\n" for s, _ in BROADCASTS),
      **{f"g_{i}": randn(*f, dtype="float64") for i, (_, f) in enumerate(BROADCASTS)})
def _(shapes, **g):
    out = {}
    for i, (s, _) in enumerate(BROADCASTS):
        x = torch.zeros(s, dtype=torch.float64, requires_grad=True)
        x.expand(g[f"g_{i}"].shape).backward(g[f"g_{i}"])
        out[f"case {i}"] = x.grad
    return out


def random_matmul(rng):
    n, k, m = (int(rng.integers(1, 5)) for _ in range(3))
    batch = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    sa = [1 if rng.integers(0, 3) == 0 else b for b in batch][int(rng.integers(0, len(batch) + 1)):]
    sb = [1 if rng.integers(0, 3) == 0 else b for b in batch][int(rng.integers(0, len(batch) + 1)):]
    return tuple(sa) + (n, k), tuple(sb) + (k, m)


MATMULS = [random_matmul(rng) for _ in range(30)]


def matmul_inputs():
    inputs = {}
    for i, (sa, sb) in enumerate(MATMULS):
        out = torch.matmul(torch.zeros(sa), torch.zeros(sb)).shape
        inputs.update({f"a_{i}": randn(*sa, dtype="float64"), f"b_{i}": randn(*sb, dtype="float64"),
                       f"g_{i}": randn(*out, dtype="float64")})
    return inputs


@case("matmul: 30 random batched products (hidden)", **matmul_inputs())
def _(**kw):
    out = {}
    for i in range(len(MATMULS)):
        a, b = leaf(kw[f"a_{i}"]), leaf(kw[f"b_{i}"])
        a.matmul(b).backward(kw[f"g_{i}"])
        out[f"case {i}: a.grad"], out[f"case {i}: b.grad"] = a.grad, b.grad
    return out


def random_program(rng):
    steps, size = [], 3
    for _ in range(int(rng.integers(1, 20))):
        steps.append(f"{int(rng.integers(0, 4))} {int(rng.integers(0, size))} {int(rng.integers(0, size))}")
        size += 1
    return steps


PROGRAMS = [random_program(rng) for _ in range(40)]


@case("backward: 40 random graphs with shared subexpressions (hidden)",
      programs="".join(";".join(p) + "\n" for p in PROGRAMS), p=randn(3, dtype="float64", scale=0.5),
      q=randn(3, dtype="float64", scale=0.5), r=randn(3, dtype="float64", scale=0.5))
def _(programs, p, q, r):
    out = {}
    for g, program in enumerate(PROGRAMS):
        pool = [leaf(p), leaf(q), r]
        for step in program:
            op, i, j = (int(w) for w in step.split())
            x, y = pool[i], pool[j]
            pool.append([lambda: x * y, lambda: x + y.tanh(), lambda: (x / (y * y + 1.0)).exp() - 1.0,
                         lambda: x.sigmoid() * y][op]())
        root = pool[-1]
        for i in range(3, len(pool), 3):
            root = root + pool[i]
        if root.requires_grad:
            root.sum().backward()
        out[f"graph {g}: p.grad"] = grad_of(pool[0])
        out[f"graph {g}: q.grad"] = grad_of(pool[1])
    return out
