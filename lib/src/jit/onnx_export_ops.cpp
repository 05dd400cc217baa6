// What each traced op and each layer becomes in ONNX (the exporter's tables; onnx_export.hpp).
//
// Ops: chapter 1's record<"key">(out, args...) calls, read with the argument types the op recorded
// (a mismatch is an error naming both signatures, never a misread). Layers: one ONNX node (or a few)
// per nn::Module the table knows, built from the module's own fields.
#include <cmath>
#include <functional>
#include <numbers>
#include <unordered_map>

#include "kindling/nn.hpp"
#include "onnx_export.hpp"

namespace kindling::onnx::detail {
namespace {

using kindling::detail::RecordedOp;

[[noreturn]] void fail(const std::string& what) { throw Error("onnx export: " + what); }

/// `t` as an operand of dtype `dt`: ONNX's elementwise ops take one type where Kindling promotes (a
/// float32 tensor times a float64 0-d constant is float32). A constant is stored in `dt`; a traced
/// value of another dtype gets a Cast.
std::string operand(GraphBuilder& g, const Tensor& t, DType dt, const std::string& who) {
  if (!g.traced(t) && !g.state_names.count(t.impl()) && !t.requires_grad() && t.dtype() != dt) {
    return g.constant(t.detach().to(dt), g.fresh("const"));
  }
  const std::string v = g.value(t, who);
  if (t.dtype() == dt) return v;
  const std::string c = g.fresh(v + "_cast");
  set_attr(g.node("Cast", {v}, {c}, who), "to", std::int64_t{onnx_dtype(dt)});
  return c;
}

std::vector<std::int64_t> shape_vec(const Tensor& t) { return {t.shape().begin(), t.shape().end()}; }

/// A Reshape to `out`'s shape that keeps dimension 0 symbolic where it can: ONNX's 0 copies the
/// input's size, right whenever the traced sizes of dimension 0 agree (batch in, batch out).
void reshape(GraphBuilder& g, const Tensor& out, const std::string& x, const Tensor& xt, const std::string& who) {
  std::vector<std::int64_t> s = shape_vec(out);
  if (!s.empty() && xt.dim() > 0 && s[0] == xt.size(0) && s[0] != 0) s[0] = 0;
  g.node("Reshape", {x, g.ints(s, "shape")}, {g.output(out, who)}, who);
}

// ---- the op table ----------------------------------------------------------------------------------

using OpFn = std::function<void(GraphBuilder&, const RecordedOp&)>;

/// A row that reads the op's arguments as A...: fn(g, out, key, args...).
template <class... A, class Fn>
OpFn typed(Fn fn) {
  return [fn](GraphBuilder& g, const RecordedOp& op) {
    using Sig = kindling::detail::Signature<A...>;
    if (op.signature != kindling::detail::type_id<Sig>()) {
      fail("op '" + std::string(op.key) + "' recorded its arguments as (" + std::string(op.signature_name) +
           ") but the exporter reads (" + std::string(kindling::detail::type_name_v<Sig>) + ")");
    }
    const auto& args = *static_cast<const std::tuple<const A&...>*>(op.args);
    std::apply([&](const A&... a) { fn(g, op.outputs[0], std::string(op.key), a...); }, args);
  };
}

OpFn unary(const char* onnx_op) {
  return typed<Tensor>([onnx_op](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x) {
    g.node(onnx_op, {operand(g, x, out.dtype(), k)}, {g.output(out, k)}, k);
  });
}

OpFn binary(const char* onnx_op) {
  return typed<Tensor, Tensor>(
      [onnx_op](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& a, const Tensor& b) {
        g.node(onnx_op, {operand(g, a, out.dtype(), k), operand(g, b, out.dtype(), k)}, {g.output(out, k)}, k);
      });
}

/// add / sub: a ± alpha·b.
OpFn binary_alpha(const char* onnx_op) {
  return typed<Tensor, Tensor, Scalar>([onnx_op](GraphBuilder& g, const Tensor& out, const std::string& k,
                                                 const Tensor& a, const Tensor& b, const Scalar& alpha) {
    std::string bv = operand(g, b, out.dtype(), k);
    if (alpha.to_double() != 1.0) {
      const std::string scaled = g.fresh(k + "_alpha");
      g.node("Mul", {bv, g.scalar(alpha.to_double(), out.dtype(), "alpha")}, {scaled}, k);
      bv = scaled;
    }
    g.node(onnx_op, {operand(g, a, out.dtype(), k), bv}, {g.output(out, k)}, k);
  });
}

OpFn view_like() {
  return typed<Tensor, IntArrayRef>(
      [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x, const IntArrayRef&) {
        reshape(g, out, g.value(x, k), x, k);
      });
}

OpFn identity() {
  return typed<Tensor>([](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x) {
    g.node("Identity", {g.value(x, k)}, {g.output(out, k)}, k);
  });
}

template <bool Log>
OpFn softmax() {
  return typed<Tensor, std::int64_t>(
      [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x, const std::int64_t& dim) {
        set_attr(g.node(Log ? "LogSoftmax" : "Softmax", {g.value(x, k)}, {g.output(out, k)}, k), "axis", dim);
      });
}

void reduce(GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x, std::vector<std::int64_t> axes,
            bool keepdim, bool mean) {
  if (axes.empty())
    for (std::int64_t i = 0; i < x.dim(); ++i) axes.push_back(i);
  if (mean) {  // ReduceMean's axes are an attribute until opset 18
    auto& n = g.node("ReduceMean", {operand(g, x, out.dtype(), k)}, {g.output(out, k)}, k);
    set_attr(n, "axes", axes);
    set_attr(n, "keepdims", std::int64_t{keepdim});
  } else {
    auto& n = g.node("ReduceSum", {operand(g, x, out.dtype(), k), g.ints(axes, "axes")}, {g.output(out, k)}, k);
    set_attr(n, "keepdims", std::int64_t{keepdim});
  }
}

const std::unordered_map<std::string, OpFn>& op_table() {
  static const std::unordered_map<std::string, OpFn> table = [] {
    std::unordered_map<std::string, OpFn> t;
    using I = std::int64_t;
    t["add"] = binary_alpha("Add");
    t["sub"] = binary_alpha("Sub");
    t["mul"] = binary("Mul");
    t["div"] = binary("Div");
    t["maximum"] = binary("Max");
    t["minimum"] = binary("Min");
    t["mm"] = binary("MatMul");
    t["bmm"] = binary("MatMul");
    t["mv"] = binary("MatMul");
    t["dot"] = binary("MatMul");
    for (const auto& [key, onnx_op] : std::vector<std::pair<const char*, const char*>>{
             {"relu", "Relu"}, {"exp", "Exp"}, {"log", "Log"}, {"tanh", "Tanh"}, {"sigmoid", "Sigmoid"},
             {"sqrt", "Sqrt"}, {"neg", "Neg"}, {"abs", "Abs"}, {"reciprocal", "Reciprocal"}, {"sin", "Sin"},
             {"cos", "Cos"}, {"erf", "Erf"}, {"floor", "Floor"}, {"ceil", "Ceil"}, {"sign", "Sign"}}) {
      t[key] = unary(onnx_op);
    }
    t["addmm"] = typed<Tensor, Tensor, Tensor, Scalar, Scalar>(
        [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& bias, const Tensor& a,
           const Tensor& b, const Scalar& beta, const Scalar& alpha) {
          auto& n = g.node("Gemm", {operand(g, a, out.dtype(), k), operand(g, b, out.dtype(), k),
                                    operand(g, bias, out.dtype(), k)},
                           {g.output(out, k)}, k);
          set_attr(n, "alpha", static_cast<float>(alpha.to_double()));
          set_attr(n, "beta", static_cast<float>(beta.to_double()));
        });
    t["view"] = view_like();
    t["reshape_alias"] = view_like();
    t["unsafe_view"] = view_like();
    t["clone"] = identity();
    t["alias"] = identity();
    t["to_dtype"] = typed<Tensor>([](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x) {
      set_attr(g.node("Cast", {g.value(x, k)}, {g.output(out, k)}, k), "to", std::int64_t{onnx_dtype(out.dtype())});
    });
    t["t"] = typed<Tensor>([](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x) {
      if (x.dim() < 2) return (void)g.node("Identity", {g.value(x, k)}, {g.output(out, k)}, k);
      set_attr(g.node("Transpose", {g.value(x, k)}, {g.output(out, k)}, k), "perm", std::vector<I>{1, 0});
    });
    t["transpose"] = typed<Tensor, I, I>(
        [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x, const I& d0, const I& d1) {
          std::vector<I> perm;
          for (I i = 0; i < x.dim(); ++i) perm.push_back(i);
          std::swap(perm[static_cast<std::size_t>(d0)], perm[static_cast<std::size_t>(d1)]);
          set_attr(g.node("Transpose", {g.value(x, k)}, {g.output(out, k)}, k), "perm", perm);
        });
    t["permute"] = typed<Tensor, IntArrayRef>(
        [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x, const IntArrayRef& dims) {
          set_attr(g.node("Transpose", {g.value(x, k)}, {g.output(out, k)}, k), "perm",
                   std::vector<I>(dims.begin(), dims.end()));
        });
    t["unsqueeze"] = typed<Tensor, I>(
        [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x, const I& d) {
          g.node("Unsqueeze", {g.value(x, k), g.ints({d}, "axes")}, {g.output(out, k)}, k);
        });
    t["squeeze_dim"] = typed<Tensor, I>(
        [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x, const I& d) {
          if (x.size(d) != 1) return (void)g.node("Identity", {g.value(x, k)}, {g.output(out, k)}, k);
          g.node("Squeeze", {g.value(x, k), g.ints({d}, "axes")}, {g.output(out, k)}, k);
        });
    t["squeeze"] = typed<Tensor>([](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x) {
      std::vector<I> axes;  // the dims of size 1 in this trace, named: a batch of 1 stays a batch
      for (I i = 0; i < x.dim(); ++i)
        if (x.size(i) == 1) axes.push_back(i);
      g.node("Squeeze", {g.value(x, k), g.ints(axes, "axes")}, {g.output(out, k)}, k);
    });
    t["softmax"] = softmax<false>();
    t["log_softmax"] = softmax<true>();
    t["sum"] = typed<Tensor>([](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x) {
      reduce(g, out, k, x, {}, false, false);
    });
    t["mean"] = typed<Tensor>([](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x) {
      reduce(g, out, k, x, {}, false, true);
    });
    t["sum_dim"] = typed<Tensor, IntArrayRef, bool>([](GraphBuilder& g, const Tensor& out, const std::string& k,
                                                       const Tensor& x, const IntArrayRef& dims, const bool& keep) {
      reduce(g, out, k, x, {dims.begin(), dims.end()}, keep, false);
    });
    t["mean_dim"] = typed<Tensor, IntArrayRef, bool>([](GraphBuilder& g, const Tensor& out, const std::string& k,
                                                        const Tensor& x, const IntArrayRef& dims, const bool& keep) {
      reduce(g, out, k, x, {dims.begin(), dims.end()}, keep, true);
    });
    t["cat"] = typed<std::vector<Tensor>, I>([](GraphBuilder& g, const Tensor& out, const std::string& k,
                                                const std::vector<Tensor>& xs, const I& d) {
      std::vector<std::string> in;
      for (const Tensor& x : xs)
        if (x.numel() > 0 || x.dim() == out.dim()) in.push_back(operand(g, x, out.dtype(), k));
      set_attr(g.node("Concat", in, {g.output(out, k)}, k), "axis", d);
    });
    t["pow_scalar"] = typed<Tensor, Scalar>(
        [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x, const Scalar& e) {
          g.node("Pow", {operand(g, x, out.dtype(), k), g.scalar(e.to_double(), out.dtype(), "exponent")},
                 {g.output(out, k)}, k);
        });
    t["clamp"] = typed<Tensor, std::optional<Scalar>, std::optional<Scalar>>(
        [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x,
           const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
          std::vector<std::string> in{operand(g, x, out.dtype(), k)};
          in.push_back(lo ? g.scalar(lo->to_double(), out.dtype(), "min") : std::string());
          if (hi) in.push_back(g.scalar(hi->to_double(), out.dtype(), "max"));
          g.node("Clip", in, {g.output(out, k)}, k);
        });
    t["where"] = typed<Tensor, Tensor, Tensor>([](GraphBuilder& g, const Tensor& out, const std::string& k,
                                                  const Tensor& c, const Tensor& a, const Tensor& b) {
      g.node("Where", {operand(g, c, kBool, k), operand(g, a, out.dtype(), k), operand(g, b, out.dtype(), k)},
             {g.output(out, k)}, k);
    });
    t["slice"] = typed<Tensor, I, I, I, I>([](GraphBuilder& g, const Tensor& out, const std::string& k,
                                             const Tensor& x, const I& d, const I& start, const I& stop,
                                             const I& step) {
      g.node("Slice",
             {g.value(x, k), g.ints({start}, "starts"), g.ints({stop}, "ends"), g.ints({d}, "axes"),
              g.ints({step}, "steps")},
             {g.output(out, k)}, k);
    });
    t["select"] = typed<Tensor, I, I>(
        [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x, const I& d, const I& i) {
          const std::string index = g.constant(scalar_tensor(i, TensorOptions{.dtype = kInt64}), g.fresh("index"));
          set_attr(g.node("Gather", {g.value(x, k), index}, {g.output(out, k)}, k), "axis", d);
        });
    t["expand"] = typed<Tensor, IntArrayRef>(
        [](GraphBuilder& g, const Tensor& out, const std::string& k, const Tensor& x, const IntArrayRef&) {
          // 1 where x already has out's size (aligned from the right): Expand broadcasts, so that
          // dimension follows x (a dynamic batch stays dynamic).
          std::vector<I> s = shape_vec(out);
          const I lead = out.dim() - x.dim();
          for (I i = 0; i < x.dim(); ++i)
            if (x.size(i) == s[static_cast<std::size_t>(lead + i)]) s[static_cast<std::size_t>(lead + i)] = 1;
          g.node("Expand", {g.value(x, k), g.ints(s, "shape")}, {g.output(out, k)}, k);
        });
    return t;
  }();
  return table;
}

// ---- the layer table -------------------------------------------------------------------------------

void adaptive_avg_pool_nodes(GraphBuilder& g, const std::string& p, const Tensor& in, const Tensor& out);
void silu_nodes(GraphBuilder& g, const std::string& q, const Tensor& in, const Tensor& out);

std::vector<std::int64_t> pads2(std::int64_t h, std::int64_t w) { return {h, w, h, w}; }

void linear(GraphBuilder& g, nn::Module& m, const std::string& p, const Tensor& in, const Tensor& out) {
  auto& l = dynamic_cast<nn::Linear&>(m);
  const std::string x = operand(g, in, out.dtype(), p), w = operand(g, l.weight, out.dtype(), p);
  if (in.dim() == 2) {  // y = x Wᵀ + b: one Gemm, as PyTorch exports it
    std::vector<std::string> ins{x, w};
    if (l.bias.defined()) ins.push_back(operand(g, l.bias, out.dtype(), p));
    set_attr(g.node("Gemm", ins, {g.output(out, p)}, p), "transB", std::int64_t{1});
    return;
  }
  const std::string wt = g.fresh(p + ".weight_t");  // x [..., in] → MatMul with Wᵀ [in, out]
  set_attr(g.node("Transpose", {w}, {wt}, p), "perm", std::vector<std::int64_t>{1, 0});
  if (!l.bias.defined()) return (void)g.node("MatMul", {x, wt}, {g.output(out, p)}, p);
  const std::string xw = g.fresh(p + ".matmul");
  g.node("MatMul", {x, wt}, {xw}, p);
  g.node("Add", {xw, operand(g, l.bias, out.dtype(), p)}, {g.output(out, p)}, p);
}

void conv2d(GraphBuilder& g, nn::Module& m, const std::string& p, const Tensor& in, const Tensor& out) {
  auto& c = dynamic_cast<nn::Conv2d&>(m);
  const auto& o = c.options;
  std::vector<std::int64_t> pads = pads2(o.padding.size.h, o.padding.size.w);
  if (o.padding.is_mode()) {
    pads = {0, 0, 0, 0};
    if (o.padding.mode == "same") {  // PyTorch puts the odd row / column at the end
      const std::int64_t th = o.dilation.h * (c.kernel_size.h - 1), tw = o.dilation.w * (c.kernel_size.w - 1);
      pads = {th / 2, tw / 2, th - th / 2, tw - tw / 2};
    }
  }
  std::vector<std::string> ins{operand(g, in, out.dtype(), p), operand(g, c.weight, out.dtype(), p)};
  if (c.bias.defined()) ins.push_back(operand(g, c.bias, out.dtype(), p));
  auto& n = g.node("Conv", ins, {g.output(out, p)}, p);
  set_attr(n, "kernel_shape", std::vector<std::int64_t>{c.kernel_size.h, c.kernel_size.w});
  set_attr(n, "strides", std::vector<std::int64_t>{o.stride.h, o.stride.w});
  set_attr(n, "pads", pads);
  set_attr(n, "dilations", std::vector<std::int64_t>{o.dilation.h, o.dilation.w});
  set_attr(n, "group", o.groups);
}

void conv1d(GraphBuilder& g, nn::Module& m, const std::string& p, const Tensor& in, const Tensor& out) {
  auto& c = dynamic_cast<nn::Conv1d&>(m);
  const auto& o = c.options;
  std::vector<std::int64_t> pads{o.padding.size.h, o.padding.size.h};
  if (o.padding.is_mode()) {
    const std::int64_t total = o.padding.mode == "same" ? o.dilation * (c.kernel_size - 1) : 0;
    pads = {total / 2, total - total / 2};
  }
  std::vector<std::string> ins{operand(g, in, out.dtype(), p), operand(g, c.weight, out.dtype(), p)};
  if (c.bias.defined()) ins.push_back(operand(g, c.bias, out.dtype(), p));
  auto& n = g.node("Conv", ins, {g.output(out, p)}, p);
  set_attr(n, "kernel_shape", std::vector<std::int64_t>{c.kernel_size});
  set_attr(n, "strides", std::vector<std::int64_t>{o.stride});
  set_attr(n, "pads", pads);
  set_attr(n, "dilations", std::vector<std::int64_t>{o.dilation});
  set_attr(n, "group", o.groups);
}

void conv_transpose2d(GraphBuilder& g, nn::Module& m, const std::string& p, const Tensor& in, const Tensor& out) {
  auto& c = dynamic_cast<nn::ConvTranspose2d&>(m);
  const auto& o = c.options;
  std::vector<std::string> ins{operand(g, in, out.dtype(), p), operand(g, c.weight, out.dtype(), p)};
  if (c.bias.defined()) ins.push_back(operand(g, c.bias, out.dtype(), p));
  auto& n = g.node("ConvTranspose", ins, {g.output(out, p)}, p);
  set_attr(n, "kernel_shape", std::vector<std::int64_t>{c.kernel_size.h, c.kernel_size.w});
  set_attr(n, "strides", std::vector<std::int64_t>{o.stride.h, o.stride.w});
  set_attr(n, "pads", pads2(o.padding.h, o.padding.w));
  set_attr(n, "output_padding", std::vector<std::int64_t>{o.output_padding.h, o.output_padding.w});
  set_attr(n, "dilations", std::vector<std::int64_t>{o.dilation.h, o.dilation.w});
  set_attr(n, "group", o.groups);
}

void batch_norm(GraphBuilder& g, nn::Module& m, const std::string& p, const Tensor& in, const Tensor& out) {
  auto& b = dynamic_cast<nn::BatchNorm&>(m);
  if (!b.running_mean.defined()) {
    fail(p + " (" + m.type_name() + ") keeps no running statistics (track_running_stats=false), so in eval() it "
         "normalises with each batch's own: ONNX's BatchNormalization needs the statistics. Hint: export a model "
         "trained with track_running_stats=true.");
  }
  const DType dt = out.dtype();
  auto param = [&](const Tensor& t, double fill, const std::string& name) {
    return t.defined() ? operand(g, t, dt, p) : g.constant(full(Shape{b.num_features}, fill, TensorOptions{.dtype = dt}), g.fresh(p + name));
  };
  auto& n = g.node("BatchNormalization",
                   {operand(g, in, dt, p), param(b.weight, 1.0, ".weight"), param(b.bias, 0.0, ".bias"),
                    operand(g, b.running_mean, dt, p), operand(g, b.running_var, dt, p)},
                   {g.output(out, p)}, p);
  set_attr(n, "epsilon", static_cast<float>(b.options.eps));
}

void layer_norm(GraphBuilder& g, nn::Module& m, const std::string& p, const Tensor& in, const Tensor& out) {
  auto& l = dynamic_cast<nn::LayerNorm&>(m);
  if (g.opset() < 17) fail(p + " (LayerNorm) needs opset 17 (LayerNormalization). Hint: ExportOptions{.opset = 17}.");
  const DType dt = out.dtype();
  const Shape& ns = l.normalized_shape;
  auto param = [&](const Tensor& t, double fill, const std::string& name) {
    return t.defined() ? operand(g, t, dt, p) : g.constant(full(ns, fill, TensorOptions{.dtype = dt}), g.fresh(p + name));
  };
  auto& n = g.node("LayerNormalization",
                   {operand(g, in, dt, p), param(l.weight, 1.0, ".weight"), param(l.bias, 0.0, ".bias")},
                   {g.output(out, p)}, p);
  set_attr(n, "axis", -static_cast<std::int64_t>(ns.size()));
  set_attr(n, "epsilon", static_cast<float>(l.options.eps));
}

void max_pool(GraphBuilder& g, nn::Module& m, const std::string& p, const Tensor& in, const Tensor& out) {
  auto& mp = dynamic_cast<nn::MaxPool2d&>(m);
  const auto& o = mp.options;
  const auto stride = o.stride.value_or(mp.kernel_size);
  auto& n = g.node("MaxPool", {g.value(in, p)}, {g.output(out, p)}, p);
  set_attr(n, "kernel_shape", std::vector<std::int64_t>{mp.kernel_size.h, mp.kernel_size.w});
  set_attr(n, "strides", std::vector<std::int64_t>{stride.h, stride.w});
  set_attr(n, "pads", pads2(o.padding.h, o.padding.w));
  set_attr(n, "dilations", std::vector<std::int64_t>{o.dilation.h, o.dilation.w});
  set_attr(n, "ceil_mode", std::int64_t{o.ceil_mode});
}

void avg_pool(GraphBuilder& g, nn::Module& m, const std::string& p, const Tensor& in, const Tensor& out) {
  auto& ap = dynamic_cast<nn::AvgPool2d&>(m);
  const auto& o = ap.options;
  if (o.ceil_mode) fail(p + " (AvgPool2d): ceil_mode=true is not exported (PyTorch and ONNX count its last window differently)");
  const auto stride = o.stride.value_or(ap.kernel_size);
  auto& n = g.node("AveragePool", {g.value(in, p)}, {g.output(out, p)}, p);
  set_attr(n, "kernel_shape", std::vector<std::int64_t>{ap.kernel_size.h, ap.kernel_size.w});
  set_attr(n, "strides", std::vector<std::int64_t>{stride.h, stride.w});
  set_attr(n, "pads", pads2(o.padding.h, o.padding.w));
  set_attr(n, "count_include_pad", std::int64_t{o.count_include_pad});
}

void adaptive_avg_pool(GraphBuilder& g, nn::Module&, const std::string& p, const Tensor& in, const Tensor& out) {
  adaptive_avg_pool_nodes(g, p, in, out);
}

void simple(GraphBuilder& g, const char* op, const std::string& p, const Tensor& in, const Tensor& out) {
  g.node(op, {g.value(in, p)}, {g.output(out, p)}, p);
}

void gelu_nodes(GraphBuilder& g, const std::string& p, const Tensor& in, const Tensor& out, bool tanh_form) {
  // ONNX has Gelu only from opset 20: written out, as torch.onnx.export writes it.
  const DType dt = out.dtype();
  const std::string x = operand(g, in, dt, p);
  auto step = [&](const char* op, const std::string& a, const std::string& b) {
    const std::string o = g.fresh(p + "." + op);
    g.node(op, b.empty() ? std::vector<std::string>{a} : std::vector<std::string>{a, b}, {o}, p);
    return o;
  };
  std::string inner;
  if (tanh_form) {  // tanh(√(2/π) (x + 0.044715 x³))
    const std::string cube = step("Pow", x, g.scalar(3.0, dt, "three"));
    const std::string sum = step("Add", x, step("Mul", cube, g.scalar(0.044715, dt, "c")));
    inner = step("Tanh", step("Mul", sum, g.scalar(std::sqrt(2.0 / std::numbers::pi), dt, "k")), "");
  } else {  // erf(x / √2)
    inner = step("Erf", step("Div", x, g.scalar(std::numbers::sqrt2, dt, "sqrt2")), "");
  }
  const std::string half_x = step("Mul", x, g.scalar(0.5, dt, "half"));
  g.node("Mul", {half_x, step("Add", inner, g.scalar(1.0, dt, "one"))}, {g.output(out, p)}, p);
}

void gelu(GraphBuilder& g, nn::Module& m, const std::string& p, const Tensor& in, const Tensor& out) {
  gelu_nodes(g, p, in, out, dynamic_cast<nn::GELU&>(m).approximate == "tanh");
}

void silu_nodes(GraphBuilder& g, const std::string& q, const Tensor& in, const Tensor& out) {
  const std::string x = g.value(in, q), s = g.fresh(q + ".sigmoid");
  g.node("Sigmoid", {x}, {s}, q);
  g.node("Mul", {x, s}, {g.output(out, q)}, q);
}

void adaptive_avg_pool_nodes(GraphBuilder& g, const std::string& p, const Tensor& in, const Tensor& out) {
  const std::int64_t h = in.size(-2), w = in.size(-1), oh = out.size(-2), ow = out.size(-1);
  if (oh == 1 && ow == 1) return (void)g.node("GlobalAveragePool", {g.value(in, p)}, {g.output(out, p)}, p);
  if (h % oh != 0 || w % ow != 0) {
    fail(p + ": adaptive average pooling to " + std::to_string(oh) + "x" + std::to_string(ow) + " from " +
         std::to_string(h) + "x" + std::to_string(w) + " has windows of different sizes, which ONNX's "
         "AveragePool cannot express. Hint: an input whose size the output divides.");
  }
  auto& n = g.node("AveragePool", {g.value(in, p)}, {g.output(out, p)}, p);
  set_attr(n, "kernel_shape", std::vector<std::int64_t>{h / oh, w / ow});
  set_attr(n, "strides", std::vector<std::int64_t>{h / oh, w / ow});
}

void flatten(GraphBuilder& g, nn::Module& m, const std::string& p, const Tensor& in, const Tensor& out) {
  auto& f = dynamic_cast<nn::Flatten&>(m);
  const std::int64_t end = f.end_dim < 0 ? f.end_dim + in.dim() : f.end_dim;
  if (f.start_dim == 1 && end == in.dim() - 1 && in.dim() >= 2) {
    set_attr(g.node("Flatten", {g.value(in, p)}, {g.output(out, p)}, p), "axis", std::int64_t{1});
  } else {
    reshape(g, out, g.value(in, p), in, p);
  }
}

void pass_through(GraphBuilder& g, nn::Module&, const std::string& p, const Tensor& in, const Tensor& out) {
  if (!g.traced(out)) g.node("Identity", {g.value(in, p)}, {g.output(out, p)}, p);
}

}  // namespace

void export_op(GraphBuilder& g, const RecordedOp& op) {
  const auto& table = op_table();
  auto it = table.find(op.key);
  if (it == table.end()) {
    fail("op '" + std::string(op.key) + "' (" + op.describe(op.args) + ") has no ONNX mapping yet. Hint: the "
         "mapped ops are listed in lib/src/jit/onnx_export_ops.cpp; a layer the exporter knows is exported whole.");
  }
  if (op.num_outputs != 1) fail("op '" + std::string(op.key) + "' has several outputs: not exported");
  it->second(g, op);
}

void export_function(GraphBuilder& g, const autograd::FunctionCall& call) {
  const std::string name = call.name;
  const Tensor& x = call.tensor_inputs.empty() ? call.output : call.tensor_inputs[0];
  const Tensor& out = call.output;
  auto args = [&]<class... A>() -> const std::tuple<const A&...>& {
    using Sig = kindling::detail::Signature<A...>;
    if (call.signature != kindling::detail::type_id<Sig>()) {
      fail(name + " was called with (" + std::string(call.signature_name) + ") but the exporter reads (" +
           std::string(kindling::detail::type_name_v<Sig>) + ")");
    }
    return *static_cast<const std::tuple<const A&...>*>(call.args);
  };
  const std::string p = g.fresh(name.substr(0, name.find("Backward")));
  if (name == "AdaptiveAvgPool2DBackward0") return adaptive_avg_pool_nodes(g, p, x, out);
  if (name == "SiluBackward0") return silu_nodes(g, p, x, out);
  if (name == "GeluBackward0") return gelu_nodes(g, p, x, out, std::get<1>(args.template operator()<Tensor, bool>()));
  if (name == "LeakyReluBackward0") {
    const double slope = std::get<1>(args.template operator()<Tensor, double>());
    return set_attr(g.node("LeakyRelu", {g.value(x, p)}, {g.output(out, p)}, p), "alpha", static_cast<float>(slope));
  }
  if (name == "EluBackward0") {
    const double alpha = std::get<1>(args.template operator()<Tensor, double>());
    return set_attr(g.node("Elu", {g.value(x, p)}, {g.output(out, p)}, p), "alpha", static_cast<float>(alpha));
  }
  fail("the functional call behind " + name + " (input " + shape_str(x.shape()) + ") has no ONNX mapping. Hint: "
       "call the layer as a module (nn::Conv2d, nn::MaxPool2d, nn::BatchNorm2d, ...): the exporter reads a "
       "module's settings from its fields.");
}

LayerExport layer_export(const nn::Module& m) {
  const nn::Module* p = &m;
  if (dynamic_cast<const nn::Linear*>(p)) return &linear;
  if (dynamic_cast<const nn::Conv2d*>(p)) return &conv2d;
  if (dynamic_cast<const nn::Conv1d*>(p)) return &conv1d;
  if (dynamic_cast<const nn::ConvTranspose2d*>(p)) return &conv_transpose2d;
  if (dynamic_cast<const nn::BatchNorm*>(p)) return &batch_norm;
  if (dynamic_cast<const nn::LayerNorm*>(p)) return &layer_norm;
  if (dynamic_cast<const nn::MaxPool2d*>(p)) return &max_pool;
  if (dynamic_cast<const nn::AvgPool2d*>(p)) return &avg_pool;
  if (dynamic_cast<const nn::AdaptiveAvgPool2d*>(p)) return &adaptive_avg_pool;
  if (dynamic_cast<const nn::GELU*>(p)) return &gelu;
  if (dynamic_cast<const nn::Flatten*>(p)) return &flatten;
  if (dynamic_cast<const nn::Dropout*>(p) || dynamic_cast<const nn::Identity*>(p)) return &pass_through;
  if (dynamic_cast<const nn::ReLU*>(p))
    return [](GraphBuilder& g, nn::Module&, const std::string& q, const Tensor& in, const Tensor& out) {
      simple(g, "Relu", q, in, out);
    };
  if (dynamic_cast<const nn::Sigmoid*>(p))
    return [](GraphBuilder& g, nn::Module&, const std::string& q, const Tensor& in, const Tensor& out) {
      simple(g, "Sigmoid", q, in, out);
    };
  if (dynamic_cast<const nn::Tanh*>(p))
    return [](GraphBuilder& g, nn::Module&, const std::string& q, const Tensor& in, const Tensor& out) {
      simple(g, "Tanh", q, in, out);
    };
  if (dynamic_cast<const nn::SiLU*>(p))
    return [](GraphBuilder& g, nn::Module&, const std::string& q, const Tensor& in, const Tensor& out) {
      silu_nodes(g, q, in, out);
    };
  if (dynamic_cast<const nn::Hardswish*>(p))
    return [](GraphBuilder& g, nn::Module&, const std::string& q, const Tensor& in, const Tensor& out) {
      if (g.opset() < 14) fail(q + " (Hardswish) needs opset 14 (HardSwish)");
      simple(g, "HardSwish", q, in, out);
    };
  if (dynamic_cast<const nn::ReLU6*>(p))
    return [](GraphBuilder& g, nn::Module&, const std::string& q, const Tensor& in, const Tensor& out) {
      g.node("Clip", {g.value(in, q), g.scalar(0.0, out.dtype(), "zero"), g.scalar(6.0, out.dtype(), "six")},
             {g.output(out, q)}, q);
    };
  if (dynamic_cast<const nn::LeakyReLU*>(p))
    return [](GraphBuilder& g, nn::Module& mod, const std::string& q, const Tensor& in, const Tensor& out) {
      set_attr(g.node("LeakyRelu", {g.value(in, q)}, {g.output(out, q)}, q), "alpha",
               static_cast<float>(dynamic_cast<nn::LeakyReLU&>(mod).negative_slope));
    };
  if (dynamic_cast<const nn::ELU*>(p))
    return [](GraphBuilder& g, nn::Module& mod, const std::string& q, const Tensor& in, const Tensor& out) {
      set_attr(g.node("Elu", {g.value(in, q)}, {g.output(out, q)}, q), "alpha",
               static_cast<float>(dynamic_cast<nn::ELU&>(mod).alpha));
    };
  if (dynamic_cast<const nn::Softmax*>(p))
    return [](GraphBuilder& g, nn::Module& mod, const std::string& q, const Tensor& in, const Tensor& out) {
      set_attr(g.node("Softmax", {g.value(in, q)}, {g.output(out, q)}, q), "axis", dynamic_cast<nn::Softmax&>(mod).dim);
    };
  if (dynamic_cast<const nn::LogSoftmax*>(p))
    return [](GraphBuilder& g, nn::Module& mod, const std::string& q, const Tensor& in, const Tensor& out) {
      set_attr(g.node("LogSoftmax", {g.value(in, q)}, {g.output(out, q)}, q), "axis",
               dynamic_cast<nn::LogSoftmax&>(mod).dim);
    };
  if (dynamic_cast<const nn::Embedding*>(p))
    return [](GraphBuilder& g, nn::Module& mod, const std::string& q, const Tensor& in, const Tensor& out) {
      auto& e = dynamic_cast<nn::Embedding&>(mod);
      set_attr(g.node("Gather", {g.value(e.weight, q), operand(g, in, kInt64, q)}, {g.output(out, q)}, q), "axis",
               std::int64_t{0});
    };
  return nullptr;
}

}  // namespace kindling::onnx::detail
