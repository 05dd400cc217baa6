// kd::onnx::load: an ONNX graph read with ONNX's own protobuf classes (onnx/onnx_pb.h, the
// onnx-ml.proto build Debian ships) and run node by node with Kindling ops, so the result is
// differentiable and its initializers are trainable parameters.
#include "kindling/jit/onnx.hpp"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::onnx {
namespace F = nn::functional;
namespace pb = ::onnx;

namespace {

[[noreturn]] void fail(const std::string& what) { throw Error("onnx: " + what); }

std::string node_label(const pb::NodeProto& node) {
  return "node '" + (node.name().empty() ? node.output_size() ? node.output(0) : std::string("?") : node.name()) +
         "' (" + node.op_type() + ")";
}

// The element count of declared dims, refusing negative sizes and counts past 2^40 elements (a
// hostile file may declare [1e18] and hope we allocate it).
std::int64_t checked_numel(const pb::TensorProto& t) {
  std::int64_t n = 1;
  for (auto d : t.dims()) {
    if (d < 0) fail("tensor '" + t.name() + "': field dims has a negative size " + std::to_string(d));
    if (d != 0 && n > (std::int64_t{1} << 40) / d)
      fail("tensor '" + t.name() + "': field dims declares more than 2^40 elements");
    n *= d;
  }
  return n;
}

Tensor tensor_from_proto(const pb::TensorProto& t, const std::filesystem::path& folder) {
  (void)folder;
  if (t.data_location() == pb::TensorProto::EXTERNAL || t.external_data_size() > 0)
    // External data names a file next to the model; Kindling refuses it rather than open paths a
    // file chose (../../etc/passwd).
    fail("tensor '" + t.name() + "': field external_data is not supported (data must be inside the model)");
  const std::int64_t n = checked_numel(t);
  Shape shape(t.dims().begin(), t.dims().end());
  const std::string& raw = t.raw_data();
  auto need = [&](std::size_t have, std::size_t elem, const char* field) {
    if (have != static_cast<std::size_t>(n) * (field[0] == 'r' ? elem : 1))
      fail("tensor '" + t.name() + "': field " + field + " holds " + std::to_string(have) +
           (field[0] == 'r' ? " bytes" : " values") + " for " + std::to_string(n) + " elements");
  };
  switch (t.data_type()) {
    case pb::TensorProto::FLOAT: {
      std::vector<float> v(static_cast<std::size_t>(n));
      if (t.has_raw_data()) { need(raw.size(), 4, "raw_data"); if (n) std::memcpy(v.data(), raw.data(), raw.size()); }
      else { need(static_cast<std::size_t>(t.float_data_size()), 4, "float_data"); std::copy(t.float_data().begin(), t.float_data().end(), v.begin()); }
      return kindling::tensor(v, shape);
    }
    case pb::TensorProto::DOUBLE: {
      std::vector<double> v(static_cast<std::size_t>(n));
      if (t.has_raw_data()) { need(raw.size(), 8, "raw_data"); if (n) std::memcpy(v.data(), raw.data(), raw.size()); }
      else { need(static_cast<std::size_t>(t.double_data_size()), 8, "double_data"); std::copy(t.double_data().begin(), t.double_data().end(), v.begin()); }
      return kindling::tensor(v, shape);
    }
    case pb::TensorProto::INT64: {
      std::vector<std::int64_t> v(static_cast<std::size_t>(n));
      if (t.has_raw_data()) { need(raw.size(), 8, "raw_data"); if (n) std::memcpy(v.data(), raw.data(), raw.size()); }
      else { need(static_cast<std::size_t>(t.int64_data_size()), 8, "int64_data"); std::copy(t.int64_data().begin(), t.int64_data().end(), v.begin()); }
      return kindling::tensor(v, shape);
    }
    case pb::TensorProto::INT32: {  // widened: Kindling indexes with int64
      std::vector<std::int64_t> v(static_cast<std::size_t>(n));
      if (t.has_raw_data()) {
        need(raw.size(), 4, "raw_data");
        for (std::int64_t i = 0; i < n; ++i) { std::int32_t x; std::memcpy(&x, raw.data() + 4 * i, 4); v[i] = x; }
      } else { need(static_cast<std::size_t>(t.int32_data_size()), 4, "int32_data"); std::copy(t.int32_data().begin(), t.int32_data().end(), v.begin()); }
      return kindling::tensor(v, shape);
    }
    default:
      fail("tensor '" + t.name() + "': field data_type " + std::to_string(t.data_type()) + " is not supported");
  }
}

// Attributes of one node, looked up by name, with the node named in every error.
struct Attrs {
  const pb::NodeProto& node;
  const pb::AttributeProto* find(const std::string& name) const {
    for (const auto& a : node.attribute()) if (a.name() == name) return &a;
    return nullptr;
  }
  std::int64_t i(const std::string& name, std::int64_t dflt) const {
    auto* a = find(name);
    if (!a) return dflt;
    if (a->type() != pb::AttributeProto::INT) fail(node_label(node) + ": attribute " + name + " is not an int");
    return a->i();
  }
  float f(const std::string& name, float dflt) const {
    auto* a = find(name);
    if (!a) return dflt;
    if (a->type() != pb::AttributeProto::FLOAT) fail(node_label(node) + ": attribute " + name + " is not a float");
    return a->f();
  }
  std::string s(const std::string& name, const std::string& dflt) const {
    auto* a = find(name);
    return a ? a->s() : dflt;
  }
  std::vector<std::int64_t> ints(const std::string& name, std::vector<std::int64_t> dflt = {}) const {
    auto* a = find(name);
    if (!a) return dflt;
    if (a->type() != pb::AttributeProto::INTS) fail(node_label(node) + ": attribute " + name + " is not a list of ints");
    return {a->ints().begin(), a->ints().end()};
  }
};

std::vector<std::int64_t> to_ints(const Tensor& t) {
  Tensor c = t.to(kInt64).contiguous();
  const auto* p = c.data_ptr<std::int64_t>();
  return {p, p + c.numel()};
}

}  // namespace

