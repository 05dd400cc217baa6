// Chapter 1 parity: the Kindling twin of every case in ch01_tensor.py.
#include <cmath>
#include <limits>

#include "parity.hpp"

using namespace kindling::indexing;
using kd::Tensor;

// ---- elementwise binary ops ------------------------------------------------------------------------
#define BINARY_CASES(op, expr)                                                                       \
  PARITY_CASE(op "/same-shape") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"], in["b"]); } \
  PARITY_CASE(op "/broadcast-row-col") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"], in["b"]); } \
  PARITY_CASE(op "/broadcast-rank") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"], in["b"]); } \
  PARITY_CASE(op "/transposed") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"].t(), in["b"]); } \
  PARITY_CASE(op "/float64") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"], in["b"]); } \
  PARITY_CASE(op "/int-float-promotion") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"], in["b"]); } \
  PARITY_CASE(op "/0d-float64-with-float32") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"], in["b"]); } \
  PARITY_CASE(op "/int-with-0d-float64") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"], in["b"]); } \
  PARITY_CASE(op "/empty") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"], in["b"]); } \
  PARITY_CASE(op "/0d") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"], in["b"]); } \
  PARITY_CASE(op "/bad-shapes") { auto f = [](Tensor a, Tensor b) { return expr; }; return f(in["a"], in["b"]); }
BINARY_CASES("add", a + b)
BINARY_CASES("sub", a - b)
BINARY_CASES("mul", a * b)
BINARY_CASES("div", a / b)
#undef BINARY_CASES

PARITY_CASE("add/int64") { return in["a"] + in["b"]; }
PARITY_CASE("add/uint8-int64") { return in["a"] + in["b"]; }
PARITY_CASE("add/bool-bool") { return in["a"] + in["b"]; }
PARITY_CASE("add/alpha") { return kd::add(in["a"], in["b"], 2.5); }
PARITY_CASE("sub/alpha") { return kd::sub(in["a"], in["b"], -0.5); }
PARITY_CASE("div/int-int-true-division") { return in["a"] / in["b"]; }
PARITY_CASE("mul/scalar-int-on-int") { return in["a"] * 3; }
PARITY_CASE("mul/scalar-float-on-int") { return in["a"] * 0.5; }
PARITY_CASE("mul/scalar-float-on-float64") { return in["a"] * 0.5; }
PARITY_CASE("add/scalar-left") { return 2 + in["a"]; }
PARITY_CASE("sub/scalar-left") { return 2 - in["a"]; }
PARITY_CASE("div/scalar-left") { return 2 / in["a"]; }
PARITY_CASE("add/scalar-int-on-bool") { return in["a"] + 1; }
PARITY_CASE("add/expanded-view") { return in["a"].expand({3, 4}) + in["b"]; }
PARITY_CASE("mul/sliced-view") { return in["a"].index({Slice(), Slice(None, None, 2)}) * in["b"]; }
PARITY_CASE("mul/permuted-3d") { return in["a"].permute({2, 0, 1}) * in["b"]; }
PARITY_CASE("pow/tensor-tensor") { return kd::pow(in["a"], in["b"]); }
PARITY_CASE("pow/scalar") { return in["a"].pow(2); }
PARITY_CASE("pow/scalar-fractional") { return in["a"].pow(0.5); }
PARITY_CASE("pow/int-scalar-int") { return in["a"].pow(2); }
PARITY_CASE("maximum/broadcast") { return kd::maximum(in["a"], in["b"]); }
PARITY_CASE("minimum/broadcast") { return kd::minimum(in["a"], in["b"]); }
PARITY_CASE("maximum/int-float") { return kd::maximum(in["a"], in["b"]); }

// ---- unary ---------------------------------------------------------------------------------------
#define UNARY_CASES(name, fn)                                            \
  PARITY_CASE(name "/basic") { return kd::fn(in["x"]); }                 \
  PARITY_CASE(name "/transposed") { return kd::fn(in["x"].t()); }        \
  PARITY_CASE(name "/float64") { return kd::fn(in["x"]); }
