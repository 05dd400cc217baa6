#!/usr/bin/python3
"""Writes the fuzzers' seed corpora (corpus/<target>/) and regression inputs (regressions/<target>/).

Seeds are small valid files of every kind a loader accepts, so the fuzzers start from deep inside
the formats; regressions are the exact inputs that once crashed or fooled a loader (issue 13), each
of which must now be refused with a clear kindling error. Run with Debian's python (numpy, PIL):

    /usr/bin/python3 tests/fuzz/make_corpus.py
"""
import gzip
import io
import json
import os
import struct
import zlib

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def put(kind, target, name, data):
    folder = os.path.join(HERE, kind, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def npy(arr, **kw):
    b = io.BytesIO()
    np.lib.format.write_array(b, arr, **kw)
    return b.getvalue()


def safetensors(tensors, metadata=None, raw_header=None):
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, (dtype, arr) in tensors.items():
        data = arr.tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = raw_header if raw_header is not None else json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text.encode() + b"".join(blobs)


def idx(arr):
    return bytes([0, 0, 8, arr.ndim]) + b"".join(struct.pack(">I", d) for d in arr.shape) + arr.astype(np.uint8).tobytes()


def image(mode, size, fmt, **kw):
    rng = np.random.default_rng(len(mode) * 7 + size[0])
    channels = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4, "P": 1, "I;16": 1}[mode]
    shape = (size[1], size[0]) if channels == 1 else (size[1], size[0], channels)
    if mode == "I;16":
        img = Image.fromarray(rng.integers(0, 65535, shape, dtype=np.uint16))
    else:
        img = Image.fromarray(rng.integers(0, 255, shape, dtype=np.uint8), mode if mode != "P" else "L")
        if mode == "P":
            img = img.convert("RGB").quantize(8)
    b = io.BytesIO()
    img.save(b, fmt, **kw)
    return b.getvalue()


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def checkpoint(epoch="3", step=1.0, lr=1e-3, extra_meta=None):
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((2, 3), dtype=np.float32), rng.standard_normal(2, dtype=np.float32)
    f64 = lambda v: ("F64", np.array(v, dtype=np.float64))
    tensors = {"model.weight": ("F32", w), "model.bias": ("F32", b)}
    for k, v in {"lr": lr, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0, "amsgrad": 0.0,
                 "maximize": 0.0, "momentum": 0.9, "dampening": 0.0, "nesterov": 0.0}.items():
        tensors["optimizer.group.0." + k] = f64(v)
    for i, p in enumerate([w, b]):
        tensors[f"optimizer.state.{i}.step"] = f64(step)
        tensors[f"optimizer.state.{i}.exp_avg"] = ("F32", np.zeros_like(p))
        tensors[f"optimizer.state.{i}.exp_avg_sq"] = ("F32", np.zeros_like(p))
        tensors[f"optimizer.state.{i}.momentum_buffer"] = ("F32", np.zeros_like(p))
    meta = {"format": "kindling-checkpoint-v1", "epoch": epoch, "loss": "0.5", "rng_state": "0 0",
            "scheduler.last_epoch": "1", "scheduler.base_lr.0": "0.001", "scheduler.last_lr.0": "0.001",
            "scheduler.best": "inf", "scheduler.num_bad_epochs": "0", "scheduler.cooldown_counter": "0"}
    meta.update(extra_meta or {})
    return safetensors(tensors, meta)


# ---- seeds ----------------------------------------------------------------------------------------
a = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
put("corpus", "npy", "f4_3x4.npy", npy(a))
put("corpus", "npy", "f8_fortran.npy", npy(np.asfortranarray(a.astype(np.float64))))
put("corpus", "npy", "i8_0d.npy", npy(np.array(7, dtype=np.int64)))
put("corpus", "npy", "u1_empty.npy", npy(np.zeros((0, 3), dtype=np.uint8)))
put("corpus", "npy", "b1.npy", npy(np.array([True, False, True])))
put("corpus", "npy", "v2.npy", npy(a, version=(2, 0)))

