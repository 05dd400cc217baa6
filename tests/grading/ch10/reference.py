"""Chapter 10's reference answers, shared by the graded tests' twin (pytorch.py) and the milestone's
checker (milestone.py): a window op's pads as ONNX's own reference computes them
(onnx.backend.test.case.node.pool_op_common, the code that generated ONNX's conformance data)."""
from onnx.backend.test.case.node.pool_op_common import get_output_shape, get_pad_shape


def onnx_pads(mode, inp, kernel, stride, dilation):
    """[h_begin, w_begin, h_end, w_end] for auto_pad SAME_UPPER / SAME_LOWER: ONNX's reference with the
    window dilated and the total clamped at 0 (as ONNX's shape inference does); SAME_UPPER puts the odd
    one at the end, SAME_LOWER at the beginning."""
    span = [(k - 1) * d + 1 for k, d in zip(kernel, dilation)]
    out = get_output_shape(mode, inp, span, stride)
    total = [max(0, t) for t in get_pad_shape(mode, inp, span, stride, out)]
    begin = [t // 2 if mode == "SAME_UPPER" else t - t // 2 for t in total]
    return begin + [t - b for t, b in zip(total, begin)]