UNARY_CASES("neg", neg)
UNARY_CASES("abs", abs)
UNARY_CASES("exp", exp)
UNARY_CASES("log", log)
UNARY_CASES("sqrt", sqrt)
UNARY_CASES("tanh", tanh)
UNARY_CASES("sigmoid", sigmoid)
UNARY_CASES("relu", relu)
#undef UNARY_CASES
PARITY_CASE("neg/int64") { return -in["x"]; }
PARITY_CASE("abs/int64") { return in["x"].abs(); }
PARITY_CASE("relu/int64") { return in["x"].relu(); }
PARITY_CASE("exp/int64-promotes") { return in["x"].exp(); }
PARITY_CASE("sigmoid/extreme") { return in["x"].sigmoid(); }
PARITY_CASE("clamp/both") { return in["x"].clamp(-0.5, 0.5); }
PARITY_CASE("clamp/min-only") { return in["x"].clamp(0.1); }
PARITY_CASE("clamp/max-only") { return in["x"].clamp(std::nullopt, 0.1); }
PARITY_CASE("clamp/int") { return in["x"].clamp(-2, 3); }
PARITY_CASE("clamp/nan-min") { return in["x"].clamp(std::nan(""), 0.5); }
PARITY_CASE("clamp/nan-max") { return in["x"].clamp(-0.5, std::nan("")); }
PARITY_CASE("clamp/nan-max-alone") { return in["x"].clamp(std::nullopt, std::nan("")); }
PARITY_CASE("clamp/nan-min-alone") { return in["x"].clamp(std::nan("")); }

// ---- comparisons and where -----------------------------------------------------------------------
PARITY_CASE("eq/broadcast") { return in["a"] == in["b"]; }
PARITY_CASE("ne/broadcast") { return in["a"] != in["b"]; }
PARITY_CASE("lt/broadcast") { return in["a"] < in["b"]; }
PARITY_CASE("le/broadcast") { return in["a"] <= in["b"]; }
PARITY_CASE("gt/broadcast") { return in["a"] > in["b"]; }
PARITY_CASE("ge/broadcast") { return in["a"] >= in["b"]; }
PARITY_CASE("gt/scalar") { return in["a"] > 0; }
PARITY_CASE("eq/int-float") { return in["a"] == in["b"]; }
PARITY_CASE("where/broadcast") { return kd::where(in["c"], in["a"], in["b"]); }
PARITY_CASE("where/promotion") { return kd::where(in["c"], in["a"], in["b"]); }
PARITY_CASE("where/scalar") { return kd::where(in["c"], in["a"], 0.0); }

// ---- reductions ----------------------------------------------------------------------------------
PARITY_CASE("sum/all") { return in["x"].sum(); }
PARITY_CASE("sum/dim0") { return in["x"].sum(0); }
PARITY_CASE("sum/dim-last-keepdim") { return in["x"].sum(-1, true); }
PARITY_CASE("sum/dims") { return in["x"].sum(std::vector<std::int64_t>{0, 2}); }
PARITY_CASE("sum/transposed") { return in["x"].t().sum(1); }
PARITY_CASE("sum/int64") { return in["x"].sum(); }
PARITY_CASE("sum/bool") { return in["x"].sum(); }
PARITY_CASE("sum/uint8-dim") { return in["x"].sum(0); }
PARITY_CASE("sum/empty") { return in["x"].sum(); }
PARITY_CASE("sum/empty-dim") { return in["x"].sum(0); }
PARITY_CASE("sum/large") { return in["x"].sum(); }
PARITY_CASE("sum/0d") { return in["x"].sum(); }
PARITY_CASE("mean/all") { return in["x"].mean(); }
PARITY_CASE("mean/dim") { return in["x"].mean(1); }
PARITY_CASE("mean/dims-keepdim") { return in["x"].mean(std::vector<std::int64_t>{0, 1}, true); }
PARITY_CASE("mean/float64") { return in["x"].mean(0); }
PARITY_CASE("max/all") { return in["x"].max(); }
PARITY_CASE("min/all") { return in["x"].min(); }
PARITY_CASE("max/dim") { return in["x"].max(1); }
PARITY_CASE("max/dim-keepdim") { return in["x"].max(0, true); }
PARITY_CASE("min/dim") { return in["x"].min(-1); }
PARITY_CASE("max/dim-ties-first-index") { return in["x"].max(1); }
PARITY_CASE("max/int64-dim") { return in["x"].max(0); }
PARITY_CASE("max/transposed-dim") { return in["x"].t().max(0); }
PARITY_CASE("max/empty") { return in["x"].max(); }
PARITY_CASE("argmax/all") { return in["x"].argmax(); }
PARITY_CASE("argmax/dim") { return in["x"].argmax(1); }
PARITY_CASE("argmax/dim-keepdim") { return in["x"].argmax(0, true); }
PARITY_CASE("argmin/dim") { return in["x"].argmin(-1); }
PARITY_CASE("var/all") { return in["x"].var(); }
PARITY_CASE("var/dim") { return in["x"].var(1, false); }
PARITY_CASE("var/dim-keepdim-biased") { return in["x"].var(0, true, 0); }
PARITY_CASE("std/all") { return in["x"].std(); }
PARITY_CASE("std/dim") { return in["x"].std(-1, false); }
PARITY_CASE("std/dim-biased") { return in["x"].std(0, false, 0); }

