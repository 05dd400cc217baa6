// What each traced tensor op becomes in ONNX (the exporter's op table; onnx_export.hpp): chapter 1's
// record<"key">(out, args...) calls, read with the argument types the op recorded (a mismatch is an
// error naming both signatures, never a misread). The layers' table is onnx_export_layers.cpp.
#include <functional>
#include <unordered_map>

#include "kindling/tensor/creation.hpp"
#include "onnx_export.hpp"

namespace kindling::onnx::detail {
namespace {

using kindling::detail::RecordedOp;

// ---- the op table ----------------------------------------------------------------------------------

using OpFn = std::function<void(GraphBuilder&, const RecordedOp&)>;

/// A row that reads the op's arguments as A...: fn(g, out, key, args...).
template <class... A, class Fn>
OpFn typed(Fn fn) {
  return [fn](GraphBuilder& g, const RecordedOp& op) {
    using Sig = kindling::detail::Signature<A...>;
    if (op.signature != kindling::detail::type_id<Sig>()) {
      export_fail("op '" + std::string(op.key) + "' recorded its arguments as (" + std::string(op.signature_name) +
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

}  // namespace

void export_op(GraphBuilder& g, const RecordedOp& op) {
  const auto& table = op_table();
  auto it = table.find(op.key);
  if (it == table.end()) {
    export_fail("op '" + std::string(op.key) + "' (" + op.describe(op.args) + ") has no ONNX mapping yet. Hint: the "
         "mapped ops are listed in lib/src/jit/onnx_export_ops.cpp; a layer the exporter knows is exported whole.");
  }
  if (op.num_outputs != 1) export_fail("op '" + std::string(op.key) + "' has several outputs: not exported");
  it->second(g, op);
}

}  // namespace kindling::onnx::detail
