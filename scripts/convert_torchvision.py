#!/usr/bin/python3
"""Converts torchvision weights to Kindling's safetensors files, and back.

    /usr/bin/python3 scripts/convert_torchvision.py to-kindling resnet18.pth resnet18.safetensors [--model resnet18]
    /usr/bin/python3 scripts/convert_torchvision.py to-torch resnet18.safetensors resnet18.pth [--model resnet18]

`to-kindling` reads a state_dict saved with torch.save (or a checkpoint dict holding one under
"state_dict" or "model", or a whole pickled module), and writes every tensor, with its name, as a
safetensors file that kd::load() reads and model->load_state_dict() loads strictly. Kindling's model
zoo uses torchvision's module names, so the keys need no renaming.

`to-torch` reads a safetensors file (written by kd::save or by this script) and writes a state_dict
with torch.save, which torchvision's model.load_state_dict() takes.

--model NAME (a torchvision.models name such as resnet18) also loads the weights into that torchvision
model with strict=True before writing, so a file for the wrong architecture is refused here, with
PyTorch's list of missing, unexpected and mis-shaped keys, rather than later in C++.

Reading a .pth unpickles it: only convert files you trust (torch.load runs with weights_only=True,
which refuses arbitrary objects, unless --trust-pickle is given for a whole pickled model).
Safetensors files are checked (header size, dtypes, shapes, offsets against the file's size) before
any tensor is built. Both writers are atomic: a temporary file in the target's folder, renamed.
"""
import argparse
import json
import os
import struct
import sys
import tempfile

import numpy as np
import torch

# safetensors dtype names <-> torch dtypes (the ones Kindling reads; see lib/src/nn/safetensors.cpp).
_TO_ST = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16",
          torch.int64: "I64", torch.uint8: "U8", torch.bool: "BOOL"}
_FROM_ST = {v: k for k, v in _TO_ST.items()}
_ITEMSIZE = {"F32": 4, "F64": 8, "F16": 2, "BF16": 2, "I64": 8, "U8": 1, "BOOL": 1}
# A header larger than this is refused before it is read (the format's own reference limit).
MAX_HEADER = 100 * 1024 * 1024


class ConvertError(Exception):
    """A file that cannot be converted; the message names the file and the problem."""


def _atomic_write(path, write):
    """write(f) into a temporary file next to `path`, flushed to disk, then renamed over `path`."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.tmp.{os.getpid()}.", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def extract_state_dict(obj, source="input"):
    """The state dict inside what torch.load returned: a state dict, a checkpoint, or a module."""
    if isinstance(obj, torch.nn.Module):
        return obj.state_dict()
    if isinstance(obj, dict):
        for key in ("state_dict", "model", "model_state_dict"):
            if key in obj and isinstance(obj[key], dict):
                return extract_state_dict(obj[key], source)
        bad = [k for k, v in obj.items() if not isinstance(v, torch.Tensor)]
        if bad:
            raise ConvertError(f"{source}: not a state dict: '{bad[0]}' is a {type(obj[bad[0]]).__name__}, not a tensor")
        return obj
    raise ConvertError(f"{source}: expected a state dict, a checkpoint dict or a module, got {type(obj).__name__}")


def save_safetensors(state_dict, path, metadata=None):
    """Writes a {name: tensor} dict as safetensors (contiguous, little-endian), atomically."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, t in state_dict.items():
        if not isinstance(t, torch.Tensor):
            raise ConvertError(f"{path}: '{name}' is a {type(t).__name__}, not a tensor")
        if t.dtype not in _TO_ST:
            raise ConvertError(f"{path}: '{name}' has dtype {t.dtype}, which safetensors files for Kindling "
                               f"cannot hold (use one of {', '.join(str(d) for d in _TO_ST)})")
        t = t.detach().cpu().contiguous()
        # bfloat16 has no NumPy type: its bytes travel through int16. The file is little-endian.
        arr = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy()
        raw = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": _TO_ST[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned

    def write(f):
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)

    _atomic_write(path, write)