put("corpus", "safetensors", "two.safetensors",
    safetensors({"w": ("F32", a), "n": ("I64", np.arange(3, dtype=np.int64)), "m": ("BOOL", np.array([1, 0], np.uint8))},
                {"note": "seed"}))
put("corpus", "safetensors", "empty_tensor.safetensors", safetensors({"e": ("F64", np.zeros((0, 2)))}))
put("corpus", "safetensors", "u8.safetensors", safetensors({"b": ("U8", np.arange(5, dtype=np.uint8))}))

digits = (np.arange(2 * 4 * 3) * 11 % 256).reshape(2, 4, 3)
put("corpus", "idx", "images.idx", idx(digits))
put("corpus", "idx", "labels.idx", idx(np.array([3, 9])))
put("corpus", "idx", "images.idx.gz", gzip.compress(idx(digits), mtime=0))

put("corpus", "csv", "classes.csv", "x,y,label\n1.5,2,0\n-3,4e2,1\n\n0,0,2\n")
put("corpus", "csv", "regression.csv", "a;b;target\n0.25;1;3.5\n2;-1;-0.5\n")
put("corpus", "csv", "crlf.csv", "f1,f2,f3,c\r\n1,2,3,1\r\n4,5,6,0\r\n")

for mode in ["L", "LA", "RGB", "RGBA", "P", "I;16"]:
    put("corpus", "image", f"{mode.replace(';', '')}.png", image(mode, (9, 7), "PNG"))
put("corpus", "image", "rgb.jpg", image("RGB", (16, 12), "JPEG", quality=80))
put("corpus", "image", "gray.jpg", image("L", (9, 7), "JPEG"))
put("corpus", "image", "progressive.jpg", image("RGB", (17, 9), "JPEG", progressive=True))
put("corpus", "image", "444.jpg", image("RGB", (8, 8), "JPEG", subsampling=0))

put("corpus", "checkpoint", "adam.ckpt.safetensors", checkpoint())

# ---- regressions (issue 13) -----------------------------------------------------------------------
# safetensors: 2^61 F64 elements on 0 bytes (numel * 8 wrapped to 0)
wrap = '{"x":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}}'
put("regressions", "safetensors", "f64_numel_times_8_wraps.safetensors", safetensors({}, raw_header=wrap))
put("regressions", "safetensors", "shape_product_overflows.safetensors",
    safetensors({}, raw_header='{"x":{"dtype":"U8","shape":[4294967296,4294967296,16],"data_offsets":[0,0]}}'))
ck_wrap = ('{"__metadata__":{"format":"kindling-checkpoint-v1","epoch":"0","loss":"0","rng_state":""},'
           '"model.x":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}}')
put("regressions", "checkpoint", "f64_numel_times_8_wraps.ckpt.safetensors", safetensors({}, raw_header=ck_wrap))
for name, epoch in [("epoch_1e300", "1e300"), ("epoch_nan", "nan"), ("epoch_2_5", "2.5"), ("epoch_inf", "inf")]:
    put("regressions", "checkpoint", name + ".ckpt.safetensors", checkpoint(epoch=epoch))
put("regressions", "checkpoint", "adam_step_1e158.ckpt.safetensors", checkpoint(step=1e158))
put("regressions", "checkpoint", "adam_step_nan.ckpt.safetensors", checkpoint(step=float("nan")))
put("regressions", "checkpoint", "nan_lr.ckpt.safetensors", checkpoint(lr=float("nan")))
put("regressions", "checkpoint", "scheduler_last_epoch_1e300.ckpt.safetensors",
    checkpoint(extra_meta={"scheduler.last_epoch": "1e300", "scheduler.num_bad_epochs": "-inf"}))