struct OnnxModule::Impl {
  pb::ModelProto model;
  std::int64_t opset = 0;
  std::map<std::string, Tensor> initializers;  // filled with the registered handles
  std::vector<std::string> inputs, outputs;

  std::vector<Tensor> run_node(const pb::NodeProto& node, const std::vector<Tensor>& in) const;
};

namespace {
// The ops this importer implements (checked at load, so an unknown op fails before any run).
const std::set<std::string>& supported_ops() {
  static const std::set<std::string> ops = {
      "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Relu", "Sigmoid", "Tanh", "Flatten", "Reshape",
      "Transpose", "Softmax", "LogSoftmax", "Identity", "Dropout", "Conv", "ConvTranspose",
      "MaxPool", "AveragePool", "GlobalAveragePool", "BatchNormalization", "Concat", "Constant",
      "Clip", "Unsqueeze", "Squeeze", "Gather", "Pad", "LeakyRelu", "Elu", "Softplus", "Exp", "Neg"};
  return ops;
}

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
  return F::IntPair(v[0], v[1]);
}
// Constant padding of every dim d by pads[d] before and pads[d + rank] after: blocks of `value`
// concatenated on each side (cat is differentiable, so gradients flow back to x).
Tensor pad_constant(Tensor x, const std::vector<std::int64_t>& pads, double value) {
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

// The 2-D window ops' pads as ONNX means them: auto_pad SAME_UPPER / SAME_LOWER computed from the
// input (output = ceil(in / stride)), else the pads attribute. Returns [h_begin, w_begin, h_end, w_end].
std::vector<std::int64_t> window_pads(const pb::NodeProto& node, const Attrs& a, const Tensor& x, F::IntPair k,
                                      F::IntPair stride, F::IntPair dil) {
  const auto ap = a.s("auto_pad", "NOTSET");
  if (ap == "VALID") return {0, 0, 0, 0};
  if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
    std::vector<std::int64_t> p(4);
    const std::int64_t in[2] = {x.size(2), x.size(3)}, kk[2] = {k.h, k.w}, st[2] = {stride.h, stride.w},
                       dl[2] = {dil.h, dil.w};
    for (int i = 0; i < 2; ++i) {
      const std::int64_t out = (in[i] + st[i] - 1) / st[i];
      const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * st[i] + (kk[i] - 1) * dl[i] + 1 - in[i]);
      p[i] = ap == "SAME_UPPER" ? total / 2 : total - total / 2;  // SAME_UPPER puts the odd one at the end
      p[i + 2] = total - p[i];
    }
    return p;
  }
  if (ap != "NOTSET") fail(node_label(node) + ": attribute auto_pad " + ap + " is not supported");
  auto p = a.ints("pads");
  if (p.empty()) return {0, 0, 0, 0};
  if (p.size() != 4) fail(node_label(node) + ": attribute pads has " + std::to_string(p.size()) + " values, want 4 (2-D)");
  for (auto v : p) if (v < 0 || v > (1 << 20)) fail(node_label(node) + ": attribute pads holds " + std::to_string(v));
  return p;
}
// Pads Kindling's 2-D op can take itself (symmetric, and for pooling at most half the window).
bool native_pads(const std::vector<std::int64_t>& p, F::IntPair k, bool pooling) {
  return p[0] == p[2] && p[1] == p[3] && (!pooling || (2 * p[0] <= k.h && 2 * p[1] <= k.w));
}
std::vector<std::int64_t> nchw_pads(const std::vector<std::int64_t>& p) { return {0, 0, p[0], p[1], 0, 0, p[2], p[3]}; }

