// The elementwise maths, logic, shape and indexing ops of ONNX, in Kindling ops: the second half of
// OnnxModule::Impl::run_node (onnx_ops.cpp has the layers: Gemm, Conv, pooling, normalisation...).
// As there, every op is built from differentiable Kindling ops, and what an op does not support
// fails with the node and the field named.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "kindling/nn/functional.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "onnx_detail.hpp"

namespace kindling::onnx {
namespace F = nn::functional;
using namespace detail;

std::vector<Tensor> OnnxModule::Impl::run_tensor_op(const pb::NodeProto& node, const std::vector<Tensor>& in) const {
  const Attrs a{node};
  const std::string& op = node.op_type();
  auto arg = [&](std::size_t i) -> const Tensor& { return required_input(node, in, i); };
  auto opt = [&](std::size_t i) { return optional_input(in, i); };
  // ---- elementwise maths (ONNX's unary ops; the result keeps the input's dtype) ----
  if (op == "Abs") return {arg(0).abs()};
  if (op == "Ceil") return {arg(0).ceil()};
  if (op == "Floor") return {arg(0).floor()};
  if (op == "Round") return {arg(0).round()};  // halves to even, as ONNX and PyTorch round
  if (op == "Sign") return {arg(0).sign()};
  if (op == "Sqrt") return {arg(0).sqrt()};
  if (op == "Log") return {arg(0).log()};
  if (op == "Reciprocal") return {arg(0).reciprocal()};
  if (op == "Erf") return {arg(0).erf()};
  if (op == "Sin") return {arg(0).sin()};
  if (op == "Cos") return {arg(0).cos()};
  if (op == "Tan") return {arg(0).sin() / arg(0).cos()};
  if (op == "Sinh") return {(arg(0).exp() - arg(0).neg().exp()) * 0.5};
  if (op == "Cosh") return {(arg(0).exp() + arg(0).neg().exp()) * 0.5};
  if (op == "Softsign") return {arg(0) / (arg(0).abs() + 1.0)};
  if (op == "HardSigmoid") return {(arg(0) * a.f("alpha", 0.2f) + a.f("beta", 0.5f)).clamp(0.0, 1.0)};
  if (op == "HardSwish") return {arg(0) * (arg(0) * (1.0 / 6.0) + 0.5).clamp(0.0, 1.0)};
  if (op == "Selu" || op == "Celu") {
    // Selu: gamma (max(0, x) + alpha (exp(min(0, x)) - 1)); Celu: max(0, x) + alpha (exp(min(0, x) / alpha) - 1).
    const Tensor& x = arg(0);
    const Tensor neg = x.clamp(std::nullopt, 0.0);
    if (op == "Celu") {
      const double alpha = a.f("alpha", 1.f);
      return {x.relu() + ((neg / alpha).exp() - 1.0) * alpha};
    }
    const double alpha = a.f("alpha", 1.67326319217681884765625f), gamma = a.f("gamma", 1.05070102214813232421875f);
    return {(x.relu() + (neg.exp() - 1.0) * alpha) * gamma};
  }
  if (op == "PRelu") {
    // The slope broadcasts to x (opset 7 on); before, a 1-D slope of x.size(1) values is per channel.
    Tensor slope = arg(1);
    const Tensor& x = arg(0);
    if (opset < 7 && slope.shape().size() == 1 && x.shape().size() > 2 && slope.size(0) == x.size(1)) {
      Shape s(x.shape().size() - 1, 1);
      s[0] = slope.size(0);
      slope = slope.reshape(s);
    }
    return {x.relu() + x.clamp(std::nullopt, 0.0) * slope};
  }
  if (op == "ThresholdedRelu") return {where(arg(0).gt(full_like(arg(0), a.f("alpha", 1.f))), arg(0), 0.0)};
  if (op == "Shrink") {
    const Tensor& x = arg(0);
    const double lambd = a.f("lambd", 0.5f), bias = a.f("bias", 0.f);
    return {where(x.lt(full_like(x, -lambd)), x + bias, where(x.gt(full_like(x, lambd)), x - bias, 0.0))};
  }
  if (op == "IsNaN") return {arg(0).ne(arg(0))};
  if (op == "IsInf") {
    const Tensor& x = arg(0);
    const double inf = std::numeric_limits<double>::infinity();
    const bool pos = a.i("detect_positive", 1) != 0, neg = a.i("detect_negative", 1) != 0;
    if (pos && neg) return {x.abs().eq(full_like(x, inf))};
    if (pos || neg) return {x.eq(full_like(x, pos ? inf : -inf))};
    return {zeros_like(x, TensorOptions{.dtype = kBool})};
  }
  // ---- comparisons and logic (bool results), with broadcasting ----
  if (op == "Equal") return {arg(0).eq(arg(1))};
  if (op == "Greater") return {arg(0).gt(arg(1))};
  if (op == "Less") return {arg(0).lt(arg(1))};
  if (op == "GreaterOrEqual") return {arg(0).ge(arg(1))};
  if (op == "LessOrEqual") return {arg(0).le(arg(1))};
  if (op == "Not") return {arg(0).eq(zeros_like(arg(0)))};
  if (op == "And") return {(arg(0).to(kInt64) * arg(1).to(kInt64)).ne(zeros({}, TensorOptions{.dtype = kInt64}))};
  if (op == "Or") return {(arg(0).to(kInt64) + arg(1).to(kInt64)).ne(zeros({}, TensorOptions{.dtype = kInt64}))};
  if (op == "Xor") return {arg(0).ne(arg(1))};
  if (op == "Where") return {where(arg(0).to(kBool), arg(1), arg(2))};
  // ---- binary and variadic arithmetic ----
  if (op == "Pow") {
    // The result has the base's dtype (an int64 base with a float exponent stays int64).
    Tensor y = pow(arg(0), arg(1));
    return {y.dtype() == arg(0).dtype() ? y : y.to(arg(0).dtype())};
  }
  if (op == "Mod") {
    const Tensor &x = arg(0), &m = arg(1);
    if (!a.i("fmod", 0)) return {remainder(x, m)};  // the divisor's sign, as Python's %
    // fmod: the dividend's sign, x - trunc(x / m) * m, computed in float64 for integers.
    const Tensor xd = x.to(kFloat64), md = m.to(kFloat64);
    const Tensor y = xd - (xd / md).trunc() * md;
    return {y.to(promote_types(x.dtype(), m.dtype()))};
  }
  if (op == "Max" || op == "Min" || op == "Sum" || op == "Mean") {
    Tensor y = arg(0);
    for (std::size_t i = 1; i < in.size(); ++i) {
      y = op == "Max" ? maximum(y, arg(i)) : op == "Min" ? minimum(y, arg(i)) : y + arg(i);
    }
    if (op == "Mean") y = y / static_cast<double>(in.size());
    return {y};
  }
  if (op == "Einsum") {
    std::vector<Tensor> xs;
    for (std::size_t i = 0; i < in.size(); ++i) xs.push_back(arg(i));
    return {einsum(a.s("equation", ""), xs)};
  }
  // ---- dtypes ----
  if (op == "Cast" || op == "CastLike") {
    if (op == "CastLike") return {arg(0).to(arg(1).dtype())};
    return {arg(0).to(dtype_of_onnx(node, a.i("to", 0)))};
  }
  // ---- shapes ----
  if (op == "Shape") {
    const std::int64_t r = static_cast<std::int64_t>(arg(0).shape().size());
    std::int64_t start = a.i("start", 0), end = a.i("end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<std::int64_t>(start, 0, r);
    end = std::clamp<std::int64_t>(end, start, r);
    std::vector<std::int64_t> dims(arg(0).shape().begin() + start, arg(0).shape().begin() + end);
    return {kindling::tensor(dims, {static_cast<std::int64_t>(dims.size())})};
  }
  if (op == "Size") return {scalar_tensor(arg(0).numel(), TensorOptions{.dtype = kInt64})};
  if (op == "ConstantOfShape") {
    auto dims = to_ints(arg(0));
    for (auto d : dims) if (d < 0 || d > (std::int64_t{1} << 31)) fail(node_label(node) + ": input shape holds " + std::to_string(d));
    Tensor value = scalar_tensor(0.0);
    if (auto* v = a.find("value")) value = tensor_from_proto(v->t(), {});
    if (value.numel() != 1) fail(node_label(node) + ": attribute value must hold one element");
    check_size(node, Shape(dims.begin(), dims.end()));
    return {full(Shape(dims.begin(), dims.end()), value.reshape({}).to(kFloat64).item<double>(),
                 TensorOptions{.dtype = value.dtype()})};
  }
  if (op == "Expand") {
    // Bidirectional broadcasting: the output has broadcast(x.shape, shape).
    const Tensor& x = arg(0);
    auto want = to_ints(arg(1));
    const std::size_t r = std::max(want.size(), x.shape().size());
    Shape out(r, 1);
    for (std::size_t k = 0; k < r; ++k) {
      const std::int64_t xs = k < r - x.shape().size() ? 1 : x.shape()[k - (r - x.shape().size())];
      const std::int64_t ws = k < r - want.size() ? 1 : want[k - (r - want.size())];
      if (xs != ws && xs != 1 && ws != 1)
        fail(node_label(node) + ": input shape does not broadcast with the input's shape at dim " + std::to_string(k));
      out[k] = xs == 1 ? ws : xs;
    }
    check_size(node, out);
    Shape lifted(r - x.shape().size(), 1);  // x with leading 1s up to the output's rank
    lifted.insert(lifted.end(), x.shape().begin(), x.shape().end());
    return {x.reshape(lifted).expand(out)};
  }
  if (op == "Tile") {
    auto reps = to_ints(arg(1));
    if (reps.size() != arg(0).shape().size()) fail(node_label(node) + ": input repeats must have one value per dim");
    for (auto v : reps) if (v < 0 || v > (1 << 20)) fail(node_label(node) + ": input repeats holds " + std::to_string(v));
    Shape out = arg(0).shape();
    for (std::size_t k = 0; k < out.size(); ++k) out[k] *= reps[k];
    check_size(node, out);
    return {arg(0).repeat(reps)};
  }
  if (op == "Range") {
    const Tensor& s = arg(0);
    const double start = s.to(kFloat64).item<double>(), limit = arg(1).to(kFloat64).item<double>(),
                 delta = arg(2).to(kFloat64).item<double>();
    if (delta == 0) fail(node_label(node) + ": input delta is 0");
    const double n = std::max(std::ceil((limit - start) / delta), 0.0);
    if (!std::isfinite(n) || n > double(kMaxElements)) fail(node_label(node) + ": the range has too many elements (or a NaN bound)");
    // start + i * delta in the inputs' dtype (ONNX's definition; not arange's accumulated steps).
    Tensor i = arange(0, static_cast<std::int64_t>(n), 1, TensorOptions{.dtype = kInt64});
    return {(i.to(kFloat64) * delta + start).to(s.dtype())};
  }
  if (op == "Slice") {
    Tensor x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (opset >= 10) {
      starts = to_ints(arg(1));
      ends = to_ints(arg(2));
      if (opt(3).defined()) axes = to_ints(in[3]);
      if (opt(4).defined()) steps = to_ints(in[4]);
    } else {
      starts = a.ints("starts");
      ends = a.ints("ends");
      axes = a.ints("axes");
    }
    if (axes.empty()) for (std::int64_t d = 0; d < static_cast<std::int64_t>(starts.size()); ++d) axes.push_back(d);
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
      fail(node_label(node) + ": inputs starts, ends, axes and steps differ in length");
    for (std::size_t k = 0; k < starts.size(); ++k) {
      std::int64_t d = axes[k] < 0 ? axes[k] + r : axes[k];
      if (d < 0 || d >= r) fail(node_label(node) + ": axis " + std::to_string(axes[k]) + " is out of range");
      const std::int64_t n = x.size(d), step = steps[k];
      if (step == 0) fail(node_label(node) + ": a step is 0");
      std::int64_t b = starts[k] < 0 ? starts[k] + n : starts[k], e = ends[k] < 0 ? ends[k] + n : ends[k];
      // ONNX clamps: [0, n] for a positive step, [0, n - 1] and [-1, n - 1] for a negative one.
      if (step > 0) { b = std::clamp<std::int64_t>(b, 0, n); e = std::clamp<std::int64_t>(e, 0, n); }
      else { b = std::clamp<std::int64_t>(b, 0, n - 1); e = std::clamp<std::int64_t>(e, -1, n - 1); }
      if (step == std::numeric_limits<std::int64_t>::min()) fail(node_label(node) + ": a step is out of range");
      // How many indices b, b + step, ... lie before e (written so that no huge step overflows).
      const std::int64_t count = step > 0 ? (e > b ? (e - b - 1) / step + 1 : 0) : (b > e ? (b - e - 1) / -step + 1 : 0);
      if (step > 0) x = x.slice(d, b, b + (count ? (count - 1) * step + 1 : 0), step);
      else x = index_select(x, d, arange(0, count, 1, TensorOptions{.dtype = kInt64}) * step + b);
    }
    return {x};
  }
  if (op == "Split") {
    const Tensor& x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    std::int64_t axis = a.i("axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) fail(node_label(node) + ": attribute axis is out of range");
    auto sizes = opset >= 13 ? (opt(1).defined() ? to_ints(in[1]) : std::vector<std::int64_t>{}) : a.ints("split");
    const std::int64_t parts = node.output_size();
    if (sizes.empty()) {
      if (parts <= 0 || x.size(axis) % parts != 0)
        fail(node_label(node) + ": the axis of size " + std::to_string(x.size(axis)) + " does not split into " +
             std::to_string(parts) + " equal parts");
      sizes.assign(static_cast<std::size_t>(parts), x.size(axis) / parts);
    }
    return x.split(sizes, axis);
  }
  if (op == "CumSum") {
    Tensor x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    std::int64_t axis = arg(1).to(kInt64).reshape({-1}).select(0, 0).item<std::int64_t>();
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) fail(node_label(node) + ": input axis is out of range");
    const bool reverse = a.i("reverse", 0) != 0, exclusive = a.i("exclusive", 0) != 0;
    if (reverse) x = x.flip({axis});
    Tensor y = x.cumsum(axis);
    if (exclusive) y = y - x;
    if (reverse) y = y.flip({axis});
    return {y.dtype() == arg(0).dtype() ? y : y.to(arg(0).dtype())};
  }
  // ---- reductions ----
  if (op.rfind("Reduce", 0) == 0) {
    Tensor x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    const bool axes_input = opset >= 18 || (op == "ReduceSum" && opset >= 13);
    std::vector<std::int64_t> axes = axes_input ? (opt(1).defined() ? to_ints(in[1]) : std::vector<std::int64_t>{})
                                                : a.ints("axes");
    const bool keep = a.i("keepdims", 1) != 0;
    if (axes.empty()) {
      if (a.i("noop_with_empty_axes", 0)) return {x};
      for (std::int64_t d = 0; d < r; ++d) axes.push_back(d);
    }
    for (auto& d : axes) {
      if (d < 0) d += r;
      if (d < 0 || d >= r) fail(node_label(node) + ": an axis is out of range for rank " + std::to_string(r));
    }
    std::sort(axes.begin(), axes.end());
    if (op == "ReduceSum") return {x.sum(axes, keep)};
    if (op == "ReduceMean") return {x.mean(axes, keep)};
    if (op == "ReduceMax") return {x.amax(axes, keep)};
    if (op == "ReduceMin") return {x.amin(axes, keep)};
    if (op == "ReduceL1") return {x.abs().sum(axes, keep)};
    if (op == "ReduceL2") return {(x * x).sum(axes, keep).sqrt()};
    if (op == "ReduceSumSquare") return {(x * x).sum(axes, keep)};
    if (op == "ReduceLogSum") return {x.sum(axes, keep).log()};
    if (op == "ReduceLogSumExp") return {x.logsumexp(axes, keep)};
    if (op == "ReduceProd") {
      for (auto it = axes.rbegin(); it != axes.rend(); ++it) x = x.prod(*it, keep);
      return {x.dtype() == arg(0).dtype() ? x : x.to(arg(0).dtype())};
    }
  }
  if (op == "ArgMax" || op == "ArgMin") {
    Tensor x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    std::int64_t axis = a.i("axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) fail(node_label(node) + ": attribute axis is out of range");
    const bool keep = a.i("keepdims", 1) != 0, last = a.i("select_last_index", 0) != 0;
    // The first index of the extreme value; select_last_index: the last (the first of the flipped).
    if (last) x = x.flip({axis});
    Tensor idx = op == "ArgMax" ? x.argmax(axis, keep) : x.argmin(axis, keep);
    if (last) idx = (idx * -1) + (x.size(axis) - 1);
    return {idx};
  }
  // ---- indexing along an axis ----
  if (op == "GatherElements" || op == "ScatterElements" || op == "Scatter") {
    // out[i][j][k] = data[index[i][j][k]][j][k] along axis 0 (PyTorch's gather / scatter); negative
    // indices count from the end.
    const Tensor& data = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(data.shape().size());
    std::int64_t axis = a.i("axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) fail(node_label(node) + ": attribute axis is out of range for rank " + std::to_string(r));
    Tensor idx = arg(1).to(kInt64);
    idx = where(idx.lt(zeros_like(idx)), idx + data.size(axis), idx);
    if (op == "GatherElements") return {gather(data, axis, idx)};
    const std::string reduction = a.s("reduction", "none");
    if (reduction == "add") return {scatter_add(data, axis, idx, arg(2))};
    if (reduction != "none") fail(node_label(node) + ": attribute reduction " + reduction + " is not supported");
    return {scatter(data, axis, idx, arg(2))};
  }
  if (op == "Trilu") {
    const std::int64_t k = opt(1).defined() ? in[1].to(kInt64).reshape({-1}).select(0, 0).item<std::int64_t>() : 0;
    const std::int64_t kk = std::clamp<std::int64_t>(k, -(std::int64_t{1} << 40), std::int64_t{1} << 40);  // same result, no overflow
    return {a.i("upper", 1) ? triu(arg(0), kk) : tril(arg(0), kk)};
  }
  if (op == "TopK") {
    const Tensor& x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    std::int64_t axis = a.i("axis", -1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) fail(node_label(node) + ": attribute axis is out of range");
    const std::int64_t k = opset >= 10 ? arg(1).to(kInt64).reshape({-1}).select(0, 0).item<std::int64_t>() : a.i("k", 0);
    if (k < 0 || k > x.size(axis)) fail(node_label(node) + ": k = " + std::to_string(k) + " is out of range");
    auto [values, indices] = x.topk(k, axis, a.i("largest", 1) != 0, true);
    return {values, indices};
  }
  if (op == "Hardmax") {
    // 1 at the first largest element along axis (before opset 13: of the input flattened to 2-D at axis).
    const Tensor& x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    std::int64_t axis = a.i("axis", opset >= 13 ? -1 : 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) fail(node_label(node) + ": attribute axis is out of range");
    Tensor x2 = x;
    std::int64_t d = axis;
    if (opset < 13) {
      std::int64_t outer = 1, inner = 1;
      for (std::int64_t k = 0; k < r; ++k) (k < axis ? outer : inner) *= x.size(k);
      x2 = x.reshape({outer, inner});
      d = 1;
    }
    return {zeros_like(x2).scatter(d, x2.argmax(d, true), 1.0).reshape(x.shape())};
  }
  if (op == "DepthToSpace" || op == "SpaceToDepth") {
    // Moves blocks of b x b pixels between the channels and the spatial dims, by reshape and permute.
    const Tensor& x = arg(0);
    want_rank(node, x, 4, "input");
    const std::int64_t b = a.i("blocksize", 0), N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    if (b <= 0 || b > (1 << 15)) fail(node_label(node) + ": attribute blocksize is missing, not positive or huge");
    if (op == "SpaceToDepth") {
      if (H % b || W % b) fail(node_label(node) + ": the height and width must be multiples of blocksize");
      return {x.reshape({N, C, H / b, b, W / b, b}).permute({0, 3, 5, 1, 2, 4}).reshape({N, C * b * b, H / b, W / b})};
    }
    if (C % (b * b)) fail(node_label(node) + ": the channels must be a multiple of blocksize^2");
    const std::int64_t c = C / (b * b);
    if (a.s("mode", "DCR") == "DCR")
      return {x.reshape({N, b, b, c, H, W}).permute({0, 3, 4, 1, 5, 2}).reshape({N, c, H * b, W * b})};
    return {x.reshape({N, c, b, b, H, W}).permute({0, 1, 4, 2, 5, 3}).reshape({N, c, H * b, W * b})};  // CRD
  }
  if (op == "EyeLike") {
    const Tensor& x = arg(0);
    want_rank(node, x, 2, "input");
    const DType dt = a.find("dtype") ? dtype_of_onnx(node, a.i("dtype", 1)) : x.dtype();
    const std::int64_t k = a.i("k", 0), n = x.size(0), m = x.size(1);
    // ones on the k-th diagonal: the rows i with 0 <= i + k < m.
    Tensor y = zeros({n, m}, TensorOptions{.dtype = kFloat64});
    if (k > -n && k < m)  // else the diagonal misses the matrix (and i + k could overflow)
      for (std::int64_t i = std::max<std::int64_t>(0, -k); i < n && i + k < m; ++i) y.select(0, i).select(0, i + k).fill_(1.0);
    return {y.to(dt)};
  }
  if (op == "OneHot") {
    // indices [...] -> [..., depth] at axis (default -1): on_value where the index is, off_value elsewhere;
    // negative indices count from the end of depth.
    Tensor idx = arg(0).to(kInt64);
    const double depth_value = arg(1).to(kFloat64).reshape({-1}).select(0, 0).item<double>();
    if (!(depth_value >= 1 && depth_value <= double(1 << 24)))
      fail(node_label(node) + ": input depth " + std::to_string(depth_value) + " is out of range");
    const auto depth = static_cast<std::int64_t>(depth_value);
    if (depth <= 0 || depth > (1 << 24)) fail(node_label(node) + ": input depth " + std::to_string(depth) + " is out of range");
    const Tensor values = arg(2).reshape({-1});
    if (values.numel() != 2) fail(node_label(node) + ": input values must hold [off_value, on_value]");
    Shape out = idx.shape();
    out.push_back(depth);
    check_size(node, out);
    idx = where(idx.lt(zeros_like(idx)), idx + depth, idx);
    const std::int64_t r = static_cast<std::int64_t>(idx.shape().size()) + 1;
    std::int64_t axis = a.i("axis", -1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) fail(node_label(node) + ": attribute axis is out of range");
    Shape classes(static_cast<std::size_t>(r), 1);
    classes[static_cast<std::size_t>(axis)] = depth;
    const Tensor hit = idx.unsqueeze(axis).eq(arange(0, depth, 1, TensorOptions{.dtype = kInt64}).reshape(classes));
    return {where(hit, values.select(0, 1), values.select(0, 0))};
  }
  // ---- losses ----
  if (op == "NegativeLogLikelihoodLoss" || op == "SoftmaxCrossEntropyLoss") {
    // input [N, C, d...] (log-probabilities; SoftmaxCrossEntropyLoss: scores), target [N, d...];
    // loss = -input[n, target, d] * weight[target], 0 where target == ignore_index; reduction mean
    // divides by the sum of the weights taken.
    Tensor logp = op == "SoftmaxCrossEntropyLoss" ? F::log_softmax(arg(0), 1) : arg(0);
    const Tensor target = arg(1).to(kInt64);
    if (logp.shape().size() < 2) fail(node_label(node) + ": input must be [N, C, ...]");
    Tensor keep = ones(target.shape(), TensorOptions{.dtype = kBool});
    if (auto* ii = a.find("ignore_index")) keep = target.ne(full_like(target, ii->i()));
    const Tensor safe = where(keep, target, 0);
    const Tensor picked = logp.gather(1, safe.unsqueeze(1)).squeeze(1);  // [N, d...]
    Tensor w = keep.to(logp.dtype());
    const Tensor weight = opt(2);
    if (weight.defined()) w = w * index_select(weight, 0, safe.reshape({-1})).reshape(safe.shape());
    const Tensor loss = picked.neg() * w;
    const std::string reduction = a.s("reduction", "mean");
    Tensor out;
    if (reduction == "none") out = loss;
    else if (reduction == "sum") out = loss.sum();
    else if (reduction == "mean") out = loss.sum() / w.sum();
    else fail(node_label(node) + ": attribute reduction " + reduction + " is not supported");
    if (op == "SoftmaxCrossEntropyLoss") return {out, logp};
    return {out};
  }
  // ---- resampling (onnx_ops_resize.cpp) ----
  if (op == "Resize" || op == "Upsample") return run_resize(*this, node, in);
  if (op == "GlobalMaxPool") {
    const Tensor& x = arg(0);
    std::vector<std::int64_t> dims;
    for (std::int64_t d = 2; d < static_cast<std::int64_t>(x.shape().size()); ++d) dims.push_back(d);
    if (dims.empty()) fail(node_label(node) + ": input must be [N, C, d1, ...]");
    return {x.amax(dims, /*keepdim=*/true)};
  }
  if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow") {
    // y[n] = a0 - a1 cos(2 pi n / N') + a2 cos(4 pi n / N'), N' = size (periodic, the default) or size - 1.
    const double size_value = arg(0).to(kFloat64).reshape({-1}).select(0, 0).item<double>();
    if (!(size_value >= 0 && size_value <= double(1 << 24))) fail(node_label(node) + ": input size " + std::to_string(size_value) + " is out of range");
    const auto n = static_cast<std::int64_t>(size_value);
    const double denom = static_cast<double>(a.i("periodic", 1) ? n : n - 1);
    double a0 = 0.5, a1 = 0.5, a2 = 0;
    if (op == "HammingWindow") a0 = 25.0 / 46.0, a1 = 1 - a0;
    if (op == "BlackmanWindow") a0 = 0.42, a1 = 0.5, a2 = 0.08;
    const double pi = 3.14159265358979323846;
    std::vector<double> w(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const double t = denom > 0 ? 2 * pi * static_cast<double>(i) / denom : 0.0;  // a symmetric window of 1
      w[static_cast<std::size_t>(i)] = a0 - a1 * std::cos(t) + a2 * std::cos(2 * t);
    }
    return {kindling::tensor(w, {n}).to(dtype_of_onnx(node, a.i("output_datatype", pb::TensorProto::FLOAT)))};
  }
  // ---- normalisation ----
  if (op == "LayerNormalization") {
    // Normalised over the dims from axis on; outputs Y, and optionally Mean and InvStdDev (their
    // reduced dims kept as 1).
    const Tensor& x = arg(0);
    const std::int64_t r = static_cast<std::int64_t>(x.shape().size());
    std::int64_t axis = a.i("axis", -1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) fail(node_label(node) + ": attribute axis is out of range");
    std::vector<std::int64_t> dims;
    for (std::int64_t d = axis; d < r; ++d) dims.push_back(d);
    const Tensor mean = x.mean(dims, true);
    const Tensor centred = x - mean;
    const Tensor inv_std = ((centred * centred).mean(dims, true) + a.f("epsilon", 1e-5f)).sqrt().reciprocal();
    Tensor y = centred * inv_std * arg(1);
    if (opt(2).defined()) y = y + in[2];
    return {y, mean, inv_std};
  }
  fail(node_label(node) + ": op_type is not supported");
}

}  // namespace kindling::onnx