// ---- softmax -------------------------------------------------------------------------------------
PARITY_CASE("softmax/last") { return in["x"].softmax(-1); }
PARITY_CASE("softmax/dim0") { return in["x"].softmax(0); }
PARITY_CASE("softmax/middle-3d") { return in["x"].softmax(1); }
PARITY_CASE("softmax/large-logits") { return in["x"].softmax(-1); }
PARITY_CASE("softmax/transposed") { return in["x"].t().softmax(-1); }
PARITY_CASE("softmax/float64") { return in["x"].softmax(-1); }
PARITY_CASE("log_softmax/last") { return in["x"].log_softmax(-1); }
PARITY_CASE("log_softmax/large-logits") { return in["x"].log_softmax(1); }
PARITY_CASE("log_softmax/dim0") { return in["x"].log_softmax(0); }
PARITY_CASE("log_softmax/large-offset") { return (in["x"] + 10000.0).log_softmax(-1); }
PARITY_CASE("log_softmax/large-offset-dim0") { return (in["x"] + 10000.0).log_softmax(0); }
PARITY_CASE("log_softmax/large-offset-float64") { return (in["x"] + 1e12).log_softmax(-1); }
PARITY_CASE("softmax/int-refused") { return in["x"].softmax(0); }

// ---- matmul --------------------------------------------------------------------------------------
PARITY_CASE("matmul/2d") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/mlp-forward") { return in["x"].matmul(in["w"].t()); }
PARITY_CASE("matmul/mlp-grad-weight") { return in["g"].t().matmul(in["x"]); }
PARITY_CASE("matmul/a-transposed") { return in["a"].t().matmul(in["b"]); }
PARITY_CASE("matmul/both-transposed") { return in["a"].t().matmul(in["b"].t()); }
PARITY_CASE("matmul/sliced-rows") { return in["a"].index({Slice(None, None, 2)}).matmul(in["b"]); }
PARITY_CASE("matmul/sliced-cols") { return in["a"].index({Slice(), Slice(None, None, 2)}).matmul(in["b"]); }
PARITY_CASE("matmul/dot") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/mat-vec") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/vec-mat") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/batched") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/batched-broadcast") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/batched-with-2d") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/vec-batched") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/float64") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/int64") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/empty-inner") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/512") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("matmul/mismatch") { return kd::matmul(in["a"], in["b"]); }
PARITY_CASE("mm/2d") { return kd::mm(in["a"], in["b"]); }

