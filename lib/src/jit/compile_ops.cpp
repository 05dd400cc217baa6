// kd::compile's op table: for each op the tracer can capture, what its node records (the tensors
// it reads, its other arguments as text and numbers) and a closure that calls the same Kindling
// function again on new tensors -- so that every node of the IR stays runnable eagerly.
#include <optional>
#include <unordered_map>

#include "compile_detail.hpp"
#include "kindling/autograd.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::jit {

// ---- the op table: what each traced op records, and how to run it again -----------------------------

namespace {

using kindling::detail::RecordedOp;
using I = std::int64_t;
using detail::TracedOp;

using Reader = std::function<TracedOp(const void* args, const Tensor& out)>;
struct Row {
  const void* signature;
  Reader read;
};

/// A row for an op recorded with arguments A...; fn(out, a...) -> TracedOp.
template <class... A, class Fn>
Row typed(Fn fn) {
  using Sig = kindling::detail::Signature<A...>;
  return {kindling::detail::type_id<Sig>(), [fn](const void* args, const Tensor& out) {
            const auto& t = *static_cast<const std::tuple<const A&...>*>(args);
            return std::apply([&](const A&... a) { return fn(out, a...); }, t);
          }};
}

std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string ints(const std::vector<I>& v) { return shape_str(v); }

Row unary(const std::string& name, Tensor (*f)(const Tensor&)) {
  return typed<Tensor>([name, f](const Tensor&, const Tensor& x) {
    return TracedOp{
        name, {x}, "", {}, [f](const std::vector<Tensor>& t) { return std::vector<Tensor>{f(t[0])}; }};
  });
}

Row binary(const std::string& name, Tensor (*f)(const Tensor&, const Tensor&)) {
  return typed<Tensor, Tensor>([name, f](const Tensor&, const Tensor& a, const Tensor& b) {
    return TracedOp{name, {a, b}, "", {}, [f](const std::vector<Tensor>& t) {
                      return std::vector<Tensor>{f(t[0], t[1])};
                    }};
  });
}

Row binary_alpha(const std::string& name, Tensor (*f)(const Tensor&, const Tensor&, Scalar)) {
  return typed<Tensor, Tensor, Scalar>([name, f](const Tensor&, const Tensor& a, const Tensor& b,
                                                 const Scalar& alpha) {
    const double al = alpha.to_double();
    return TracedOp{
        name, {a, b}, al == 1.0 ? "" : "alpha=" + num(al), {al}, [f, alpha](const std::vector<Tensor>& t) {
          return std::vector<Tensor>{f(t[0], t[1], alpha)};
        }};
  });
}

Row shaped(const std::string& name, Tensor (*f)(const Tensor&, const std::vector<I>&)) {
  return typed<Tensor, IntArrayRef>([name, f](const Tensor&, const Tensor& x, const IntArrayRef& dims) {
    std::vector<I> d = dims.vec();
    return TracedOp{name, {x}, ints(d), {}, [f, d](const std::vector<Tensor>& t) {
                      return std::vector<Tensor>{f(t[0], d)};
                    }};
  });
}

Row one_int(const std::string& name, Tensor (*f)(const Tensor&, I)) {
  return typed<Tensor, I>([name, f](const Tensor&, const Tensor& x, const I& d) {
    return TracedOp{name,
                    {x},
                    "dim=" + std::to_string(d),
                    {static_cast<double>(d)},
                    [f, d](const std::vector<Tensor>& t) { return std::vector<Tensor>{f(t[0], d)}; }};
  });
}

template <bool Mean>
Row reduce_dims(const std::string& name) {
  return typed<Tensor, IntArrayRef, bool>(
      [name](const Tensor&, const Tensor& x, const IntArrayRef& dims, const bool& keep) {
        std::vector<I> d = dims.vec();
        return TracedOp{name,
                        {x},
                        "dims=" + ints(d) + ", keepdim=" + (keep ? "true" : "false"),
                        {},
                        [d, keep](const std::vector<Tensor>& t) {
                          return std::vector<Tensor>{Mean ? t[0].mean(d, keep) : t[0].sum(d, keep)};
                        }};
      });
}

const std::unordered_map<std::string, Row>& op_table() {
  static const std::unordered_map<std::string, Row> table = [] {
    std::unordered_map<std::string, Row> t;
    t.emplace("add", binary_alpha("add", &kindling::add));
    t.emplace("sub", binary_alpha("sub", &kindling::sub));
    t.emplace("mul", binary("mul", &kindling::mul));
    t.emplace("div", binary("div", &kindling::div));
    t.emplace("maximum", binary("maximum", &kindling::maximum));
    t.emplace("minimum", binary("minimum", &kindling::minimum));
    t.emplace("mm", binary("mm", &kindling::mm));
    t.emplace("bmm", binary("bmm", &kindling::bmm));
    t.emplace("mv", binary("mv", &kindling::mv));
    t.emplace("dot", binary("dot", &kindling::dot));
    t.emplace("relu", unary("relu", &kindling::relu));
    t.emplace("exp", unary("exp", &kindling::exp));
    t.emplace("log", unary("log", &kindling::log));
    t.emplace("tanh", unary("tanh", &kindling::tanh));
    t.emplace("sigmoid", unary("sigmoid", &kindling::sigmoid));
    t.emplace("sqrt", unary("sqrt", &kindling::sqrt));
    t.emplace("neg", unary("neg", &kindling::neg));
    t.emplace("abs", unary("abs", &kindling::abs));
    t.emplace("reciprocal", unary("reciprocal", &kindling::reciprocal));
    t.emplace("sin", unary("sin", &kindling::sin));
    t.emplace("cos", unary("cos", &kindling::cos));
    t.emplace("erf", unary("erf", &kindling::erf));
    t.emplace("rsub", typed<Tensor, Scalar, Scalar>([](const Tensor&, const Tensor& x, const Scalar& other,
                                                       const Scalar& alpha) {
                return TracedOp{"rsub",
                                {x},
                                "other=" + num(other.to_double()) + ", alpha=" + num(alpha.to_double()),
                                {other.to_double(), alpha.to_double()},
                                [other, alpha](const std::vector<Tensor>& t) {
                                  return std::vector<Tensor>{kindling::rsub(t[0], other, alpha)};
                                }};
              }));
    t.emplace("pow_scalar", typed<Tensor, Scalar>([](const Tensor&, const Tensor& x, const Scalar& e) {
                return TracedOp{"pow_scalar",
                                {x},
                                "exponent=" + num(e.to_double()),
                                {e.to_double()},
                                [e](const std::vector<Tensor>& t) {
                                  return std::vector<Tensor>{kindling::pow(t[0], e)};
                                }};
              }));
    t.emplace("clamp", typed<Tensor, std::optional<Scalar>, std::optional<Scalar>>(
                           [](const Tensor&, const Tensor& x, const std::optional<Scalar>& lo,
                              const std::optional<Scalar>& hi) {
                             std::string a = (lo ? "min=" + num(lo->to_double()) : "") +
                                             (lo && hi ? ", " : "") +
                                             (hi ? "max=" + num(hi->to_double()) : "");
                             return TracedOp{"clamp",
                                             {x},
                                             a,
                                             {lo ? 1.0 : 0.0, lo ? lo->to_double() : 0.0, hi ? 1.0 : 0.0,
                                              hi ? hi->to_double() : 0.0},
                                             [lo, hi](const std::vector<Tensor>& t) {
                                               return std::vector<Tensor>{kindling::clamp(t[0], lo, hi)};
                                             }};
                           }));
    t.emplace("addmm",
              typed<Tensor, Tensor, Tensor, Scalar, Scalar>([](const Tensor&, const Tensor& bias,
                                                               const Tensor& a, const Tensor& b,
                                                               const Scalar& beta, const Scalar& alpha) {
                return TracedOp{"addmm",
                                {bias, a, b},
                                "beta=" + num(beta.to_double()) + ", alpha=" + num(alpha.to_double()),
                                {beta.to_double(), alpha.to_double()},
                                [beta, alpha](const std::vector<Tensor>& t) {
                                  return std::vector<Tensor>{kindling::addmm(t[0], t[1], t[2], beta, alpha)};
                                }};
              }));
    auto reshape_to = [](const Tensor& x, const std::vector<I>& s) {
      return x.reshape(Shape(s.begin(), s.end()));
    };
    for (const char* k : {"view", "reshape_alias", "unsafe_view"})
      t.emplace(k, shaped("reshape", reshape_to));
    t.emplace("permute",
              shaped("permute", [](const Tensor& x, const std::vector<I>& d) { return x.permute(d); }));
    t.emplace("expand",
              typed<Tensor, IntArrayRef>([](const Tensor& out, const Tensor& x, const IntArrayRef&) {
                const Shape s = out.shape();
                return TracedOp{"expand", {x}, shape_str(s), {}, [s](const std::vector<Tensor>& v) {
                                  return std::vector<Tensor>{v[0].expand(s)};
                                }};
              }));
    t.emplace("clone", unary("clone", [](const Tensor& x) { return x.clone(); }));
    t.emplace("alias", unary("alias", [](const Tensor& x) { return x.view(x.shape()); }));
    t.emplace("t", unary("t", [](const Tensor& x) { return x.t(); }));
    t.emplace("squeeze", unary("squeeze", [](const Tensor& x) { return x.squeeze(); }));
    t.emplace("sum", unary("sum", [](const Tensor& x) { return x.sum(); }));
    t.emplace("mean", unary("mean", [](const Tensor& x) { return x.mean(); }));
    t.emplace("transpose", typed<Tensor, I, I>([](const Tensor&, const Tensor& x, const I& d0, const I& d1) {
                return TracedOp{
                    "transpose", {x}, "dims=" + ints({d0, d1}), {}, [d0, d1](const std::vector<Tensor>& v) {
                      return std::vector<Tensor>{v[0].transpose(d0, d1)};
                    }};
              }));
    t.emplace("unsqueeze", one_int("unsqueeze", [](const Tensor& x, I d) { return x.unsqueeze(d); }));
    t.emplace("squeeze_dim", one_int("squeeze", [](const Tensor& x, I d) { return x.squeeze(d); }));
    t.emplace("softmax", one_int("softmax", [](const Tensor& x, I d) { return kindling::softmax(x, d); }));
    t.emplace("log_softmax",
              one_int("log_softmax", [](const Tensor& x, I d) { return kindling::log_softmax(x, d); }));
    t.emplace("sum_dim", reduce_dims<false>("sum"));
    t.emplace("mean_dim", reduce_dims<true>("mean"));
    t.emplace("to_dtype", typed<Tensor>([](const Tensor& out, const Tensor& x) {
                const DType dt = out.dtype();
                return TracedOp{"to", {x}, dtype_name(dt), {}, [dt](const std::vector<Tensor>& v) {
                                  return std::vector<Tensor>{v[0].to(dt)};
                                }};
              }));
    t.emplace("where", typed<Tensor, Tensor, Tensor>(
                           [](const Tensor&, const Tensor& c, const Tensor& a, const Tensor& b) {
                             return TracedOp{"where", {c, a, b}, "", {}, [](const std::vector<Tensor>& v) {
                                               return std::vector<Tensor>{kindling::where(v[0], v[1], v[2])};
                                             }};
                           }));
    t.emplace("cat",
              typed<std::vector<Tensor>, I>([](const Tensor&, const std::vector<Tensor>& xs, const I& d) {
                return TracedOp{"cat", xs, "dim=" + std::to_string(d), {}, [d](const std::vector<Tensor>& v) {
                                  return std::vector<Tensor>{kindling::cat(v, d)};
                                }};
              }));
    return t;
  }();
  return table;
}

/// The Functions the tracer knows (autograd::FunctionCall): the functional activations.
}  // namespace

