// Chapter 2 parity: the Kindling twin of every case in ch02_autograd.py (gradients vs PyTorch).
#include <kindling/autograd.hpp>

#include "parity.hpp"

namespace kd = kindling;
using kd::Tensor;

// ---- elementwise binary ------------------------------------------------------------------------------
PARITY_CASE("add/broadcast") { return in["a"] + in["b"]; }
PARITY_CASE("add/alpha") { return kd::add(in["a"], in["b"], 2.5); }
PARITY_CASE("sub/broadcast-alpha") { return kd::sub(in["a"], in["b"], -0.5); }
PARITY_CASE("sub/scalar-left") { return 2 - in["a"]; }
PARITY_CASE("mul/broadcast") { return in["a"] * in["b"]; }
PARITY_CASE("mul/transposed") { return in["a"].t() * in["b"]; }
PARITY_CASE("mul/scalar") { return in["a"] * 3; }
PARITY_CASE("mul/same-tensor") { return in["a"] * in["a"]; }
PARITY_CASE("mul/0d") { return in["a"] * in["b"]; }
PARITY_CASE("div/broadcast") { return in["a"] / in["b"]; }
PARITY_CASE("div/scalar-left") { return 2 / in["a"]; }
PARITY_CASE("mul/float64") { return in["a"] * in["b"]; }
PARITY_CASE("mul/mixed-float32-float64-0d") { return in["a"] * in["b"]; }
PARITY_CASE("pow/scalar") { return in["a"].pow(3); }
PARITY_CASE("pow/scalar-fraction") { return in["a"].pow(0.5); }
PARITY_CASE("pow/scalar-zero") { return in["a"].pow(0); }
PARITY_CASE("pow/tensor") { return in["a"].pow(in["b"]); }
PARITY_CASE("pow/tensor-zero-base") { return in["a"].pow(in["b"]); }
PARITY_CASE("maximum/broadcast") { return kd::maximum(in["a"], in["b"]); }
PARITY_CASE("maximum/ties") { return kd::maximum(in["a"], in["b"]); }
PARITY_CASE("minimum/ties") { return kd::minimum(in["a"], in["b"]); }
PARITY_CASE("where/broadcast") { return kd::where(in["c"], in["a"], in["b"]); }

// ---- unary ---------------------------------------------------------------------------------------------
#define UNARY_CASES(name, expr)                                                              \
  PARITY_CASE(name "/randn") { auto f = [](Tensor x) { return expr; }; return f(in["x"]); } \
  PARITY_CASE(name "/transposed") { auto f = [](Tensor x) { return expr; }; return f(in["x"].t()); }
UNARY_CASES("neg", -x)
UNARY_CASES("exp", x.exp())
UNARY_CASES("tanh", x.tanh())
UNARY_CASES("sigmoid", x.sigmoid())
UNARY_CASES("relu", x.relu())
UNARY_CASES("abs", x.abs())
#undef UNARY_CASES
PARITY_CASE("log/positive") { return in["x"].log(); }
PARITY_CASE("sqrt/positive") { return in["x"].sqrt(); }
PARITY_CASE("relu/at-zero") { return in["x"].relu(); }
PARITY_CASE("abs/at-zero") { return in["x"].abs(); }
PARITY_CASE("clamp/both") { return in["x"].clamp(-0.5, 0.5); }
PARITY_CASE("clamp/at-bounds") { return in["x"].clamp(0.0, 1.0); }
PARITY_CASE("clamp/min-only") { return in["x"].clamp(0.0); }
PARITY_CASE("clamp/max-only") { return in["x"].clamp(std::nullopt, 0.0); }

// ---- reductions ----------------------------------------------------------------------------------------
PARITY_CASE("sum/all") { return in["x"].sum(); }
PARITY_CASE("sum/dims-keepdim") { return in["x"].sum({0, 2}, true); }
PARITY_CASE("sum/negative-dim") { return in["x"].sum(-1); }
PARITY_CASE("mean/all") { return in["x"].mean(); }
PARITY_CASE("mean/dim") { return in["x"].mean(1); }
PARITY_CASE("max/all-distinct") { return in["x"].max(); }
PARITY_CASE("max/all-ties") { return in["x"].max(); }
PARITY_CASE("min/all-ties") { return in["x"].min(); }
PARITY_CASE("max/dim") { return in["x"].max(1); }
PARITY_CASE("max/dim-keepdim-ties") { return in["x"].max(1, true); }
PARITY_CASE("min/dim0") { return in["x"].min(0); }
PARITY_CASE("var/all") { return in["x"].var(); }
PARITY_CASE("var/dim-correction0") { return in["x"].var(1, true, 0); }
PARITY_CASE("std/all") { return in["x"].std(); }
PARITY_CASE("std/dim") { return in["x"].std(0, false); }
PARITY_CASE("std/constant") { return in["x"].std(); }
PARITY_CASE("softmax/dim1") { return in["x"].softmax(1); }
PARITY_CASE("softmax/dim0") { return in["x"].softmax(0); }
PARITY_CASE("log_softmax/dim-last") { return in["x"].log_softmax(-1); }

