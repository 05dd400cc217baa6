// ch10.ex2 — a window op's padding as ONNX means it: explicit pads, or auto_pad's SAME_UPPER /
// SAME_LOWER (TensorFlow's "SAME": the output keeps ceil(input / stride) positions) or VALID.
//
// onnx::detail::window_pads (kindling/jit/pieces.hpp): the importer's Conv, MaxPool and
// AveragePool (lib/src/jit/onnx_ops.cpp) parse auto_pad and pads (four values, each in bounds)
// and call it, then pad the input themselves where the pads are not symmetric.
#include "kindling/jit/pieces.hpp"

#include <algorithm>

namespace kindling::onnx::detail {

std::array<std::int64_t, 4> window_pads(const std::string& auto_pad,
                                        const std::vector<std::int64_t>& pads,
                                        std::array<std::int64_t, 2> input,
                                        std::array<std::int64_t, 2> kernel,
                                        std::array<std::int64_t, 2> stride,
                                        std::array<std::int64_t, 2> dilation) {
  // BEGIN SOLUTION ex2: SAME_* from the output size it asks for; else the attribute
  std::array<std::int64_t, 4> p{0, 0, 0, 0};  // h_begin, w_begin, h_end, w_end
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (int i = 0; i < 2; ++i) {
      const std::int64_t out = (input[i] + stride[i] - 1) / stride[i];  // ceil
      const std::int64_t span = (kernel[i] - 1) * dilation[i] + 1;      // the window's extent
      const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * stride[i] + span - input[i]);
      // UPPER: the odd one at the end; LOWER: at the beginning
      p[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      p[i + 2] = total - p[i];
    }
  } else if (auto_pad == "NOTSET" && pads.size() == 4) {
    std::copy(pads.begin(), pads.end(), p.begin());
  }
  return p;  // VALID, or NOTSET without pads: none
  // END SOLUTION
}

}  // namespace kindling::onnx::detail