// ---- views ---------------------------------------------------------------------------------------
PARITY_CASE("view/basic") { return in["x"].view({4, 6}); }
PARITY_CASE("view/infer") { return in["x"].view({-1, 4}); }
PARITY_CASE("view/non-contiguous-refused") { return in["x"].t().view({-1}); }
PARITY_CASE("view/split-dim-of-transposed") { return in["x"].t().view({2, 2, 3}); }
PARITY_CASE("reshape/copying") { return in["x"].t().reshape({-1}); }
PARITY_CASE("permute/3d") { return in["x"].permute({2, 0, 1}); }
PARITY_CASE("permute/hwc-to-chw") { return in["x"].permute({2, 0, 1}).contiguous(); }
PARITY_CASE("transpose/basic") { return in["x"].transpose(0, 2); }
PARITY_CASE("t/basic") { return in["x"].t(); }
PARITY_CASE("expand/basic") { return in["x"].expand({3, 4}); }
PARITY_CASE("expand/new-dims") { return in["x"].expand({2, 3, 4}); }
PARITY_CASE("expand/bad") { return in["x"].expand({3, 5}); }
PARITY_CASE("squeeze/all") { return in["x"].squeeze(); }
PARITY_CASE("squeeze/dim") { return in["x"].squeeze(2); }
PARITY_CASE("squeeze/non-one-dim-noop") { return in["x"].squeeze(1); }
PARITY_CASE("unsqueeze/middle") { return in["x"].unsqueeze(1); }
PARITY_CASE("unsqueeze/negative") { return in["x"].unsqueeze(-1); }
PARITY_CASE("flatten/all") { return in["x"].flatten(); }
PARITY_CASE("flatten/from1") { return in["x"].flatten(1); }
PARITY_CASE("narrow/basic") { return in["x"].narrow(1, 1, 2); }
PARITY_CASE("slice/step") { return in["x"].index({Slice(), Slice(1, 7, 2)}); }
PARITY_CASE("slice/negative") { return in["x"].index({Slice(-2, None)}); }
PARITY_CASE("slice/clamped") { return in["x"].index({Slice(2, 100)}); }
PARITY_CASE("select/basic") { return in["x"][1]; }
PARITY_CASE("select/negative") { return in["x"].index({Slice(), -1}); }
PARITY_CASE("select/out-of-range") { return in["x"][5]; }
PARITY_CASE("index/mixed") { return in["x"].index({Slice(1, None), 0, None}); }
PARITY_CASE("index/ellipsis") { return in["x"].index({Ellipsis, 1}); }
PARITY_CASE("contiguous/of-permuted") { return in["x"].permute({1, 0, 2}).contiguous(); }
PARITY_CASE("clone/of-sliced") { return in["x"].index({Slice(), Slice(None, None, 2)}).clone(); }

// ---- creation, conversion, join -------------------------------------------------------------------
PARITY_CASE("to/float-to-int64") { return in["x"].to(kd::kInt64); }
PARITY_CASE("to/float-to-uint8") { return in["x"].to(kd::kUInt8); }
PARITY_CASE("to/int-to-float64") { return in["x"].to(kd::kFloat64); }
PARITY_CASE("to/float-to-bool") { return in["x"].to(kd::kBool); }
PARITY_CASE("cat/dim0") { return kd::cat({in["a"], in["b"]}, 0); }
PARITY_CASE("cat/dim1") { return kd::cat({in["a"], in["b"]}, 1); }
PARITY_CASE("cat/promotion") { return kd::cat({in["a"], in["b"]}); }
PARITY_CASE("cat/mismatch") { return kd::cat({in["a"], in["b"]}, 0); }
PARITY_CASE("stack/dim0") { return kd::stack({in["a"], in["b"]}); }
PARITY_CASE("stack/dim-last") { return kd::stack({in["a"], in["b"]}, -1); }
PARITY_CASE("stack/transposed-input") { return kd::stack({in["a"].t(), in["b"]}); }
PARITY_CASE("arange/int") { return kd::arange(0, 10, 3); }
PARITY_CASE("arange/float") { return kd::arange(0, 1, 0.1); }
PARITY_CASE("arange/negative-step") { return kd::arange(5, -5, -2); }
PARITY_CASE("linspace/basic") { return kd::linspace(-1, 1, 9); }
PARITY_CASE("eye/rect") { return kd::eye(3, 5); }
PARITY_CASE("zeros/float64") { return kd::zeros({2, 3}, {.dtype = kd::kFloat64}); }
PARITY_CASE("full/int") { return kd::full({2, 2}, 7, {.dtype = kd::kInt64}); }
PARITY_CASE("tensor/nested-float") { return kd::tensor({{1., 2.}, {3., 4.}}); }
PARITY_CASE("tensor/nested-int") { return kd::tensor({{1, 2, 3}, {4, 5, 6}}); }