namespace detail {

std::optional<TracedOp> read_function(const autograd::FunctionCall& call) {
  namespace F = nn::functional;
  const std::string name = call.name;
  auto is = [&]<class... A>() {
    return call.signature == kindling::detail::type_id<kindling::detail::Signature<A...>>();
  };
  auto args = [&]<class... A>() -> const std::tuple<const A&...>& {
    return *static_cast<const std::tuple<const A&...>*>(call.args);
  };
  if (name == "GeluBackward0" && is.template operator()<Tensor, bool>()) {
    const bool tanh_form = std::get<1>(args.template operator()<Tensor, bool>());
    return TracedOp{"gelu",
                    {call.tensor_inputs[0]},
                    tanh_form ? "approximate=tanh" : "",
                    {tanh_form ? 1.0 : 0.0},
                    [tanh_form](const std::vector<Tensor>& v) {
                      return std::vector<Tensor>{F::gelu(v[0], tanh_form ? "tanh" : "none")};
                    }};
  }
  if (name == "SiluBackward0" && is.template operator()<Tensor>()) {
    return TracedOp{"silu", {call.tensor_inputs[0]}, "", {}, [](const std::vector<Tensor>& v) {
                      return std::vector<Tensor>{F::silu(v[0])};
                    }};
  }
  if (name == "NativeLayerNormBackward0" && is.template operator()<Tensor, Tensor, Tensor, Shape, double>()) {
    // One node (a row reduction: fuse_layer_norm, not fuse_elementwise, folds it into a fused node);
    // weight and bias are inputs when the layer has them.
    const auto& [input, weight, bias, shape, eps] = args.template operator()<Tensor, Tensor, Tensor, Shape, double>();
    const bool has_weight = weight.defined(), has_bias = bias.defined();
    std::vector<Tensor> tensors{input};
    if (has_weight) tensors.push_back(weight);
    if (has_bias) tensors.push_back(bias);
    // scalars: eps, whether weight and bias are inputs, and how many trailing dims are normalised
    // (fuse_layer_norm reads them).
    return TracedOp{"layer_norm", std::move(tensors), "normalized_shape=" + shape_str(shape) + " eps=" + num(eps),
                    {eps, has_weight ? 1.0 : 0.0, has_bias ? 1.0 : 0.0, static_cast<double>(shape.size())},
                    [shape = shape, eps = eps, has_weight, has_bias](const std::vector<Tensor>& v) {
                      std::size_t k = 1;
                      const Tensor w = has_weight ? v[k++] : Tensor();
                      const Tensor b = has_bias ? v[k++] : Tensor();
                      return std::vector<Tensor>{F::layer_norm(v[0], shape, w, b, eps)};
                    }};
  }
  if (name == "LeakyReluBackward0" && is.template operator()<Tensor, double>()) {
    const double slope = std::get<1>(args.template operator()<Tensor, double>());
    return TracedOp{
        "leaky_relu",
        {call.tensor_inputs[0]},
        "negative_slope=" + num(slope),
        {slope},
        [slope](const std::vector<Tensor>& v) { return std::vector<Tensor>{F::leaky_relu(v[0], slope)}; }};
  }
  return std::nullopt;
}

std::optional<TracedOp> read_recorded(const RecordedOp& op, std::string& why) {
  const auto& table = op_table();
  auto it = table.find(op.key);
  if (it == table.end() || op.num_outputs != 1) {
    why = std::string("op '") + op.key + "' has no node in the compiler's IR";
    return std::nullopt;
  }
  if (it->second.signature != op.signature) {
    why = std::string("op '") + op.key + "' was recorded as (" + std::string(op.signature_name) + ")";
    return std::nullopt;
  }
  return it->second.read(op.args, op.outputs[0]);
}

}  // namespace detail
}  // namespace kindling::jit