def load_safetensors(path):
    """Reads a safetensors file into an ordered {name: tensor} dict, checking it first."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ConvertError(f"{path}: truncated: {size} bytes, a safetensors file starts with an 8-byte header size")
        (n,) = struct.unpack("<Q", head)
        if n > MAX_HEADER or n > size - 8:
            raise ConvertError(f"{path}: header claims {n} bytes but the file has {size - 8} after the size field")
        try:
            header = json.loads(f.read(n))
        except ValueError as e:
            raise ConvertError(f"{path}: header is not valid JSON ({e})") from None
        if not isinstance(header, dict):
            raise ConvertError(f"{path}: header is not a JSON object")
        data_len = size - 8 - n
        entries = []
        for name, info in header.items():
            if name == "__metadata__":
                continue
            try:
                dt, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
            except (KeyError, TypeError, ValueError):
                raise ConvertError(f"{path}: '{name}': entry needs dtype, shape and data_offsets [begin, end]") from None
            if dt not in _FROM_ST:
                raise ConvertError(f"{path}: '{name}': unknown dtype '{dt}'")
            if not all(isinstance(d, int) and d >= 0 for d in shape):
                raise ConvertError(f"{path}: '{name}': shape {shape} is not a list of sizes")
            if not (isinstance(begin, int) and isinstance(end, int) and 0 <= begin <= end <= data_len):
                raise ConvertError(f"{path}: '{name}': data_offsets [{begin}, {end}] outside the data "
                                   f"({data_len} bytes)")
            want = int(np.prod(shape, dtype=object)) * _ITEMSIZE[dt]
            if end - begin != want:
                raise ConvertError(f"{path}: '{name}': {dt} {shape} needs {want} bytes, offsets give {end - begin}")
            entries.append((begin, name, dt, shape, end))
        out = {}
        for begin, name, dt, shape, end in sorted(entries):
            f.seek(8 + n + begin)
            raw = f.read(end - begin)
            if dt == "BF16":
                t = torch.from_numpy(np.frombuffer(raw, dtype="<i2").copy()).view(torch.bfloat16)
            else:
                np_dt = np.dtype({"F32": "<f4", "F64": "<f8", "F16": "<f2", "I64": "<i8",
                                  "U8": "u1", "BOOL": "?"}[dt])
                t = torch.from_numpy(np.frombuffer(raw, dtype=np_dt).astype(np_dt.newbyteorder("=")))
            out[name] = t.reshape(shape)
    # Keep the header's order (PyTorch's state_dict order) rather than the data order.
    return {name: out[name] for name in header if name != "__metadata__"}


def check_against(model_name, state_dict, num_classes=None):
    """Loads the weights into torchvision's `model_name` with strict=True (raises with PyTorch's list)."""
    import torchvision
    if num_classes is None:
        for key in ("fc.weight", "classifier.6.weight", "classifier.1.weight"):
            if key in state_dict:
                num_classes = state_dict[key].shape[0]
    kwargs = {"num_classes": num_classes} if num_classes else {}
    model = getattr(torchvision.models, model_name)(weights=None, **kwargs)
    model.load_state_dict(state_dict, strict=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("direction", choices=["to-kindling", "to-torch"])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--model", help="torchvision model name to check the weights against (strict)")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow a whole pickled model (torch.load without weights_only: runs its code)")
    a = p.parse_args(argv)
    try:
        if a.direction == "to-kindling":
            obj = torch.load(a.input, map_location="cpu", weights_only=not a.trust_pickle)
            sd = extract_state_dict(obj, a.input)
            if a.model:
                check_against(a.model, sd)
            save_safetensors(sd, a.output, {"format": "pt", "source": os.path.basename(a.input)})
        else:
            sd = load_safetensors(a.input)
            if a.model:
                check_against(a.model, sd)
            _atomic_write(a.output, lambda f: torch.save(sd, f))
    except (ConvertError, RuntimeError, OSError, ValueError) as e:
        print(f"convert_torchvision: {e}", file=sys.stderr)
        return 1
    print(f"convert_torchvision: {len(sd)} tensors, {a.input} -> {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