// ---- a Python number takes part in type promotion before it is converted (issue 18) -------------
PARITY_CASE("div/uint8-by-negative-int-scalar") { return in["a"] / -1; }
PARITY_CASE("div/negative-int-scalar-by-uint8") { return -1 / in["a"]; }
PARITY_CASE("div/uint8-by-int-scalar-over-255") { return in["a"] / 300; }
PARITY_CASE("div/bool-by-negative-int-scalar") { return in["a"] / -2; }
PARITY_CASE("div/uint8-0d-by-negative-int-scalar") { return in["a"] / -1; }
PARITY_CASE("add/uint8-int-scalar-wraps") { return in["a"] + 300; }
PARITY_CASE("add/uint8-negative-int-scalar") { return in["a"] + -1; }
PARITY_CASE("mul/uint8-negative-int-scalar") { return in["a"] * -1; }
PARITY_CASE("rsub/int-scalar-minus-uint8") { return 300 - in["a"]; }
PARITY_CASE("div_/uint8-by-int-scalar-refused") { return in["a"].div_(2); }
PARITY_CASE("full/uint8-overflow") { return kd::full({2}, 300, {.dtype = kd::kUInt8}); }
PARITY_CASE("full/uint8-negative-wraps") { return kd::full({3}, -1, {.dtype = kd::kUInt8}); }
PARITY_CASE("full/uint8-below-wrap-range") { return kd::full({3}, -256, {.dtype = kd::kUInt8}); }
PARITY_CASE("full/uint8-fraction-truncates") { return kd::full({3}, 2.5, {.dtype = kd::kUInt8}); }
PARITY_CASE("full/uint8-negative-float") { return kd::full({3}, -0.5, {.dtype = kd::kUInt8}); }
PARITY_CASE("full/float32-overflow") { return kd::full({2}, 1e40); }
PARITY_CASE("full/float32-inf") { return kd::full({2}, std::numeric_limits<double>::infinity()); }
PARITY_CASE("full/int64-nan") { return kd::full({2}, std::nan(""), {.dtype = kd::kInt64}); }
PARITY_CASE("full/bool-any-number") { return kd::full({2}, 256, {.dtype = kd::kBool}); }
PARITY_CASE("scalar_tensor/uint8-overflow") { return kd::scalar_tensor(300, {.dtype = kd::kUInt8}); }
PARITY_CASE("full_like/uint8-overflow") { return kd::full_like(in["a"], 300); }
PARITY_CASE("fill_/uint8-overflow") { return in["a"].fill_(300); }
PARITY_CASE("fill_/uint8-negative-wraps") { return in["a"].fill_(-1); }
PARITY_CASE("fill_/float32-overflow") { return in["a"].fill_(1e40); }
PARITY_CASE("clamp/uint8-bound-overflow") { return kd::clamp(in["a"], 0, 300); }
PARITY_CASE("clamp/uint8-negative-bound-wraps") { return kd::clamp(in["a"], -1); }
PARITY_CASE("clamp/uint8-float-bound-promotes") { return kd::clamp(in["a"], 2.5); }
PARITY_CASE("clamp/float32-bound-overflow") { return kd::clamp(in["a"], -1e40, 1e40); }
PARITY_CASE("where/uint8-scalar-overflow") { return kd::where(in["c"], in["a"], 300); }
PARITY_CASE("where/uint8-negative-scalar-wraps") { return kd::where(in["c"], in["a"], -1); }
PARITY_CASE("where/float32-scalar-overflow") { return kd::where(in["c"], in["a"], 1e40); }
PARITY_CASE("pow/uint8-exponent-overflow") { return in["a"].pow(256); }
PARITY_CASE("pow/uint8-exponent-255") { return in["a"].pow(255); }
PARITY_CASE("pow/float32-huge-exponent") { return in["a"].pow(1e40); }
PARITY_CASE("pow/bool-int-scalar") { return in["a"].pow(2); }
PARITY_CASE("add/uint8-alpha-overflow") { return kd::add(in["a"], in["b"], 300); }
PARITY_CASE("add/float32-alpha-overflow") { return kd::add(in["a"], in["b"], 1e40); }