// ---- linear algebra --------------------------------------------------------------------------------------
PARITY_CASE("mm/plain") { return in["a"].mm(in["b"]); }
PARITY_CASE("mm/transposed") { return in["a"].mm(in["b"].t()); }
PARITY_CASE("matmul/dot") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/mv") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/vm") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/batched-matrix") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/matrix-batched") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/broadcast-batch") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/batched-vector") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/vector-batched") { return in["a"].matmul(in["b"]); }

// ---- views and joins ---------------------------------------------------------------------------------------
PARITY_CASE("view/flat") { return in["x"].view({6}) * 2; }
PARITY_CASE("reshape/copy") { return in["x"].t().reshape({6}); }
PARITY_CASE("permute/3d") { return in["x"].permute({2, 0, 1}); }
PARITY_CASE("transpose/3d") { return in["x"].transpose(0, 2); }
PARITY_CASE("t/2d") { return in["x"].t(); }
PARITY_CASE("expand/rank") { return in["x"].expand({2, 3, 4}); }
PARITY_CASE("squeeze/all") { return in["x"].squeeze(); }
PARITY_CASE("squeeze/dim") { return in["x"].squeeze(-1); }
PARITY_CASE("unsqueeze/dim") { return in["x"].unsqueeze(1); }
PARITY_CASE("slice/step") { return in["x"].slice(1, 1, 5, 2); }
PARITY_CASE("select/row") { return in["x"][1]; }
PARITY_CASE("select/overlap") { return in["x"][0] * in["x"].slice(1, 0, 2).sum(0); }
PARITY_CASE("cat/dim1") { return kd::cat({in["a"], in["b"], in["a"]}, 1); }
PARITY_CASE("stack/dim-last") { return kd::stack({in["a"], in["b"]}, -1); }
PARITY_CASE("clone/plain") { return in["x"].clone() * in["x"]; }
PARITY_CASE("contiguous/transposed") { return in["x"].t().contiguous(); }
PARITY_CASE("to/float64") { return in["x"].to(kd::kFloat64) * 2; }

// ---- a small network ------------------------------------------------------------------------------------
PARITY_CASE("mlp/log-softmax-loss") {
  Tensor h = (in["x"].matmul(in["w1"]) + in["b1"]).relu();
  return h.matmul(in["w2"]).log_softmax(1).mean();
}

// ---- the graph itself --------------------------------------------------------------------------------
#define MATMUL_GRAPH(name) \
  PARITY_CASE("graph/matmul-" name) { return in["a"].matmul(in["b"]); }
MATMUL_GRAPH("dot")
MATMUL_GRAPH("mv")
MATMUL_GRAPH("vm")
MATMUL_GRAPH("mm")
MATMUL_GRAPH("batched-matrix")
MATMUL_GRAPH("batched-vector")
MATMUL_GRAPH("matrix-batched")
MATMUL_GRAPH("vector-batched")
MATMUL_GRAPH("bmm")
MATMUL_GRAPH("broadcast-batch")
MATMUL_GRAPH("broadcast-one")
MATMUL_GRAPH("4d")
#undef MATMUL_GRAPH
PARITY_CASE("graph/matmul-one-side") { return in["a"].matmul(in["b"]); }
PARITY_CASE("graph/addmm") { return kd::addmm(in["b"], in["x"], in["w"].t()); }
PARITY_CASE("graph/mlp") {
  Tensor h = (in["x"].matmul(in["w1"]) + in["b1"]).relu();
  return h.matmul(in["w2"]).log_softmax(1).mean();
}
PARITY_CASE("graph/views") { return in["x"].t().reshape({6}).view({2, 3}).unsqueeze(0).expand({2, 2, 3}).sum(0)[1]; }
PARITY_CASE("graph/reductions") {
  const Tensor& x = in["x"];
  return (x.sum(0) + x.mean(1).sum() + x.max() + x.max(1).first.sum() + x.var()).std();
}
PARITY_CASE("graph/scalar-ops") { return (2 - in["x"]) * 3 / (in["x"] + 1).pow(2); }
PARITY_CASE("graph/scalar-left") {
  const Tensor& x = in["x"];
  return (2 * x) + (2 / x) + (2 + x) - kd::rsub(x, 3, 0.5);
}

