#!/usr/bin/python3
"""Chapter 8's milestone, judged: the learner's kernels (chapters 1-8's library, the cuda layer's pieces)
run on the kernel emulator on inputs drawn here for this run from ms.secret_rng, and the checker computes
every answer itself with numpy (milestone.cpp says what the program writes):
  ex1  x.t() op y with y broadcast (strided and stride-0 reads), op drawn among + - * /;
  ex2  the sum of a vector of a few thousand elements;
  ex3  a tiled matmul of odd sizes, whose global-memory reads (the emulator's record of the launch) stay
       within what 16x16 tiles need -- a naive kernel reads 16 times as much at these sizes;
  ex4  softmax over rows of logits in the hundreds (exp overflows without the maximum subtracted);
  ex5  a strided view of a tensor on the emulated device, back on the host with cpu().
The emulator stops the program at an index outside a buffer, a barrier some threads skip or a race on
shared memory, which fails the milestone. See tests/grading/milestones.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

WHAT = "your kernels on the emulated device, on the grader's inputs"
OPS = [np.add, np.subtract, np.multiply, np.divide]
OP_NAMES = ["+", "-", "*", "/"]
READS_SLACK = 1.25  # over the reads 16x16 tiles need (edge tiles read less); naive is ~16x


def draws():
    rng = ms.secret_rng("ch08 milestone")
    d = {}
    r, c = int(rng.integers(20, 60)), int(rng.integers(20, 60))
    d["binary_x"] = rng.standard_normal((r, c)).astype(np.float32)
    d["binary_y"] = (rng.standard_normal(r) + np.where(rng.random(r) < 0.5, -2, 2)).astype(np.float32)  # no 0
    d["binary_op"] = np.array(int(rng.integers(0, 4)), dtype=np.int64)
    d["sum_x"] = rng.standard_normal(int(rng.integers(3000, 9000))).astype(np.float32)
    m, k, n = (int(rng.integers(40, 72)) for _ in range(3))
    d["matmul_a"] = rng.standard_normal((m, k)).astype(np.float32)
    d["matmul_b"] = rng.standard_normal((k, n)).astype(np.float32)
    d["softmax_x"] = (rng.standard_normal((int(rng.integers(3, 9)), int(rng.integers(100, 400)))) * 40
                      + rng.uniform(100, 300)).astype(np.float32)
    step = int(rng.integers(2, 5))
    d["copy_x"] = rng.standard_normal((step * int(rng.integers(3, 8)) + 1, int(rng.integers(3, 9)))).astype(np.float32)
    d["copy_step"] = np.array(step, dtype=np.int64)
    return d


def prepare(in_dir):
    for name, a in draws().items():
        ms.save(os.path.join(in_dir, f"{name}.npy"), a)


def close(name, got, want, rtol, atol, piece):
    if got.shape != want.shape:
        raise ValueError(f"{name}: shape {list(got.shape)}, expected {list(want.shape)} ({piece})")
    bad = ~np.isclose(got.astype(np.float64), want, rtol=rtol, atol=atol) | ~np.isfinite(got)
    if bad.any():
        i = np.unravel_index(int(np.argmax(bad)), bad.shape)
        raise ValueError(f"{name}: {int(bad.sum())} of {bad.size} elements wrong, e.g. at {list(map(int, i))}: "
                         f"{float(got[i]):.9g}, expected {float(want[i]):.9g} (float32; rtol {rtol:g}) ({piece})")


def check(out_dir):
    d = draws()
    goal = "every result as numpy computes it, tiled reads"
    try:
        x, y = d["binary_x"].astype(np.float64), d["binary_y"].astype(np.float64)
        op = int(d["binary_op"])
        close(f"x.t() {OP_NAMES[op]} y", ms.load_output(out_dir, "binary.npy", dtype="float32"),
              OPS[op](x.T, y), 1e-5, 1e-6, "ex1")
        v = d["sum_x"].astype(np.float64)
        close(f"sum of {len(v)} elements", ms.load_output(out_dir, "sum.npy", shape=(1,), dtype="float32"),
              np.array([v.sum()]), 0, 1e-5 * np.abs(v).sum(), "ex2")
        a, b = d["matmul_a"].astype(np.float64), d["matmul_b"].astype(np.float64)
        (m, k), n = a.shape, b.shape[1]
        close(f"[{m}, {k}] @ [{k}, {n}]", ms.load_output(out_dir, "matmul.npy", dtype="float32"), a @ b,
              0, 1e-4 * (np.abs(a) @ np.abs(b)).max(), "ex3")
        launches = ms.load_output(out_dir, "matmul_launches.npy", dtype="float64")
        if launches.shape != (1, 4):
            raise ValueError(f"matmul_v2 made {launches.shape[0] if launches.ndim == 2 else '?'} launches, "
                             "expected 1 (ex3)")
        reads = float(launches[0, 0])
        tiles_m, tiles_n = -(-m // 16), -(-n // 16)
        tiled = 2 * 16 * k * tiles_m * tiles_n  # every block reads a 16 x K strip of a and a K x 16 one of b
        naive = 2 * m * n * k
        if not reads <= READS_SLACK * tiled:
            raise ValueError(f"the tiled matmul read {reads:.0f} elements of global memory; 16x16 tiles need at most "
                             f"{tiled}, a naive kernel reads {naive} (ex3: load each tile once, share it)")
        sx = d["softmax_x"].astype(np.float64)
        e = np.exp(sx - sx.max(1, keepdims=True))
        close(f"softmax of [{sx.shape[0]}, {sx.shape[1]}] logits around {sx.mean():.0f}",
              ms.load_output(out_dir, "softmax.npy", dtype="float32"), e / e.sum(1, keepdims=True), 1e-4, 1e-7, "ex4")
        step = int(d["copy_step"])
        close(f"x[1::{step}, 1:].t() back from the device", ms.load_output(out_dir, "copy.npy", dtype="float32"),
              d["copy_x"][1::step, 1:].T.astype(np.float64), 0, 0, "ex5")
    except ValueError as err:
        return ms.verdict(out_dir, "ch08", WHAT, "wrong", goal, False, str(err))
    return ms.verdict(out_dir, "ch08", WHAT, "all 5 right", goal, True,
                      f"computed again by the grader; the tiled matmul read {reads:.0f} elements of global memory "
                      f"(tiles need {tiled}, a naive kernel {naive})")


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