// ---- an in-place op on a tensor with no elements has nothing to overlap (issue 18) ----------------
PARITY_CASE("add_/empty-expanded") { auto e = in["a"].expand({3, 0, 4}); return e.add_(1); }
PARITY_CASE("zero_/empty-expanded") { auto e = in["a"].expand({3, 0, 4}); return e.zero_(); }
PARITY_CASE("fill_/empty-expanded") { auto e = in["a"].expand({3, 0, 4}); return e.fill_(2); }
PARITY_CASE("copy_/empty-expanded") { auto e = in["a"].expand({3, 0, 4}); return e.copy_(in["b"]); }
PARITY_CASE("mul_/expanded-refused") { auto e = in["a"].expand({3, 4}); return e.mul_(2); }

// ---- where PyTorch refuses (issue 18) -------------------------------------------------------------
PARITY_CASE("sub/float-minus-bool-0d") { return in["a"] - in["b"]; }
PARITY_CASE("sub/bool-minus-float") { return in["a"] - in["b"]; }
PARITY_CASE("sub/float-minus-true") { return in["a"] - true; }
PARITY_CASE("sub/true-minus-float") { return true - in["a"]; }
PARITY_CASE("sub_/int-minus-true") { return in["a"].sub_(true); }
PARITY_CASE("sub_/float-minus-bool") { return in["a"].sub_(in["b"]); }
PARITY_CASE("rsub/float-bool-alpha") { return kd::sub(in["a"], in["b"], 2); }
PARITY_CASE("add/float-plus-bool") { return in["a"] + in["b"]; }
PARITY_CASE("argmax/bool-refused") { return in["x"].argmax(); }
PARITY_CASE("argmax/bool-dim-refused") { return in["x"].argmax(0); }
PARITY_CASE("argmin/bool-refused") { return in["x"].argmin(); }
PARITY_CASE("pow/bool-bool-refused") { return kd::pow(in["a"], in["b"]); }
PARITY_CASE("pow/bool-true-refused") { return in["a"].pow(true); }
PARITY_CASE("pow/bool-int") { return kd::pow(in["a"], in["b"]); }
PARITY_CASE("flatten/0d") { return in["x"].flatten(); }
PARITY_CASE("flatten/0d-negative-dims") { return in["x"].flatten(-1, -1); }
PARITY_CASE("flatten/0d-start-out-of-range") { return in["x"].flatten(1); }
PARITY_CASE("flatten/0d-end-out-of-range") { return in["x"].flatten(0, -2); }
PARITY_CASE("allclose/other-broadcasts-self") { return kd::scalar_tensor(kd::allclose(in["a"], in["b"]), {.dtype = kd::kBool}); }
PARITY_CASE("allclose/self-broadcasts-other") { return kd::scalar_tensor(kd::allclose(in["a"], in["b"]), {.dtype = kd::kBool}); }

// ---- x[...] is a new view of x, not x itself (issue 18) -------------------------------------------
PARITY_CASE("index/ellipsis-alone") { return in["x"].index({Ellipsis}); }
PARITY_CASE("index/ellipsis-0d") { return in["x"].index({Ellipsis}); }

// ---- more pointwise functions (issue 18) -----------------------------------------------------------
#define POINTWISE_CASES(name, fn)                                          \
  PARITY_CASE(name "/basic") { return kd::fn(in["x"]); }                   \
  PARITY_CASE(name "/transposed") { return in["x"].t().fn(); }             \
  PARITY_CASE(name "/float64") { return kd::fn(in["x"]); }                 \
  PARITY_CASE(name "/empty") { return kd::fn(in["x"]); }                   \
  PARITY_CASE(name "/0d") { return in["x"].fn(); }
