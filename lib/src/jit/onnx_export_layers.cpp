// What each layer, and each functional call the trace sees, becomes in ONNX (the exporter's layer
// table; onnx_export.hpp): one ONNX node (or a few) per nn::Module the table knows, built from the
// module's own fields, so that the ops inside its forward need no tracing.
#include <cmath>
#include <numbers>

#include "kindling/nn.hpp"
#include "onnx_export.hpp"

namespace kindling::onnx::detail {
namespace {

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
    export_fail(p + " (" + m.type_name() + ") keeps no running statistics (track_running_stats=false), so in eval() it "
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
  if (g.opset() < 17) export_fail(p + " (LayerNorm) needs opset 17 (LayerNormalization). Hint: ExportOptions{.opset = 17}.");
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
  if (o.ceil_mode) export_fail(p + " (AvgPool2d): ceil_mode=true is not exported (PyTorch and ONNX count its last window differently)");
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
    export_fail(p + ": adaptive average pooling to " + std::to_string(oh) + "x" + std::to_string(ow) + " from " +
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

void export_function(GraphBuilder& g, const autograd::FunctionCall& call) {
  const std::string name = call.name;
  const Tensor& x = call.tensor_inputs.empty() ? call.output : call.tensor_inputs[0];
  const Tensor& out = call.output;
  auto args = [&]<class... A>() -> const std::tuple<const A&...>& {
    using Sig = kindling::detail::Signature<A...>;
    if (call.signature != kindling::detail::type_id<Sig>()) {
      export_fail(name + " was called with (" + std::string(call.signature_name) + ") but the exporter reads (" +
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
  export_fail("the functional call behind " + name + " (input " + shape_str(x.shape()) + ") has no ONNX mapping. Hint: "
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
      if (g.opset() < 14) export_fail(q + " (Hardswish) needs opset 14 (HardSwish)");
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
