#!/usr/bin/python3
"""Chapter 3's milestone, judged: the learner's modules, loaded with PyTorch's weights, must give PyTorch's
outputs (and print as PyTorch prints the network). See tests/grading/milestones.py."""
import json
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import milestones as ms  # noqa: E402

TOL = 1e-4


def network():
    torch.manual_seed(int(ms.secret_rng("ch03 network").integers(1 << 62)))  # new weights every run
    m = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.2), nn.Sequential(nn.Linear(256, 64), nn.Tanh()),
                      nn.Linear(64, 10, bias=False))
    # "Trained": perturbed away from the initialisation so that a wrong load cannot match by luck.
    with torch.no_grad():
        for p in m.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return m.eval()


def inputs():
    return ms.secret_rng("ch03 inputs").random((512, 784), dtype=np.float32)


def save_safetensors(sd, path):
    """The safetensors format by hand: an 8-byte little-endian header length, the JSON header, the bytes."""
    header, blobs, offset = {}, [], 0
    for k, v in sd.items():
        b = v.detach().contiguous().numpy().astype("<f4").tobytes()
        header[k] = {"dtype": "F32", "shape": list(v.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    os.replace(path + ".tmp", path)


def probes():
    """This run's probes: the dropout probability, the negative index j, the input of model[-j], and the
    keys extra.safetensors holds beyond the network's own."""
    rng = ms.secret_rng("ch03 probes")
    p = float(rng.uniform(0.2, 0.7))
    j = int(rng.integers(1, 3))  # model[-1]: Linear(64, 10); model[-2]: Sequential(Linear(256, 64), Tanh)
    h = rng.standard_normal((int(rng.integers(3, 20)), 64 if j == 1 else 256)).astype(np.float32)
    extra = sorted({f"{rng.choice(['head', 'aux', 'proj', 'fc9'])}.{int(rng.integers(100))}.weight"
                    for _ in range(int(rng.integers(1, 4)))})
    return p, j, h, extra


def prepare(in_dir):
    save_safetensors(network().state_dict(), os.path.join(in_dir, "weights.safetensors"))
    ms.save(os.path.join(in_dir, "x.npy"), inputs())
    p, j, h, extra = probes()
    sd = dict(network().state_dict())
    for k in extra:
        sd[k] = torch.ones(3)
    save_safetensors(sd, os.path.join(in_dir, "extra.safetensors"))
    ms.save(os.path.join(in_dir, "probe.npy"), np.array([p, j], dtype=np.float64))
    ms.save(os.path.join(in_dir, "h.npy"), h)


def check_probes(out_dir):
    """'' or what a piece the outputs do not need got wrong."""
    p, j, h, extra = probes()
    listed = sorted(l for l in ms.read_text_output(out_dir, "unexpected.txt").splitlines() if l.strip())
    if listed != extra:
        return (f"a non-strict load_state_dict of a file with {len(extra)} key(s) the network does not have reported "
                f"{len(listed)} unexpected key(s), not those (ex5)")
    d = ms.load_output(out_dir, "dropout.npy", shape=(4096,), dtype="float32").astype(np.float64)
    kept = d != 0
    if not np.allclose(d[kept], 1 / (1 - p), rtol=1e-5):
        return f"Dropout({p:.3f}) in train() mode on ones: a kept element must be 1 / (1 - p) = {1 / (1 - p):.6g} (ex3)"
    dropped = float((~kept).mean())
    sigma = (p * (1 - p) / d.size) ** 0.5
    if abs(dropped - p) > 6 * sigma:
        return f"Dropout({p:.3f}) in train() mode dropped {dropped:.1%} of 4096 elements (ex3)"
    with torch.no_grad():
        want = network()[-j](torch.from_numpy(h)).numpy()
    got = ms.load_output(out_dir, "indexed.npy", dtype="float32")
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-5):
        return (f"model[-{j}] on a [{h.shape[0]}, {h.shape[1]}] input gave shape {list(got.shape)}, not the "
                f"{list(want.shape)} values of PyTorch's model[-{j}] (ex2: a negative index counts from the end)")
    return ""


def check(out_dir):
    m = network()
    with torch.no_grad():
        want = m(torch.from_numpy(inputs())).numpy()
    what = "outputs on PyTorch's weights, max abs error against PyTorch"
    try:
        got = ms.load_output(out_dir, "y.npy", shape=want.shape, dtype="float32")
    except ValueError as e:
        return ms.verdict(out_dir, "ch03", what, "none", f"<= {TOL:g}", False, str(e))
    err = float(np.abs(got.astype(np.float64) - want).max()) if np.isfinite(got).all() else float("inf")
    detail = ""
    try:
        printed = ms.read_text_output(out_dir, "repr.txt")
    except ValueError as e:
        printed, detail = None, str(e)
    same_print = printed is not None and printed.strip() == str(m).strip()
    if printed is not None and not same_print:
        # Only PyTorch's side is quoted: what the program wrote is its own (and could hold anything).
        want, got = str(m).strip().splitlines(), printed.strip().splitlines()
        k = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
        detail = (f"the network does not print like PyTorch's: line {k + 1} differs; PyTorch prints it as:\n"
                  + (want[k] if k < len(want) else "(nothing: PyTorch's print ends before)"))
    try:
        wrong = check_probes(out_dir)
    except ValueError as e:
        wrong = str(e)
    if wrong:
        detail = (detail + "\n" if detail else "") + wrong
    return ms.verdict(out_dir, "ch03", what, f"{err:.3g}" + ("" if same_print else ", printed differently"),
                      f"<= {TOL:g}, printed alike, every piece checked", err <= TOL and same_print and not wrong, detail)


if __name__ == "__main__":
    sys.exit(ms.main(prepare, check))