// ---- double backward ---------------------------------------------------------------------------------
namespace {
/// dy/dx with create_graph=true: the result can be differentiated again.
Tensor grad_of(const Tensor& y, const Tensor& x) {
  return kd::autograd::grad({y}, {x}, {}, {.create_graph = true})[0];
}
}  // namespace

PARITY_CASE("double/tanh") { return grad_of(in["x"].tanh().sum(), in["x"]); }
PARITY_CASE("double/sigmoid-exp") { return grad_of((in["x"].sigmoid() * in["x"].exp() * in["w"]).sum(), in["x"]); }
PARITY_CASE("double/div-pow-log") {
  const Tensor& x = in["x"];
  return grad_of(((1 / x).pow(3) + x.log() * x.sqrt()).sum(), x);
}
PARITY_CASE("double/softmax") { return grad_of((in["x"].softmax(1) * in["w"]).sum(), in["x"]); }
PARITY_CASE("double/log-softmax") { return grad_of((in["x"].log_softmax(1) * in["w"]).sum(), in["x"]); }
PARITY_CASE("double/mm") { return grad_of(in["a"].mm(in["b"]).pow(2).sum(), in["a"]); }
PARITY_CASE("double/matmul-batched") { return grad_of(in["a"].matmul(in["b"]).tanh().sum(), in["b"]); }
PARITY_CASE("double/broadcast") {
  const Tensor& x = in["x"];
  const Tensor& b = in["b"];
  return grad_of((x * b + b).pow(2).sum(), b);
}
PARITY_CASE("double/var-std") { return grad_of(in["x"].var(1, false).sum() + in["x"].std(), in["x"]); }
PARITY_CASE("double/slice-select") {
  const Tensor& x = in["x"];
  return grad_of(x.slice(1, 1, 3).pow(2).sum() + x[0].pow(3).sum(), x);
}
PARITY_CASE("double/max-where") {
  const Tensor& x = in["x"];
  return grad_of(x.max(1).first.pow(2).sum() + kd::where(x > 0.0, x * x, -x).sum(), x);
}
PARITY_CASE("double/cat-stack") {
  const Tensor& a = in["a"];
  const Tensor& b = in["b"];
  return grad_of(kd::cat({a, b}).pow(2).sum() + kd::stack({a, b}).pow(3).sum(), a);
}
PARITY_CASE("double/gradient-penalty") {
  const Tensor& x = in["x"];
  const Tensor g = grad_of(x.matmul(in["w"]).tanh().sum(), x);
  return (g.pow(2).sum(1).sqrt() - 1).pow(2).mean();
}
PARITY_CASE("double/hessian-vector-product") {
  const Tensor& x = in["x"];
  const Tensor g = grad_of((x.tanh() * x).sum() + x.pow(3).sum(), x);
  return grad_of((g * in["v"]).sum(), x);
}

// ---- issue 18: x[...] is a new view (AliasBackward0), not x itself --------------------------------
PARITY_CASE("graph/ellipsis-alias") { return in["x"].index({kd::indexing::Ellipsis}) * 2; }
PARITY_CASE("graph/ellipsis-alias-0d") { return in["x"].index({kd::indexing::Ellipsis}).exp(); }
PARITY_CASE("ellipsis/retain-grad-of-alias") {
  Tensor y = in["x"].index({kd::indexing::Ellipsis});
  y.retain_grad();
  (y * y).sum().backward();
  return {y.grad(), in["x"].grad()};
}

