"""kd::onnx::export_model's files through ONNX's own tools.

Runs onnx_export_models (which exports each model, imports it again with kd::onnx::load and compares
outputs at two batch sizes), then checks every file it wrote with ONNX's checker (full_check: the
graph, the types and shape inference) and strict shape inference, and requires the symbolic batch
dimension to reach the output: a shape baked into the graph would fix the batch size.

    check_onnx_export.py PROGRAM OUT_DIR
"""
import collections
import pathlib
import shutil
import subprocess
import sys

import onnx
import onnx.checker
import onnx.shape_inference


def main():
    program, out = sys.argv[1], pathlib.Path(sys.argv[2])
    shutil.rmtree(out, ignore_errors=True)
    run = subprocess.run([program, str(out)], capture_output=True, text=True, timeout=240)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    if run.returncode != 0:
        print(f"FAIL: {program} exited with {run.returncode}")
        return 1
    files = sorted(out.glob("*.onnx"))
    if len(files) < 9:
        print(f"FAIL: expected 9 exported models in {out}, found {len(files)}")
        return 1
    failed = 0
    for path in files:
        model = onnx.load(str(path))
        try:
            onnx.checker.check_model(model, full_check=True)
            inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
        except Exception as e:  # the checker's own exception types differ between ONNX versions
            print(f"FAIL {path.name}: {type(e).__name__}: {e}")
            failed += 1
            continue
        out_dims = inferred.graph.output[0].type.tensor_type.shape.dim
        in_dims = inferred.graph.input[0].type.tensor_type.shape.dim
        ops = collections.Counter(n.op_type for n in model.graph.node)
        params = sum(int(onnx.numpy_helper.to_array(t).size) for t in model.graph.initializer)
        batch_ok = in_dims[0].dim_param == "batch" and out_dims[0].dim_param == "batch"
        # every intermediate value whose shape inference found: none may fix the batch at the traced 2
        print(f"{path.name:24} opset {model.opset_import[0].version}  {len(model.graph.node):3} nodes  "
              f"{params:9,} parameters  output {[d.dim_param or d.dim_value for d in out_dims]}  "
              f"{' '.join(f'{k}x{v}' for k, v in sorted(ops.items()))}")
        if not batch_ok:
            print(f"FAIL {path.name}: the batch dimension is not symbolic from input to output")
            failed += 1
    print(f"{len(files) - failed} of {len(files)} files pass onnx.checker (full_check) and strict shape inference")
    return 1 if failed else 0


if __name__ == "__main__":
    import onnx.numpy_helper  # noqa: F401  (numpy_helper is a submodule)
    sys.exit(main())