void check_auto_pad(const pb::NodeProto& node, const Attrs& a) {
  auto ap = a.s("auto_pad", "NOTSET");
  if (ap != "NOTSET" && ap != "VALID") fail(node_label(node) + ": attribute auto_pad " + ap + " is not supported");
}
void want_rank(const pb::NodeProto& node, const Tensor& x, std::int64_t rank, const char* what) {
  if (static_cast<std::int64_t>(x.shape().size()) != rank)
    fail(node_label(node) + ": input " + what + " has rank " + std::to_string(x.shape().size()) + " (not supported: only rank " +
         std::to_string(rank) + ")");
}
}  // namespace

std::vector<Tensor> OnnxModule::Impl::run_node(const pb::NodeProto& node, const std::vector<Tensor>& in) const {
  const Attrs a{node};
  const std::string& op = node.op_type();
  auto arg = [&](std::size_t i) -> const Tensor& {
    if (i >= in.size() || !in[i].defined()) fail(node_label(node) + ": input " + std::to_string(i) + " is missing");
    return in[i];
  };
  auto opt = [&](std::size_t i) { return i < in.size() ? in[i] : Tensor(); };
  if (op == "Identity" || op == "Dropout") return {arg(0)};  // Dropout: inference, no mask
  if (op == "Relu") return {arg(0).relu()};
  if (op == "Sigmoid") return {arg(0).sigmoid()};
  if (op == "Tanh") return {arg(0).tanh()};
  if (op == "LeakyRelu") return {F::leaky_relu(arg(0), a.f("alpha", 0.01f))};
  if (op == "Elu") return {F::elu(arg(0), a.f("alpha", 1.f))};
  if (op == "Softplus") return {F::softplus(arg(0), 1.0, std::numeric_limits<double>::infinity())};
  if (op == "Exp") return {arg(0).exp()};
  if (op == "Neg") return {arg(0).neg()};
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
  if (op == "Div") return {arg(0) / arg(1)};
  if (op == "MatMul") return {matmul(arg(0), arg(1))};
  if (op == "Gemm") {
    // Y = alpha · A' · B' + beta · C, A' = transA ? Aᵀ : A ([M, K]), B' likewise ([K, N]).
    Tensor A = arg(0), B = arg(1);
    want_rank(node, A, 2, "A"); want_rank(node, B, 2, "B");
    if (a.i("transA", 0)) A = A.t();
    if (a.i("transB", 0)) B = B.t();
    Tensor y = matmul(A, B);
    const float alpha = a.f("alpha", 1.f), beta = a.f("beta", 1.f);
    if (alpha != 1.f) y = y * alpha;
    Tensor C = opt(2);
    if (C.defined()) y = y + (beta == 1.f ? C : C * beta);
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
      if (!native_pads(p, k, false)) {  // asymmetric: zeros added here, none by conv2d
        x = pad_constant(x, nchw_pads(p), 0.0);
        p = {0, 0, 0, 0};
      }
      return {F::conv2d(x, arg(1), opt(2), stride, F::Padding(F::IntPair(p[0], p[1])), dil, groups)};
    }
    check_auto_pad(node, a);
    auto pads = symmetric_pads(node, a.ints("pads"));
    if (!a.ints("output_shape").empty()) fail(node_label(node) + ": attribute output_shape is not supported");
    auto outpad = pair(node, a.ints("output_padding"), "output_padding", 0);
    return {F::conv_transpose2d(x, arg(1), opt(2), stride, pads, outpad, groups, dil)};
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
    if (!native_pads(p, k, true)) {
      // Max pooling ignores padding: -inf blocks added here give the same windows. Average pooling
      // would count them (or, with count_include_pad = 0, must not): left unsupported.
      if (op != "MaxPool" || ceil)
        fail(node_label(node) + ": asymmetric pads (or pads over half of kernel_shape) are not supported here");
      x = pad_constant(x, nchw_pads(p), -std::numeric_limits<double>::infinity());
      p = {0, 0, 0, 0};
    }
    const F::IntPair pads(p[0], p[1]);
    if (op == "MaxPool") return {F::max_pool2d(x, k, stride, pads, dil, ceil)};
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
    if (a.i("training_mode", 0)) fail(node_label(node) + ": attribute training_mode=1 is not supported (inference only)");
    return {F::batch_norm(arg(0), arg(3), arg(4), arg(1), arg(2), false, 0.1, a.f("epsilon", 1e-5f))};
  }
  if (op == "Concat") {
    std::vector<Tensor> xs;
    for (std::size_t i = 0; i < in.size(); ++i) xs.push_back(arg(i));
    if (!a.find("axis")) fail(node_label(node) + ": attribute axis is missing");
    return {cat(xs, a.i("axis", 0))};
  }
  if (op == "Constant") {
    auto* v = a.find("value");
    if (!v || v->type() != pb::AttributeProto::TENSOR) fail(node_label(node) + ": attribute value (a tensor) is missing");
    return {tensor_from_proto(v->t(), {})};
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
    // Embedding's lookup: rows of the table (axis 0) at integer indices.
    if (a.i("axis", 0) != 0) fail(node_label(node) + ": attribute axis other than 0 is not supported");
    if (arg(0).shape().size() != 2) fail(node_label(node) + ": input data of rank other than 2 is not supported");
    Tensor idx = arg(1).to(kInt64);
    const std::int64_t rows = arg(0).size(0);
    idx = idx.contiguous();
    auto* p = idx.data_ptr<std::int64_t>();
    std::vector<std::int64_t> fixed(p, p + idx.numel());
    for (auto& v : fixed) {
      if (v < -rows || v >= rows) fail(node_label(node) + ": input indices holds " + std::to_string(v) + ", out of range for " + std::to_string(rows) + " rows");
      if (v < 0) v += rows;
    }
    return {F::embedding(kindling::tensor(fixed, idx.shape()), arg(0))};
  }
  if (op == "Pad") {
    // PyTorch exports AvgPool2d(count_include_pad=True) as Pad then AveragePool. Constant mode only:
    // each padded dim gets blocks of the value concatenated before and after (cat is differentiable).
    if (a.s("mode", "constant") != "constant") fail(node_label(node) + ": attribute mode " + a.s("mode", "") + " is not supported");
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
    return {pad_constant(x, pads, value)};
  }
  fail(node_label(node) + ": op_type is not supported");
}