# IDX: [65536]^4 on 0 bytes (the signed product overflowed); 2.87 GB claimed by an 8-byte file
put("regressions", "idx", "four_dims_65536_no_data.idx", bytes([0, 0, 8, 4]) + bytes([0, 1, 0, 0]) * 4)
put("regressions", "idx", "eight_bytes_claim_2_87_GB.idx", bytes([0, 0, 8, 1, 0xAB, 0, 0, 8]))
put("regressions", "idx", "gzip_claims_4_GB.idx.gz", gzip.compress(bytes([0, 0, 8, 1, 0xFF, 0xFF, 0xFF, 0xFF]) + b"\0" * 64, mtime=0))
put("regressions", "idx", "four_dims_max.idx", bytes([0, 0, 8, 4]) + bytes([0xFF] * 16))
# found by fuzz_idx: an empty shape [2^32-1, 4278190080, 0, 352291583] overflowed contiguous_strides
# (UBSan). Empty, but its other sizes overflow 64-bit offsets (select along them wrapped a pointer):
# refused, by the reader with the file's name and by the tensor layer for any such shape.
put("regressions", "idx", "empty_with_huge_dims.idx", bytes.fromhex("00000804" "ffffffff" "ff000000" "00000000" "14ff8aff"))

# CSV: labels that overflow int64, or are not numbers at all
put("regressions", "csv", "label_1e300.csv", "x,label\n1,1e300\n")
put("regressions", "csv", "label_inf.csv", "x,label\n1,inf\n")
put("regressions", "csv", "label_nan.csv", "x,label\n1,nan\n")
put("regressions", "csv", "label_minus_1e19.csv", "x,label\n1,-1e19\n")
put("regressions", "csv", "feature_nan.csv", "x,label\nnan,1\n")
put("regressions", "csv", "feature_overflows_float.csv", "x,label\n1e300,1\n")

# npy: a shape far beyond the data
put("regressions", "npy", "shape_2_61_no_data.npy",
    b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) +
    "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }".ljust(117).encode() + b"\n")

# Images: formats stb_image mishandled, and size claims far beyond the data
jpeg = bytearray(image("RGB", (16, 16), "JPEG"))
dht = jpeg.find(b"\xff\xc4")
jpeg[dht + 5:dht + 5 + 16] = bytes([255] * 16)  # DHT code counts summing far past 256
put("regressions", "image", "jpeg_dht_counts_past_256.jpg", bytes(jpeg))
put("regressions", "image", "gif_47_bytes.gif",
    b"GIF89a\xff\xff\xff\xff\x80\x00\x00" + b"\x00" * 6 + b",\x00\x00\x00\x00\xff\xff\xff\xff\x00\x02\x02D\x01\x00;" + b"\x00" * 7)
put("regressions", "image", "hdr_121_bytes.hdr", b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 65535 +X 65535\n" + b"\x02\x02\xff\xff" * 12)
put("regressions", "image", "tga_173_bytes.tga", bytes([0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 32, 8]) + b"\xff\x00\x00\x00\x00" * 31)
ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
put("regressions", "image", "png_claims_10_gigapixels.png",
    b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(b"\0" * 64)) + png_chunk(b"IEND", b""))