POINTWISE_CASES("sin", sin)
POINTWISE_CASES("cos", cos)
POINTWISE_CASES("log1p", log1p)
POINTWISE_CASES("expm1", expm1)
POINTWISE_CASES("erf", erf)
POINTWISE_CASES("floor", floor)
POINTWISE_CASES("ceil", ceil)
POINTWISE_CASES("round", round)
POINTWISE_CASES("trunc", trunc)
POINTWISE_CASES("sign", sign)
#undef POINTWISE_CASES
PARITY_CASE("sin/int-promotes") { return kd::sin(in["x"]); }
PARITY_CASE("log1p/int-promotes") { return kd::log1p(in["x"]); }
PARITY_CASE("expm1/int-promotes") { return kd::expm1(in["x"]); }
PARITY_CASE("erf/int-promotes") { return kd::erf(in["x"]); }
#define KEEPS_DTYPE_CASES(name, fn)                                        \
  PARITY_CASE(name "/int64-stays") { return kd::fn(in["x"]); }             \
  PARITY_CASE(name "/uint8-stays") { return kd::fn(in["x"]); }
KEEPS_DTYPE_CASES("floor", floor)
KEEPS_DTYPE_CASES("ceil", ceil)
KEEPS_DTYPE_CASES("round", round)
KEEPS_DTYPE_CASES("trunc", trunc)
KEEPS_DTYPE_CASES("sign", sign)
#undef KEEPS_DTYPE_CASES
PARITY_CASE("floor/bool-refused") { return kd::floor(in["x"]); }
PARITY_CASE("ceil/bool-refused") { return kd::ceil(in["x"]); }
PARITY_CASE("round/bool-refused") { return kd::round(in["x"]); }
PARITY_CASE("trunc/bool-refused") { return kd::trunc(in["x"]); }
PARITY_CASE("sign/bool") { return kd::sign(in["x"]); }
PARITY_CASE("round/half-to-even") { return kd::round(in["x"]); }
PARITY_CASE("sign/nan-and-zeros") { return kd::sign(in["x"]); }
PARITY_CASE("log1p/tiny") { return kd::log1p(in["x"]); }
PARITY_CASE("expm1/tiny") { return kd::expm1(in["x"]); }

// ---- indexing with tensors (issue 18) ---------------------------------------------------------------
PARITY_CASE("index_select/dim0") { return in["x"].index_select(0, in["i"]); }
PARITY_CASE("index_select/dim1-transposed") { return in["x"].t().index_select(1, in["i"]); }
PARITY_CASE("index_select/0d-index") { return in["x"].index_select(-1, in["i"]); }
PARITY_CASE("index_select/empty-index") { return in["x"].index_select(1, in["i"]); }
PARITY_CASE("index_select/0d-self") { return in["x"].index_select(0, in["i"]); }
PARITY_CASE("index_select/int64-values") { return in["x"].index_select(0, in["i"]); }
PARITY_CASE("index_select/out-of-range") { return in["x"].index_select(0, in["i"]); }
PARITY_CASE("index_select/negative") { return in["x"].index_select(0, in["i"]); }
PARITY_CASE("index_select/2d-index") { return in["x"].index_select(0, in["i"]); }
PARITY_CASE("index_select/float-index") { return in["x"].index_select(0, in["i"]); }
PARITY_CASE("gather/dim1") { return in["x"].gather(1, in["i"]); }
PARITY_CASE("gather/dim0-wider") { return in["x"].gather(0, in["i"]); }
PARITY_CASE("gather/labels") { return in["x"].gather(1, in["t"].unsqueeze(1)); }
PARITY_CASE("gather/3d-transposed") { return in["x"].transpose(0, 2).gather(1, in["i"]); }
PARITY_CASE("gather/0d") { return in["x"].gather(0, in["i"]); }
PARITY_CASE("gather/empty") { return in["x"].gather(1, in["i"]); }
PARITY_CASE("gather/out-of-range") { return in["x"].gather(1, in["i"]); }
PARITY_CASE("gather/bad-rank") { return in["x"].gather(1, in["i"]); }
PARITY_CASE("gather/too-big") { return in["x"].gather(1, in["i"]); }
PARITY_CASE("gather/float-index") { return in["x"].gather(1, in["i"]); }
PARITY_CASE("scatter_add/dim0-repeats") { return in["x"].scatter_add(0, in["i"], in["s"]); }
PARITY_CASE("scatter_add/dim1-smaller-src-view") {
  return in["x"].scatter_add(1, in["i"], in["s"].index({Slice(), Slice(None, None, 2)}));
}
PARITY_CASE("scatter_add/int64") { return in["x"].scatter_add(1, in["i"], in["s"]); }
PARITY_CASE("scatter_add/dtype-mismatch") { return in["x"].scatter_add(0, in["i"], in["s"]); }
PARITY_CASE("scatter/src") { return in["x"].scatter(1, in["i"], in["s"]); }
PARITY_CASE("scatter/value") { return in["x"].scatter(1, in["i"], -7.5); }
PARITY_CASE("scatter/value-overflow") { return in["x"].scatter(0, in["i"], 300); }
PARITY_CASE("masked_fill/broadcast-mask") { return in["x"].masked_fill(in["m"], -1.0); }
PARITY_CASE("masked_fill/mask-broadcasts-self") { return in["x"].masked_fill(in["m"], 2.0); }
PARITY_CASE("masked_fill/int-truncates") { return in["x"].masked_fill(in["m"], 2.5); }
PARITY_CASE("masked_fill/transposed") { return in["x"].t().masked_fill(in["m"], 0.0); }
PARITY_CASE("masked_fill/overflow") { return in["x"].masked_fill(in["m"], 1e40); }
PARITY_CASE("masked_fill/attention-mask") {
  // the causal mask, built without triu (not in Kindling yet): column > row
  const Tensor r = kd::arange(3).unsqueeze(1), c = kd::arange(3).unsqueeze(0);
  return in["s"].masked_fill(c > r, -std::numeric_limits<double>::infinity());
}

