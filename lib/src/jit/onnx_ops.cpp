// What each ONNX op means, in Kindling ops: OnnxModule::Impl::run_node gets a node and its input
// tensors and returns its outputs. Every op is built from differentiable Kindling ops (a graph
// loaded here trains); attributes and inputs the op does not support fail with the node and the
// field named ("... is not supported"), never a guess.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "onnx_detail.hpp"
#include "kindling/jit/pieces.hpp"

namespace kindling::onnx {
namespace F = nn::functional;
using namespace detail;

const std::set<std::string>& detail::supported_ops() {
  static const std::set<std::string> ops = {
      "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Relu", "Sigmoid", "Tanh", "Flatten", "Reshape",
      "Transpose", "Softmax", "LogSoftmax", "Identity", "Dropout", "Conv", "ConvTranspose",
      "MaxPool", "AveragePool", "GlobalAveragePool", "BatchNormalization", "Concat", "Constant",
      "Clip", "Unsqueeze", "Squeeze", "Gather", "Pad", "LeakyRelu", "Elu", "Softplus", "Exp", "Neg",
      // elementwise maths
      "Abs", "Ceil", "Floor", "Round", "Sign", "Sqrt", "Log", "Reciprocal", "Erf", "Sin", "Cos", "Tan", "Sinh",
      "Cosh", "Softsign", "HardSigmoid", "HardSwish", "Selu", "Celu", "PRelu", "ThresholdedRelu", "Shrink",
      "IsNaN", "IsInf",
      // comparisons and logic
      "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Not", "And", "Or", "Xor", "Where",
      // arithmetic
      "Pow", "Mod", "Max", "Min", "Sum", "Mean", "Einsum",
      // dtypes and shapes
      "Cast", "CastLike", "Shape", "Size", "ConstantOfShape", "Expand", "Tile", "Range", "Slice", "Split", "CumSum",
      // reductions
      "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare",
      "ReduceLogSum", "ReduceLogSumExp", "ArgMax", "ArgMin",
      // indexing, losses, normalisation
      "GatherElements", "ScatterElements", "Scatter", "Trilu", "TopK", "Hardmax", "DepthToSpace", "SpaceToDepth",
      "EyeLike", "OneHot", "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "LayerNormalization",
      "InstanceNormalization", "Resize", "Upsample", "GlobalMaxPool", "HannWindow", "HammingWindow",
      "BlackmanWindow"};
  return ops;
}

void detail::check_size(const pb::NodeProto& node, const Shape& shape) {
  double n = 1;
  for (auto d : shape) {
    if (d < 0) fail(node_label(node) + ": a size is negative");
    n *= static_cast<double>(d);
  }
  if (n > double(kMaxElements)) {
    fail(node_label(node) + ": the output would hold " + std::to_string(n) + " elements (this importer's limit is 2^28)");
  }
}

namespace {
using detail::check_size;

// A 2-D window op's output [N, C, out_h, out_w] checked before the op allocates it: out = in + pads
// (an upper bound) for Conv and pooling, (in - 1) * stride + dilation * (k - 1) + 1 + extra for
// ConvTranspose.
void check_window_output(const pb::NodeProto& node, const Tensor& x, std::int64_t channels, F::IntPair k,
                         F::IntPair stride, F::IntPair dil, const std::vector<std::int64_t>& pads, bool transposed,
                         std::int64_t extra = 0) {
  const std::int64_t in[2] = {x.size(2), x.size(3)}, kk[2] = {k.h, k.w}, st[2] = {stride.h, stride.w},
                     dl[2] = {dil.h, dil.w};
  Shape out = {x.size(0), channels, 0, 0};
  for (int i = 0; i < 2; ++i) {
    const std::int64_t padded = in[i] + (pads.size() == 4 ? pads[i] + pads[i + 2] : 0);
    out[2 + i] = transposed ? std::max<std::int64_t>(in[i] - 1, 0) * st[i] + dl[i] * std::max<std::int64_t>(kk[i] - 1, 0) + 1 + extra
                            : padded;
  }
  check_size(node, out);
}

}  // namespace

// ONNX's TensorProto::DataType codes as Kindling dtypes (int32 is widened to int64, as everywhere here).
DType detail::dtype_of_onnx(const pb::NodeProto& node, std::int64_t code) {
  switch (code) {
    case pb::TensorProto::FLOAT: return kFloat32;
    case pb::TensorProto::DOUBLE: return kFloat64;
    case pb::TensorProto::FLOAT16: return kFloat16;
    case pb::TensorProto::BFLOAT16: return kBFloat16;
    case pb::TensorProto::INT64:
    case pb::TensorProto::INT32: return kInt64;
    case pb::TensorProto::UINT8: return kUInt8;
    case pb::TensorProto::BOOL: return kBool;
    default: fail(node_label(node) + ": attribute to: data type " + std::to_string(code) + " is not supported");
  }
}

namespace {
using detail::dtype_of_onnx;

// ONNX pads are [x1_begin, x2_begin, ..., x1_end, x2_end]; Kindling's 2-D ops pad symmetrically.
F::IntPair symmetric_pads(const pb::NodeProto& node, const std::vector<std::int64_t>& pads) {
  if (pads.empty()) return 0;
  if (pads.size() != 4) fail(node_label(node) + ": attribute pads has " + std::to_string(pads.size()) + " values, want 4 (2-D)");
  if (pads[0] != pads[2] || pads[1] != pads[3]) fail(node_label(node) + ": attribute pads is asymmetric (not supported)");
  return F::IntPair(pads[0], pads[1]);
}
F::IntPair pair(const pb::NodeProto& node, const std::vector<std::int64_t>& v, const char* field, std::int64_t dflt) {
  if (v.empty()) return dflt;
  if (v.size() != 2) fail(node_label(node) + ": attribute " + field + " has " + std::to_string(v.size()) + " values, want 2 (2-D)");
  // Strides, dilations, kernel sizes and output padding of a 2-D window: a hostile 2^40 would size
  // an output no machine holds.
  for (auto x : v)
    if (x < 0 || x > (1 << 16)) fail(node_label(node) + ": attribute " + field + " holds " + std::to_string(x));
  return F::IntPair(v[0], v[1]);
}
}  // namespace

// Constant padding of every dim d by pads[d] before and pads[d + rank] after: blocks of `value`
// concatenated on each side (cat is differentiable, so gradients flow back to x).
Tensor detail::pad_constant(Tensor x, const std::vector<std::int64_t>& pads, double value) {
  const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
  for (std::int64_t d = 0; d < r; ++d) {
    std::vector<Tensor> parts;
    auto block = [&](std::int64_t n) {
      Shape s = x.shape();
      s[d] = n;
      return full(s, value, TensorOptions{.dtype = x.dtype()});
    };
    if (pads[d]) parts.push_back(block(pads[d]));
    parts.push_back(x);
    if (pads[d + r]) parts.push_back(block(pads[d + r]));
    if (parts.size() > 1) x = cat(parts, d);
  }
  return x;
}

namespace {
using detail::pad_constant;

// The 2-D window ops' pads as ONNX means them: auto_pad SAME_UPPER / SAME_LOWER computed from the
// input (output = ceil(in / stride)), else the pads attribute. Returns [h_begin, w_begin, h_end, w_end].
std::vector<std::int64_t> window_pads(const pb::NodeProto& node, const Attrs& a, const Tensor& x, F::IntPair k,
                                      F::IntPair stride, F::IntPair dil) {
  const auto ap = a.s("auto_pad", "NOTSET");
  if (ap != "NOTSET" && ap != "VALID" && ap != "SAME_UPPER" && ap != "SAME_LOWER")
    fail(node_label(node) + ": attribute auto_pad " + ap + " is not supported");
  std::vector<std::int64_t> given;
  if (ap == "NOTSET") {
    given = a.ints("pads");
    if (!given.empty() && given.size() != 4)
      fail(node_label(node) + ": attribute pads has " + std::to_string(given.size()) + " values, want 4 (2-D)");
    for (auto v : given)
      if (v < 0 || v > (1 << 20)) fail(node_label(node) + ": attribute pads holds " + std::to_string(v));
  }
  // The arithmetic is chapter 10's exercise 2 (kindling/jit/pieces.hpp).
  const auto p = detail::window_pads(ap, given, {x.size(2), x.size(3)}, {k.h, k.w}, {stride.h, stride.w},
                                     {dil.h, dil.w});
  for (int i = 0; i < 4; ++i) {
    const std::int64_t bound = std::max<std::int64_t>(1 << 20, 2 * (i % 2 == 0 ? k.h * dil.h : k.w * dil.w));
    if (p[static_cast<std::size_t>(i)] < 0 || p[static_cast<std::size_t>(i)] > bound)
      fail(node_label(node) + ": onnx::detail::window_pads (ch10.ex2) gave pad " + std::to_string(i) + " = " +
           std::to_string(p[static_cast<std::size_t>(i)]) + " for auto_pad " + ap +
           " (a pad is at least 0 and, for SAME_*, less than the window)");
  }
  return {p.begin(), p.end()};
}
// Pads Kindling's 2-D op can take itself (symmetric, and for pooling at most half the window).
bool native_pads(const std::vector<std::int64_t>& p, F::IntPair k, bool pooling) {
  return p[0] == p[2] && p[1] == p[3] && (!pooling || (2 * p[0] <= k.h && 2 * p[1] <= k.w));
}
std::vector<std::int64_t> nchw_pads(const std::vector<std::int64_t>& p) { return {0, 0, p[0], p[1], 0, 0, p[2], p[3]}; }

}  // namespace

void detail::want_rank(const pb::NodeProto& node, const Tensor& x, std::int64_t rank, const char* what) {
  if (static_cast<std::int64_t>(x.shape().size()) != rank)
    fail(node_label(node) + ": input " + what + " has rank " + std::to_string(x.shape().size()) + " (not supported: only rank " +
         std::to_string(rank) + ")");
}

std::vector<Tensor> OnnxModule::Impl::run_node(const pb::NodeProto& node, const std::vector<Tensor>& in) const {
  const Attrs a{node};
  const std::string& op = node.op_type();
  auto arg = [&](std::size_t i) -> const Tensor& { return required_input(node, in, i); };
  auto opt = [&](std::size_t i) { return optional_input(in, i); };
  if (op == "Identity") return {arg(0)};
  if (op == "Dropout") {
    // Inference: the input as it is, and a mask (output 1, when asked for) that keeps everything.
    // Training mode (opset 12's input 2) draws a random mask ONNX's tests fix with NumPy's generator.
    const Tensor ratio = opset >= 12 ? opt(1) : Tensor(), training = opset >= 12 ? opt(2) : Tensor();
    const double p = ratio.defined() ? ratio.to(kFloat64).reshape({-1}).select(0, 0).item<double>() : 0.5;
    if (training.defined() && training.to(kFloat64).reshape({-1}).select(0, 0).item<double>() != 0 && p != 0)
      fail(node_label(node) + ": input training_mode = true with a ratio above 0 is not supported (inference only)");
    return {arg(0), ones(arg(0).shape(), TensorOptions{.dtype = kBool})};
  }
  if (op == "Relu") return {arg(0).relu()};
  if (op == "Sigmoid") return {arg(0).sigmoid()};
  if (op == "Tanh") return {arg(0).tanh()};
  if (op == "LeakyRelu") return {F::leaky_relu(arg(0), a.f("alpha", 0.01f))};
  if (op == "Elu") return {F::elu(arg(0), a.f("alpha", 1.f))};
  if (op == "Softplus") return {F::softplus(arg(0), 1.0, std::numeric_limits<double>::infinity())};
  if (op == "Exp") return {arg(0).exp()};
  if (op == "Neg") return {arg(0).neg()};
  if ((op == "Conv" || op == "MaxPool" || op == "AveragePool") && !in.empty() && in[0].defined() &&
      in[0].shape().size() == 5) {
    return run_window_3d(*this, node, in);  // onnx_ops_3d.cpp: 2-D windows over the depth
  }
  if ((op == "Conv" || op == "ConvTranspose" || op == "MaxPool" || op == "AveragePool") && !in.empty() &&
      in[0].defined() && in[0].shape().size() == 3) {
    // 1-D as 2-D with a height of 1: X [N, C, L] -> [N, C, 1, L], W likewise, and every per-axis
    // attribute gets a leading 1 (pads: a leading 0 at both ends).
    pb::NodeProto n2 = node;
    for (auto& at : *n2.mutable_attribute()) {
      if (at.type() != pb::AttributeProto::INTS) continue;
      std::vector<std::int64_t> v(at.ints().begin(), at.ints().end());
      const std::int64_t fill = at.name() == "pads" || at.name() == "output_padding" ? 0 : 1;
      if (at.name() == "pads" && v.size() == 2) v = {0, v[0], 0, v[1]};
      else if (v.size() == 1) v = {fill, v[0]};
      at.clear_ints();
      for (auto x : v) at.add_ints(x);
    }
    std::vector<Tensor> in2 = in;
    in2[0] = in2[0].unsqueeze(2);
    if ((op == "Conv" || op == "ConvTranspose") && in2.size() > 1 && in2[1].defined() && in2[1].shape().size() == 3)
      in2[1] = in2[1].unsqueeze(2);
    auto out = run_node(n2, in2);
    out[0] = out[0].squeeze(2);
    return out;
  }
  if (op == "Add") return {arg(0) + arg(1)};
  if (op == "Sub") return {arg(0) - arg(1)};
  if (op == "Mul") return {arg(0) * arg(1)};
  if (op == "Div") {
    // Integers divide to an integer, truncated toward zero (C's /); Kindling's / is true division.
    if (!is_floating_point(arg(0).dtype()) && !is_floating_point(arg(1).dtype()))
      return {(arg(0).to(kFloat64) / arg(1).to(kFloat64)).trunc().to(promote_types(arg(0).dtype(), arg(1).dtype()))};
    return {arg(0) / arg(1)};
  }
  if (op == "MatMul") return {matmul(arg(0), arg(1))};
  if (op == "Gemm") {
    // Y = alpha · A' · B' + beta · C, A' = transA ? Aᵀ : A ([M, K]), B' likewise ([K, N]): chapter 10's
    // exercise 1 (kindling/jit/pieces.hpp), its arguments checked here.
    const Tensor& A = arg(0);
    const Tensor& B = arg(1);
    want_rank(node, A, 2, "A"); want_rank(node, B, 2, "B");
    const bool ta = a.i("transA", 0) != 0, tb = a.i("transB", 0) != 0;
    const std::int64_t M = A.size(ta ? 1 : 0), K = A.size(ta ? 0 : 1), N = B.size(tb ? 0 : 1);
    if (B.size(tb ? 1 : 0) != K)
      fail(node_label(node) + ": A " + shape_str(A.shape()) + (ta ? " (transposed)" : "") + " and B " +
           shape_str(B.shape()) + (tb ? " (transposed)" : "") + " have different inner sizes");
    const Tensor C = opt(2);
    auto broadcasts = [&](const Shape& c) {  // to [M, N], the trailing dims aligned
      if (c.size() > 2) return false;
      for (std::size_t i = 0; i < c.size(); ++i) {
        const std::int64_t d = c[c.size() - 1 - i], want = i == 0 ? N : M;
        if (d != 1 && d != want) return false;
      }
      return true;
    };
    if (C.defined() && !broadcasts(C.shape()))
      fail(node_label(node) + ": C " + shape_str(C.shape()) + " does not broadcast to [" + std::to_string(M) + ", " +
           std::to_string(N) + "]");
    Tensor y = detail::gemm(A, B, C, a.f("alpha", 1.f), a.f("beta", 1.f), ta, tb);
    if (!y.defined() || y.shape() != Shape{M, N})
      fail(node_label(node) + ": onnx::detail::gemm (ch10.ex1) returned " +
           (y.defined() ? shape_str(y.shape()) : std::string("an undefined tensor")) + ", not [" + std::to_string(M) +
           ", " + std::to_string(N) + "]");
    return {y};
  }
  if (op == "Flatten") {
    const Tensor& x = arg(0);
    std::int64_t r = static_cast<std::int64_t>(x.shape().size()), axis = a.i("axis", 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis > r) fail(node_label(node) + ": attribute axis " + std::to_string(axis) + " is out of range");
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < r; ++d) (d < axis ? outer : inner) *= x.size(d);
    return {x.reshape({outer, inner})};
  }
  if (op == "Reshape") {
    const Tensor& x = arg(0);
    auto dims = to_ints(arg(1));
    Shape shape;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      // 0 copies the input's size there (unless allowzero), -1 is inferred by reshape.
      if (dims[d] == 0 && !a.i("allowzero", 0)) {
        if (d >= x.shape().size()) fail(node_label(node) + ": input shape has a 0 past the input's rank");
        shape.push_back(x.size(static_cast<std::int64_t>(d)));
      } else shape.push_back(dims[d]);
    }
    return {x.reshape(shape)};
  }
  if (op == "Transpose") {
    const Tensor& x = arg(0);
    auto perm = a.ints("perm");
    if (perm.empty()) for (std::int64_t d = static_cast<std::int64_t>(x.shape().size()) - 1; d >= 0; --d) perm.push_back(d);
    return {x.permute(perm)};
  }
  if (op == "Softmax" || op == "LogSoftmax") {
    const Tensor& x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    if (opset >= 13) {  // one axis, default -1
      std::int64_t axis = a.i("axis", -1);
      return {op == "Softmax" ? F::softmax(x, axis) : F::log_softmax(x, axis)};
    }
    // Before opset 13: the input is flattened to 2-D at axis (default 1) and normalised per row.
    std::int64_t axis = a.i("axis", 1);
    if (axis < 0) axis += r;
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < r; ++d) (d < axis ? outer : inner) *= x.size(d);
    Tensor x2 = x.reshape({outer, inner});
    return {(op == "Softmax" ? F::softmax(x2, 1) : F::log_softmax(x2, 1)).reshape(x.shape())};
  }
  if (op == "Conv" || op == "ConvTranspose") {
    Tensor x = arg(0);
    want_rank(node, x, 4, "X");
    auto stride = pair(node, a.ints("strides"), "strides", 1);
    auto dil = pair(node, a.ints("dilations"), "dilations", 1);
    const std::int64_t groups = a.i("group", 1);
    if (op == "Conv") {
      want_rank(node, arg(1), 4, "W");
      const F::IntPair k(arg(1).size(2), arg(1).size(3));
      auto p = window_pads(node, a, x, k, stride, dil);
      check_window_output(node, x, std::max<std::int64_t>(arg(1).size(0), x.size(1)), k, stride, dil, p, false);
      if (!native_pads(p, k, false)) {  // asymmetric: zeros added here, none by conv2d
        x = pad_constant(x, nchw_pads(p), 0.0);
        p = {0, 0, 0, 0};
      }
      return {F::conv2d(x, arg(1), opt(2), stride, F::Padding(F::IntPair(p[0], p[1])), dil, groups)};
    }
    auto outpad = pair(node, a.ints("output_padding"), "output_padding", 0);
    want_rank(node, arg(1), 4, "W");
    check_window_output(node, x, arg(1).size(1) * std::max<std::int64_t>(groups, 1), F::IntPair(arg(1).size(2), arg(1).size(3)),
                        stride, dil, {}, true, std::max(outpad.h, outpad.w));
    const auto out_shape = a.ints("output_shape");
    const auto ap = a.s("auto_pad", "NOTSET");
    if (out_shape.empty() && (ap == "NOTSET" || ap == "VALID")) {
      auto pads = ap == "VALID" ? F::IntPair(0) : symmetric_pads(node, a.ints("pads"));
      return {F::conv_transpose2d(x, arg(1), opt(2), stride, pads, outpad, groups, dil)};
    }
    // output_shape (or auto_pad SAME_*: output = input * stride) fixes the output's size; the full
    // transposed convolution is cropped by total = full - wanted, split as ONNX says.
    if (ap != "NOTSET" && ap != "SAME_UPPER" && ap != "SAME_LOWER")
      fail(node_label(node) + ": attribute auto_pad " + ap + " is not supported");
    want_rank(node, arg(1), 4, "W");
    if (!out_shape.empty() && out_shape.size() != 2) fail(node_label(node) + ": attribute output_shape must hold 2 sizes (2-D)");
    const std::int64_t st[2] = {stride.h, stride.w}, dl[2] = {dil.h, dil.w}, opd[2] = {outpad.h, outpad.w};
    std::int64_t wanted[2], extra[2];
    for (int i = 0; i < 2; ++i) {
      const std::int64_t full = (x.size(2 + i) - 1) * st[i] + (arg(1).size(2 + i) - 1) * dl[i] + 1 + opd[i];
      wanted[i] = out_shape.empty() ? x.size(2 + i) * st[i] : out_shape[i];
      // A wanted size beyond the full output: more rows at the end, as output_padding adds them.
      if (wanted[i] < 0 || wanted[i] > (std::int64_t{1} << 20))
        fail(node_label(node) + ": attribute output_shape holds " + std::to_string(wanted[i]));
      extra[i] = std::max<std::int64_t>(0, wanted[i] - full);
    }
    check_size(node, {x.size(0), arg(1).size(1) * std::max<std::int64_t>(groups, 1), std::max(wanted[0], x.size(2)),
                      std::max(wanted[1], x.size(3))});
    Tensor y = F::conv_transpose2d(x, arg(1), opt(2), stride, 0, F::IntPair(opd[0] + extra[0], opd[1] + extra[1]), groups, dil);
    for (int i = 0; i < 2; ++i) {
      const std::int64_t total = y.size(2 + i) - wanted[i];
      const std::int64_t begin = ap == "SAME_UPPER" ? total / 2 : total - total / 2;
      y = y.slice(2 + i, begin, begin + wanted[i]);
    }
    return {y};
  }
  if (op == "MaxPool" || op == "AveragePool") {
    Tensor x = arg(0);
    want_rank(node, x, 4, "X");
    auto k = pair(node, a.ints("kernel_shape"), "kernel_shape", 0);
    if (k.h <= 0 || k.w <= 0) fail(node_label(node) + ": attribute kernel_shape is missing or not positive");
    auto stride = pair(node, a.ints("strides"), "strides", 1);
    const bool ceil = a.i("ceil_mode", 0) != 0;
    if (node.output_size() > 1) fail(node_label(node) + ": output Indices is not supported");
    auto dil = op == "MaxPool" ? pair(node, a.ints("dilations"), "dilations", 1) : F::IntPair(1);
    auto p = window_pads(node, a, x, k, stride, dil);
    check_window_output(node, x, x.size(1), k, stride, dil, p, false);
    if (!native_pads(p, k, true)) {
      // Max pooling ignores padding: -inf blocks added here give the same windows. Average pooling
      // gets zeros, and divides by what count_include_pad says (below).
      if (ceil) fail(node_label(node) + ": asymmetric pads (or pads over half of kernel_shape) with ceil_mode are not supported");
      if (op == "AveragePool") {
        // Zeros added here; without count_include_pad each window's sum is divided by the number of
        // real pixels in it: the average of the zero-padded input over the average of a padded mask.
        const Tensor xp = pad_constant(x, nchw_pads(p), 0.0);
        const Tensor avg = F::avg_pool2d(xp, k, stride, 0, false, true);
        if (a.i("count_include_pad", 0)) return {avg};
        const Tensor mask = pad_constant(ones({1, 1, x.size(2), x.size(3)}, TensorOptions{.dtype = x.dtype()}), nchw_pads(p), 0.0);
        return {avg / F::avg_pool2d(mask, k, stride, 0, false, true)};
      }
      x = pad_constant(x, nchw_pads(p), -std::numeric_limits<double>::infinity());
      p = {0, 0, 0, 0};
    }
    const F::IntPair pads(p[0], p[1]);
    if (op == "MaxPool") {
      // Integer images (uint8): pooled in float64, where every uint8 and int64 below 2^53 is exact.
      if (!is_floating_point(x.dtype())) return {F::max_pool2d(x.to(kFloat64), k, stride, pads, dil, ceil).to(x.dtype())};
      return {F::max_pool2d(x, k, stride, pads, dil, ceil)};
    }
    // ONNX's count_include_pad defaults to 0 (PyTorch's to true).
    return {F::avg_pool2d(x, k, stride, pads, ceil, a.i("count_include_pad", 0) != 0)};
  }
  if (op == "GlobalAveragePool") {
    const Tensor& x = arg(0);
    std::vector<std::int64_t> dims;
    for (std::int64_t d = 2; d < static_cast<std::int64_t>(x.shape().size()); ++d) dims.push_back(d);
    return {x.mean(dims, /*keepdim=*/true)};
  }
  if (op == "BatchNormalization") {
    const double eps = a.f("epsilon", 1e-5f);
    if (!a.i("training_mode", 0)) return {F::batch_norm(arg(0), arg(3), arg(4), arg(1), arg(2), false, 0.1, eps)};
    // Training mode: normalised with the batch's statistics (biased variance); outputs 1 and 2 are the
    // running statistics moved toward them: running * momentum + batch * (1 - momentum).
    const Tensor& x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    std::vector<std::int64_t> dims = {0};
    for (std::int64_t d = 2; d < r; ++d) dims.push_back(d);
    Shape per_channel(static_cast<std::size_t>(r), 1);
    per_channel[1] = x.size(1);
    const Tensor mean = x.mean(dims, true), centred = x - mean, var = (centred * centred).mean(dims, true);
    const Tensor y = centred / (var + eps).sqrt() * arg(1).reshape(per_channel) + arg(2).reshape(per_channel);
    const double m = a.f("momentum", 0.9f);
    return {y, arg(3) * m + mean.reshape({-1}) * (1 - m), arg(4) * m + var.reshape({-1}) * (1 - m)};
  }
  if (op == "Concat") {
    std::vector<Tensor> xs;
    for (std::size_t i = 0; i < in.size(); ++i) xs.push_back(arg(i));
    if (!a.find("axis")) fail(node_label(node) + ": attribute axis is missing");
    return {cat(xs, a.i("axis", 0))};
  }
  if (op == "Constant") {
    // One of value (a tensor), value_float(s), value_int(s); sparse and string values are refused.
    if (auto* v = a.find("value")) {
      if (v->type() != pb::AttributeProto::TENSOR) fail(node_label(node) + ": attribute value is not a tensor");
      return {tensor_from_proto(v->t(), {})};
    }
    if (auto* v = a.find("value_float")) return {scalar_tensor(v->f(), TensorOptions{.dtype = kFloat32})};
    if (auto* v = a.find("value_int")) return {scalar_tensor(v->i(), TensorOptions{.dtype = kInt64})};
    if (auto* v = a.find("value_floats")) {
      std::vector<float> f(v->floats().begin(), v->floats().end());
      return {kindling::tensor(f, {static_cast<std::int64_t>(f.size())})};
    }
    if (auto* v = a.find("value_ints")) {
      std::vector<std::int64_t> i(v->ints().begin(), v->ints().end());
      return {kindling::tensor(i, {static_cast<std::int64_t>(i.size())})};
    }
    fail(node_label(node) + ": attribute value (or value_float(s), value_int(s)) is missing or not supported");
  }
  if (op == "Clip") {
    const Tensor& x = arg(0);
    std::optional<Scalar> lo, hi;
    if (opset >= 11) {
      Tensor l = opt(1), h = opt(2);
      if (l.defined()) lo = l.to(kFloat64).contiguous().data_ptr<double>()[0];
      if (h.defined()) hi = h.to(kFloat64).contiguous().data_ptr<double>()[0];
    } else {
      lo = a.f("min", -std::numeric_limits<float>::infinity());
      hi = a.f("max", std::numeric_limits<float>::infinity());
    }
    if (!lo && !hi) return {x};
    return {x.clamp(lo, hi)};
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    Tensor x = arg(0);
    auto axes = opset >= 13 ? (opt(1).defined() ? to_ints(in[1]) : std::vector<std::int64_t>{}) : a.ints("axes");
    if (op == "Squeeze") {
      if (axes.empty()) return {x.squeeze()};
      const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
      for (auto& d : axes) if (d < 0) d += r;
      std::sort(axes.rbegin(), axes.rend());
      for (auto d : axes) x = x.squeeze(d);
      return {x};
    }
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size() + axes.size());
    for (auto& d : axes) if (d < 0) d += r;
    std::sort(axes.begin(), axes.end());
    for (auto d : axes) x = x.unsqueeze(d);
    return {x};
  }
  if (op == "Gather") {
    // out = data indexed along axis at every index: shape data[:axis] + indices + data[axis+1:]. On a
    // 2-D table along axis 0 that is Embedding's lookup (F::embedding, whose backward is chapter 3's).
    const Tensor& data = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(data.shape().size());
    std::int64_t axis = a.i("axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) fail(node_label(node) + ": attribute axis is out of range for rank " + std::to_string(r));
    Tensor idx = arg(1).to(kInt64).contiguous();
    const std::int64_t rows = data.size(axis);
    auto* p = idx.data_ptr<std::int64_t>();
    std::vector<std::int64_t> fixed(p, p + idx.numel());
    for (auto& v : fixed) {
      if (v < -rows || v >= rows) fail(node_label(node) + ": input indices holds " + std::to_string(v) + ", out of range for " + std::to_string(rows) + " rows");
      if (v < 0) v += rows;
    }
    if (axis == 0 && r == 2) return {F::embedding(kindling::tensor(fixed, idx.shape()), data)};
    Shape out(data.shape().begin(), data.shape().begin() + axis);
    out.insert(out.end(), idx.shape().begin(), idx.shape().end());
    out.insert(out.end(), data.shape().begin() + axis + 1, data.shape().end());
    return {index_select(data, axis, kindling::tensor(fixed, {static_cast<std::int64_t>(fixed.size())})).reshape(out)};
  }
  if (op == "Pad") {
    // PyTorch exports AvgPool2d(count_include_pad=True) as Pad then AveragePool. Constant mode: each
    // padded dim gets blocks of the value concatenated before and after (cat is differentiable);
    // reflect and edge: the rows at mirrored or clamped positions, gathered with index_select.
    const std::string mode = a.s("mode", "constant");
    if (mode != "constant" && mode != "reflect" && mode != "edge")
      fail(node_label(node) + ": attribute mode " + mode + " is not supported");
    Tensor x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    auto pads = opset >= 11 ? to_ints(arg(1)) : a.ints("pads");
    double value = opset >= 11 ? (opt(2).defined() ? opt(2).to(kFloat64).contiguous().data_ptr<double>()[0] : 0.0)
                               : a.f("value", 0.f);
    if (static_cast<std::int64_t>(pads.size()) != 2 * r)
      fail(node_label(node) + ": input pads has " + std::to_string(pads.size()) + " values, want " + std::to_string(2 * r));
    if (node.input_size() > 3) fail(node_label(node) + ": input axes is not supported");
    for (auto v : pads) {
      if (v < 0) fail(node_label(node) + ": negative pads (cropping) are not supported");
      if (v > (1 << 20)) fail(node_label(node) + ": input pads holds a huge size " + std::to_string(v));
    }
    Shape padded = x.shape();
    for (std::int64_t d = 0; d < r; ++d) padded[d] += pads[d] + pads[d + r];
    check_size(node, padded);
    if (mode == "constant") return {pad_constant(x, pads, value)};
    for (std::int64_t d = 0; d < r; ++d) {
      const std::int64_t n = x.size(d), before = pads[d], after = pads[d + r];
      if (!before && !after) continue;
      if (n == 0 || (mode == "reflect" && (n < 2 || before >= n || after >= n)))
        fail(node_label(node) + ": reflect padding of " + std::to_string(std::max(before, after)) + " on a dim of size " +
             std::to_string(n) + " (it must be smaller than the size)");
      std::vector<std::int64_t> index;
      for (std::int64_t i = -before; i < n + after; ++i) {
        std::int64_t j = i;
        if (mode == "edge") j = std::clamp<std::int64_t>(i, 0, n - 1);
        else j = i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i);  // reflect: the edge row itself is not repeated
        index.push_back(j);
      }
      x = index_select(x, d, kindling::tensor(index, {static_cast<std::int64_t>(index.size())}));
    }
    return {x};
  }
  if (op == "InstanceNormalization") {
    // Per sample and channel over the spatial dims: (x - mean) / sqrt(var + epsilon) * scale[c] + B[c].
    const Tensor& x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    if (r < 3) fail(node_label(node) + ": input must be [N, C, d1, ...]");
    std::vector<std::int64_t> dims;
    for (std::int64_t d = 2; d < r; ++d) dims.push_back(d);
    Shape per_channel(static_cast<std::size_t>(r - 1), 1);
    per_channel[0] = x.size(1);
    const Tensor centred = x - x.mean(dims, true);
    const Tensor inv_std = ((centred * centred).mean(dims, true) + a.f("epsilon", 1e-5f)).sqrt().reciprocal();
    return {centred * inv_std * arg(1).reshape(per_channel) + arg(2).reshape(per_channel)};
  }
  // The elementwise maths, logic, shape and indexing ops: onnx_ops_tensor.cpp.
  return run_tensor_op(node, in);
}

}  // namespace kindling::onnx