OnnxModule::OnnxModule(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
OnnxModule::~OnnxModule() = default;
const std::vector<std::string>& OnnxModule::input_names() const { return impl_->inputs; }
const std::vector<std::string>& OnnxModule::output_names() const { return impl_->outputs; }

Tensor OnnxModule::forward(const Tensor& input) { return forward_all({input}).at(0); }

std::vector<Tensor> OnnxModule::forward_all(const std::vector<Tensor>& inputs) {
  if (inputs.size() != impl_->inputs.size())
    fail("forward: the graph takes " + std::to_string(impl_->inputs.size()) + " inputs, got " + std::to_string(inputs.size()));
  std::map<std::string, Tensor> env = impl_->initializers;
  for (std::size_t i = 0; i < inputs.size(); ++i) env[impl_->inputs[i]] = inputs[i];
  for (const auto& node : impl_->model.graph().node()) {
    std::vector<Tensor> in;
    for (const auto& name : node.input()) {
      if (name.empty()) { in.emplace_back(); continue; }  // an omitted optional input
      auto it = env.find(name);
      if (it == env.end()) fail(node_label(node) + ": input '" + name + "' is produced by no earlier node");
      in.push_back(it->second);
    }
    std::vector<Tensor> out;
    try {
      out = impl_->run_node(node, in);
    } catch (const Error& e) {
      const std::string msg = e.what();
      if (msg.rfind("onnx: ", 0) == 0) throw;
      throw Error("onnx: " + node_label(node) + ": " + msg);  // a Kindling shape error, say, with its node
    }
    for (std::size_t i = 0; i < out.size() && i < static_cast<std::size_t>(node.output_size()); ++i)
      if (!node.output(static_cast<int>(i)).empty()) env[node.output(static_cast<int>(i))] = out[i];
  }
  std::vector<Tensor> result;
  for (const auto& name : impl_->outputs) {
    auto it = env.find(name);
    if (it == env.end()) fail("graph output '" + name + "' is produced by no node");
    result.push_back(it->second);
  }
  return result;
}

namespace {
void parse_file(const std::filesystem::path& path, google::protobuf::MessageLite& msg, const char* what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open " + path.string());
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string bytes = ss.str();
  // ParseFromString refuses truncated or malformed wire data (and stays within the buffer).
  if (!msg.ParseFromString(bytes))
    fail(path.string() + ": not a valid " + what + " protobuf (truncated or malformed, " + std::to_string(bytes.size()) + " bytes)");
}
}  // namespace

Tensor load_tensor(const std::filesystem::path& path) {
  pb::TensorProto t;
  parse_file(path, t, "TensorProto");
  return tensor_from_proto(t, path.parent_path());
}

std::shared_ptr<OnnxModule> load(const std::filesystem::path& path) {
  auto impl = std::make_shared<OnnxModule::Impl>();
  parse_file(path, impl->model, "ModelProto");
  const auto& model = impl->model;
  if (!model.has_graph()) fail(path.string() + ": field graph is missing");
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") impl->opset = o.version();
  if (impl->opset == 0) fail(path.string() + ": field opset_import: a model without the default domain (ai.onnx) is not supported");
  const auto& g = model.graph();
  for (const auto& node : g.node()) {
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      fail(node_label(node) + ": field domain '" + node.domain() + "' is not supported");
    if (!supported_ops().count(node.op_type())) fail(node_label(node) + ": op_type is not supported");
    for (const auto& at : node.attribute())
      if (at.type() == pb::AttributeProto::GRAPH || at.type() == pb::AttributeProto::GRAPHS)
        fail(node_label(node) + ": attribute " + at.name() + " holds a subgraph (not supported)");
  }
  const auto folder = path.parent_path();
  std::set<std::string> init_names;
  std::vector<std::pair<std::string, Tensor>> inits;
  for (const auto& t : g.initializer()) {
    init_names.insert(t.name());
    inits.emplace_back(t.name(), tensor_from_proto(t, folder));
  }
  // Graph inputs that are not initializers are the model's inputs (older exporters list both).
  for (const auto& vi : g.input()) {
    if (init_names.count(vi.name())) continue;
    if (vi.has_type() && !vi.type().has_tensor_type())
      fail("graph input '" + vi.name() + "': field type: sequences and optionals are not supported (only tensors)");
    impl->inputs.push_back(vi.name());
  }
  for (const auto& vi : g.output()) impl->outputs.push_back(vi.name());
  auto module = std::make_shared<OnnxModule>(impl);
  std::set<std::string> used;
  for (auto& [name, t] : inits) {
    // A dotted ONNX name ("fc1.weight") is kept readable with '_' (Module names have no dots).
    std::string reg = name.empty() ? std::string("initializer") : name;
    for (auto& c : reg) if (c == '.' || c == '/' || c == ':') c = '_';
    while (used.count(reg)) reg += "_";
    used.insert(reg);
    Tensor handle = t.dtype() == kFloat32 ? module->register_parameter(reg, t) : module->register_buffer(reg, t);
    impl->initializers[name] = handle;
  }
  return module;
}

}  // namespace kindling::onnx
