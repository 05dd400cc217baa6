// 3-D Conv, MaxPool and AveragePool (X [N, C, D, H, W]) for the ONNX importer, as 2-D ones over depth.
//
// Kindling's layers are 1-D and 2-D (chapter 5). A 3-D window is a 2-D window on each depth slice it
// covers, combined over the slices:
//   Conv:        y[:, :, od] = Σ_kd conv2d(x[:, :, od·s + kd·dil], W[:, :, kd])   (+ bias once)
//   MaxPool:     y[:, :, od] = max_kd max_pool2d(x[:, :, od·s + kd·dil])          (max is separable)
//   AveragePool: y[:, :, od] = (1/kD) Σ_kd avg_pool2d(x[:, :, od·s + kd])         (counting pads;
//                without count_include_pad, that over the same of a mask of ones: the real count)
// with depth padding added here (zeros; -inf for max) and the height / width handled by the 2-D node
// (its own pads, ceil_mode, dilations, groups). Every op is a recorded Kindling op: gradients flow.
#include <limits>

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "onnx_detail.hpp"

namespace kindling::onnx {
namespace detail {
namespace {

std::vector<std::int64_t> ints3(const pb::NodeProto& node, const Attrs& a, const char* name, std::size_t n,
                                std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
  auto v = a.ints(name);
  if (v.empty()) v.assign(n, dflt);
  if (v.size() != n) {
    fail(node_label(node) + ": attribute " + name + " has " + std::to_string(v.size()) + " values, want " +
         std::to_string(n) + " (3-D)");
  }
  for (auto x : v)
    if (x < lo || x > hi) fail(node_label(node) + ": attribute " + name + " holds " + std::to_string(x));
  return v;
}

void set_ints(pb::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v) {
  for (auto& at : *n.mutable_attribute()) {
    if (at.name() != name) continue;
    at.clear_ints();
    for (auto x : v) at.add_ints(x);
    return;
  }
  auto* at = n.add_attribute();
  at->set_name(name);
  at->set_type(pb::AttributeProto::INTS);
  for (auto x : v) at->add_ints(x);
}

void set_int(pb::NodeProto& n, const std::string& name, std::int64_t v) {
  for (auto& at : *n.mutable_attribute()) {
    if (at.name() == name) return at.set_i(v);
  }
  auto* at = n.add_attribute();
  at->set_name(name);
  at->set_type(pb::AttributeProto::INT);
  at->set_i(v);
}

}  // namespace

std::vector<Tensor> run_window_3d(const OnnxModule::Impl& impl, const pb::NodeProto& node,
                                  const std::vector<Tensor>& in) {
  const Attrs a{node};
  const std::string& op = node.op_type();
  const Tensor& x = in[0];
  if (a.s("auto_pad", "NOTSET") != "NOTSET") fail(node_label(node) + ": auto_pad with a 3-D input is not supported");
  const bool conv = op == "Conv", max = op == "MaxPool";
  Tensor w;
  std::vector<std::int64_t> k;
  if (conv) {
    if (in.size() < 2 || !in[1].defined() || in[1].dim() != 5) fail(node_label(node) + ": input W must have rank 5 for a 3-D X");
    w = in[1];
    k = {w.size(2), w.size(3), w.size(4)};
  } else {
    k = ints3(node, a, "kernel_shape", 3, 0, 1, 1 << 16);
    if (node.output_size() > 1) fail(node_label(node) + ": output Indices is not supported");
  }
  const auto s = ints3(node, a, "strides", 3, 1, 1, 1 << 16);
  const auto dil = op == "AveragePool" ? std::vector<std::int64_t>{1, 1, 1} : ints3(node, a, "dilations", 3, 1, 1, 1 << 16);
  const auto p = ints3(node, a, "pads", 6, 0, 0, 1 << 20);
  const bool ceil = !conv && a.i("ceil_mode", 0) != 0;

  // Depth: the output count (PyTorch's and ONNX's rule: a ceil-mode window starts inside the input
  // or its front padding) and the padded length it reads.
  const std::int64_t D = x.size(2), eff = dil[0] * (k[0] - 1) + 1, span = D + p[0] + p[3] - eff;
  if (span < 0) fail(node_label(node) + ": the depth " + std::to_string(D) + " with its pads is smaller than the window");
  std::int64_t out_d = (ceil ? (span + s[0] - 1) / s[0] : span / s[0]) + 1;
  if (ceil && (out_d - 1) * s[0] >= D + p[0]) --out_d;
  const std::int64_t need = (out_d - 1) * s[0] + eff, back = std::max(p[3], need - D - p[0]);
  const bool avg_include = op == "AveragePool" && a.i("count_include_pad", 0) != 0;
  if (avg_include && back > p[3]) {
    fail(node_label(node) + ": ceil_mode windows past the depth padding with count_include_pad are not supported");
  }
  auto depth_pad = [&](const Tensor& t, double value) {
    const std::int64_t r = t.dim();
    std::vector<std::int64_t> pads(static_cast<std::size_t>(2 * r), 0);
    pads[2] = p[0];
    pads[static_cast<std::size_t>(r + 2)] = back;
    return pad_constant(t, pads, value);
  };

  // The 2-D node every slice goes through: the height and width of each attribute.
  pb::NodeProto n2 = node;
  if (!conv) set_ints(n2, "kernel_shape", {k[1], k[2]});
  set_ints(n2, "strides", {s[1], s[2]});
  if (op != "AveragePool") set_ints(n2, "dilations", {dil[1], dil[2]});
  set_ints(n2, "pads", {p[1], p[2], p[4], p[5]});
  if (op == "AveragePool") set_int(n2, "count_include_pad", 1);  // depth and the count: done here

  auto slices = [&](const Tensor& t, double fill) {  // out_d tensors [N, C', H', W']
    const Tensor tp = depth_pad(t, fill);
    std::vector<Tensor> outs;
    for (std::int64_t od = 0; od < out_d; ++od) {
      Tensor acc;
      for (std::int64_t kd = 0; kd < k[0]; ++kd) {
        const Tensor xs = tp.select(2, od * s[0] + kd * dil[0]);
        std::vector<Tensor> args{xs};
        if (conv) args.push_back(w.select(2, kd));
        const Tensor y = impl.run_node(n2, args).at(0);
        acc = !acc.defined() ? y : max ? kindling::maximum(acc, y) : acc + y;
      }
      outs.push_back(acc);
    }
    return outs;
  };

  if (conv) {
    Tensor y = kindling::stack(slices(x, 0.0), 2);
    if (in.size() > 2 && in[2].defined()) y = y + in[2].reshape({1, in[2].numel(), 1, 1, 1});
    return {y};
  }
  if (max) {
    if (!is_floating_point(x.dtype())) {  // integer images: pooled in float64, exact below 2^53
      return {kindling::stack(slices(x.to(kFloat64), -std::numeric_limits<double>::infinity()), 2).to(x.dtype())};
    }
    return {kindling::stack(slices(x, -std::numeric_limits<double>::infinity()), 2)};
  }
  const Tensor sum = kindling::stack(slices(x, 0.0), 2);
  if (avg_include) return {sum / static_cast<double>(k[0])};
  const Tensor count = kindling::stack(slices(ones({1, 1, x.size(2), x.size(3), x.size(4)}, TensorOptions{.dtype = x.dtype()}), 0.0), 2);
  return {sum / count};
}

}  // namespace detail
}  // namespace kindling::onnx