truncated = image("RGB", (32, 32), "JPEG")
put("regressions", "image", "jpeg_truncated.jpg", truncated[: len(truncated) // 2])

# ONNX models (python3-onnx's helper): small graphs whose inputs take the fuzz target's [1, 2, 3, 3]
# tensor of ones, so that a mutation of an attribute or an initializer reaches the op code.
from onnx import TensorProto, helper  # noqa: E402


def onnx_model(nodes, inits=(), n_inputs=1, opset=13):
    inputs = [helper.make_tensor_value_info(f"x{i}", TensorProto.FLOAT, [1, 2, 3, 3]) for i in range(n_inputs)]
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def init(name, dims, values, dtype=TensorProto.FLOAT):
    return helper.make_tensor(name, dtype, dims, values)


put("corpus", "onnx", "conv_relu_pool.onnx", onnx_model(
    [helper.make_node("Conv", ["x0", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
     helper.make_node("Relu", ["c"], ["r"]),
     helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], pads=[0, 0, 1, 1]),
     helper.make_node("Flatten", ["p"], ["y"])],
    [init("w", [4, 2, 3, 3], [0.1] * 72), init("b", [4], [0.0] * 4)]))
put("corpus", "onnx", "gemm_softmax.onnx", onnx_model(
    [helper.make_node("Reshape", ["x0", "shape"], ["f"]),
     helper.make_node("Gemm", ["f", "w", "b"], ["g"], transB=1),
     helper.make_node("LogSoftmax", ["g"], ["y"], axis=1)],
    [init("shape", [2], [1, 18], TensorProto.INT64), init("w", [5, 18], [0.01] * 90), init("b", [5], [0.5] * 5)]))
put("corpus", "onnx", "slice_tile_concat.onnx", onnx_model(
    [helper.make_node("Slice", ["x0", "starts", "ends", "axes", "steps"], ["s"]),
     helper.make_node("Tile", ["s", "reps"], ["t"]),
     helper.make_node("Concat", ["t", "t"], ["y"], axis=1)],
    [init("starts", [2], [0, -1], TensorProto.INT64), init("ends", [2], [2, -4], TensorProto.INT64),
     init("axes", [2], [2, 3], TensorProto.INT64), init("steps", [2], [1, -1], TensorProto.INT64),
     init("reps", [4], [1, 2, 1, 1], TensorProto.INT64)]))
put("corpus", "onnx", "reduce_gather_onehot.onnx", onnx_model(
    [helper.make_node("ReduceMean", ["x0"], ["m"], axes=[2, 3], keepdims=0),
     helper.make_node("ArgMax", ["m"], ["a"], axis=1),
     helper.make_node("OneHot", ["a", "depth", "values"], ["o"], axis=-1),
     helper.make_node("Gather", ["x0", "idx"], ["y"], axis=3)],
    [init("depth", [], [3], TensorProto.INT64), init("values", [2], [0.0, 1.0]),
     init("idx", [2], [0, -1], TensorProto.INT64)]))
put("corpus", "onnx", "expand_where_pad.onnx", onnx_model(
    [helper.make_node("Expand", ["x0", "shape"], ["e"]),
     helper.make_node("Greater", ["e", "x1"], ["g"]),
     helper.make_node("Where", ["g", "e", "x1"], ["w"]),
     helper.make_node("Pad", ["w", "pads"], ["y"], mode="reflect")],
    [init("shape", [4], [2, 2, 3, 3], TensorProto.INT64),
     init("pads", [8], [0, 0, 1, 1, 0, 0, 1, 1], TensorProto.INT64)], n_inputs=2))
put("corpus", "onnx", "layernorm_cumsum_topk.onnx", onnx_model(
    [helper.make_node("LayerNormalization", ["x0", "scale", "bias"], ["n"], axis=-1),
     helper.make_node("CumSum", ["n", "axis"], ["c"], reverse=1),
     helper.make_node("TopK", ["c", "k"], ["y", "i"], axis=3)],
    [init("scale", [3], [1.0] * 3), init("bias", [3], [0.0] * 3), init("axis", [], [3], TensorProto.INT64),
     init("k", [1], [2], TensorProto.INT64)], opset=17))

put("corpus", "onnx", "resize_cubic_crop.onnx", onnx_model(
    [helper.make_node("Resize", ["x0", "", "scales"], ["a"], mode="cubic", exclude_outside=1),
     helper.make_node("Resize", ["a", "roi", "", "sizes"], ["y"], mode="linear",
                      coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=2.0)],
    [init("scales", [4], [1.0, 1.0, 1.5, 0.6]), init("roi", [8], [0, 0, -0.2, 0.1, 1, 1, 0.9, 1.3]),
     init("sizes", [4], [1, 2, 5, 4], TensorProto.INT64)]))

# ONNX: an initializer that declares 2^40 float32 elements over 4 bytes of data (the importer
# allocated the declared size before comparing it with the data: std::bad_alloc).
huge = TensorProto()
huge.name, huge.data_type, huge.raw_data = "w", TensorProto.FLOAT, b"\0" * 4
huge.dims.extend([1 << 20, 1 << 20])
put("regressions", "onnx", "initializer_2_40_elements_over_4_bytes.onnx",
    onnx_model([helper.make_node("Add", ["x0", "w"], ["y"])], [huge]))