// ---- issue 18: a second backward without retain_graph, and saved tensors edited in place ----------
namespace {
Tensor twice(const Tensor& y) {
  y.backward();
  y.backward();
  return y;
}
Tensor edit_saved(const Tensor& x) {
  Tensor y = x.exp();
  y.detach().add_(1);
  return y.sum();
}
}  // namespace
PARITY_CASE("backward-twice/add-scalar") { return twice((in["x"] + 1).sum()); }
PARITY_CASE("backward-twice/sub") { return twice((in["x"] - 1).sum()); }
PARITY_CASE("backward-twice/neg") { return twice((-in["x"]).sum()); }
PARITY_CASE("backward-twice/mean") { return twice(in["x"].mean()); }
PARITY_CASE("backward-twice/view") { return twice(in["x"].view({3, 1}).sum()); }
PARITY_CASE("backward-twice/clone") { return twice(in["x"].clone().sum()); }
PARITY_CASE("backward-twice/sum-of-empty-slice") { return twice(in["x"].slice(0, 0, 0).sum()); }
PARITY_CASE("backward-twice/sum-empty-leaf") { return twice(in["x"].sum()); }
PARITY_CASE("backward-twice/sum-dim-empty-leaf") { return twice(in["x"].sum(0).sum()); }
PARITY_CASE("backward-twice/mul-scalar-refused") { return twice((in["x"] * 2).sum()); }
PARITY_CASE("backward-twice/div-scalar-refused") { return twice((in["x"] / 2).sum()); }
PARITY_CASE("backward-twice/mul-self-refused") { return twice((in["x"] * in["x"]).sum()); }
PARITY_CASE("backward-twice/exp-refused") { return twice(in["x"].exp().sum()); }
PARITY_CASE("backward-twice/relu-refused") { return twice(in["x"].relu().sum()); }
PARITY_CASE("backward-twice/tanh-refused") { return twice(in["x"].tanh().sum()); }
PARITY_CASE("backward-twice/sigmoid-refused") { return twice(in["x"].sigmoid().sum()); }
PARITY_CASE("backward-twice/pow-refused") { return twice(in["x"].pow(2).sum()); }
PARITY_CASE("backward-twice/max-refused") { return twice(in["x"].max()); }
PARITY_CASE("backward-twice/softmax-refused") { return twice(in["x"].softmax(0).sum()); }
PARITY_CASE("backward-twice/matmul-refused") { return twice(in["x"].view({1, 3}).matmul(in["x"].view({3, 1})).sum()); }
PARITY_CASE("saved-edited/exp-result-through-detach") { return twice(edit_saved(in["x"])); }
PARITY_CASE("saved-edited/exp-result-backward") {
  edit_saved(in["x"]).backward();
  return in["x"];
}
PARITY_CASE("saved-edited/mul-input-through-detach") {
  Tensor a = in["x"] * 1;
  Tensor y = a * a;
  a.detach().mul_(2);
  y.sum().backward();
  return in["x"];
}

// ---- more pointwise functions (issue 18) -----------------------------------------------------------
#define POINTWISE_GRAD_CASES(name, fn)                                            \
  PARITY_CASE(name "/grad-transposed") { return in["x"].t().fn(); }                \
  PARITY_CASE(name "/grad-float64") { return kd::fn(in["x"]); }
POINTWISE_GRAD_CASES("sin", sin)
POINTWISE_GRAD_CASES("cos", cos)
POINTWISE_GRAD_CASES("log1p", log1p)
POINTWISE_GRAD_CASES("expm1", expm1)
POINTWISE_GRAD_CASES("erf", erf)
POINTWISE_GRAD_CASES("floor", floor)
POINTWISE_GRAD_CASES("ceil", ceil)
POINTWISE_GRAD_CASES("round", round)
POINTWISE_GRAD_CASES("trunc", trunc)
POINTWISE_GRAD_CASES("sign", sign)
#undef POINTWISE_GRAD_CASES

// ---- indexing with tensors (issue 18) ---------------------------------------------------------------
PARITY_CASE("index_select/repeats") { return in["x"].index_select(0, in["i"]); }
PARITY_CASE("index_select/dim1-transposed") { return in["x"].t().index_select(1, in["i"]); }
PARITY_CASE("index_select/0d-index") { return in["x"].index_select(1, in["i"]); }
PARITY_CASE("gather/repeats") { return in["x"].gather(1, in["i"]); }
PARITY_CASE("gather/3d-transposed") { return in["x"].transpose(0, 2).gather(1, in["i"]); }
PARITY_CASE("gather/nll-by-hand") { return -in["x"].log_softmax(1).gather(1, in["t"].unsqueeze(1)).mean(); }
PARITY_CASE("scatter_add/both") { return in["x"].scatter_add(0, in["i"], in["s"]); }
PARITY_CASE("scatter_add/index-smaller-than-self") { return in["x"].scatter_add(1, in["i"], in["s"]); }
PARITY_CASE("scatter/both") { return in["x"].scatter(1, in["i"], in["s"]); }
PARITY_CASE("scatter/value") { return in["x"].scatter(1, in["i"], 5.0); }
PARITY_CASE("masked_fill/broadcast") { return in["x"].masked_fill(in["m"], 0.5); }
PARITY_CASE("masked_fill/mask-broadcasts-self") { return in["x"].masked_fill(in["m"], 0.5); }

// ---- tril/triu, flip, outer (issue 18) --------------------------------------------------------------
PARITY_CASE("tril/graph") { return kd::tril(in["x"], 1); }
PARITY_CASE("triu/batched-transposed") { return kd::triu(in["x"].transpose(1, 2), -1); }
PARITY_CASE("flip/graph") { return in["x"].t().flip({0, 1}); }
PARITY_CASE("outer/graph") { return kd::outer(in["a"], in["b"]); }