// ---- tril/triu, flip, outer, any/all (issue 18) ----------------------------------------------------
PARITY_CASE("tril/basic") { return kd::tril(in["x"]); }
PARITY_CASE("tril/diagonal-batched") { return kd::tril(in["x"], -1); }
PARITY_CASE("triu/diagonal-transposed") { return kd::triu(in["x"].t(), 1); }
PARITY_CASE("triu/int64") { return kd::triu(in["x"]); }
PARITY_CASE("triu/empty") { return kd::triu(in["x"]); }
PARITY_CASE("tril/1d-refused") { return kd::tril(in["x"]); }
PARITY_CASE("flip/dim0") { return in["x"].flip({0}); }
PARITY_CASE("flip/dims-transposed") { return in["x"].t().flip({0, -1}); }
PARITY_CASE("flip/sliced") { return in["x"].index({Slice(), Slice(None, None, 2)}).flip({1}); }
PARITY_CASE("flip/bool") { return in["x"].flip({0}); }
PARITY_CASE("flip/empty") { return in["x"].flip({0}); }
PARITY_CASE("flip/0d") { return in["x"].flip({0}); }
PARITY_CASE("flip/repeated-dim") { return in["x"].flip({0, 0}); }
PARITY_CASE("outer/basic") { return kd::outer(in["a"], in["b"]); }
PARITY_CASE("outer/int-float") { return kd::outer(in["a"], in["b"]); }
PARITY_CASE("outer/matrix-refused") { return kd::outer(in["a"], in["b"]); }
PARITY_CASE("any/float") { return in["x"].any(); }
PARITY_CASE("any/none") { return in["x"].any(); }
PARITY_CASE("any/nan-counts") { return in["x"].any(); }
PARITY_CASE("any/dim-keepdim") { return in["x"].any(1, true); }
PARITY_CASE("all/dim") { return in["x"].all(0); }
PARITY_CASE("all/empty") { return in["x"].all(); }
PARITY_CASE("any/empty") { return in["x"].any(); }
PARITY_CASE("any/empty-dim") { return in["x"].any(1); }
PARITY_CASE("all/uint8-stays-uint8") { return in["x"].all(); }
PARITY_CASE("any/uint8-dim") { return in["x"].any(0); }
PARITY_CASE("all/0d") { return in["x"].all(0); }
