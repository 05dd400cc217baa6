// The Kindling twin of every case in ch02_edges.py (edge cases where PyTorch computes).
#include <kindling/autograd.hpp>

#include "parity.hpp"

namespace kd = kindling;
using kd::Tensor;
using kd::indexing::Slice;

namespace {
/// dy/dx with create_graph=true: the result can be differentiated again.
Tensor grad_of(const Tensor& y, const Tensor& x) {
  return kd::autograd::grad({y}, {x}, {}, {.create_graph = true})[0];
}
Tensor expanded(const Tensor& x) { return x.detach().clone().expand({3, 4}); }
Tensor put(const Tensor& x, std::vector<kd::indexing::TensorIndex> idx, const Tensor& v) {
  Tensor y = x.detach().clone();
  y.index_put_(idx, v);
  return y;
}
}  // namespace

// ---- a contracted size of 0 ---------------------------------------------------------------------------
PARITY_CASE("matmul/batched-k0") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/broadcast-k0") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/vector-k0") { return in["a"].matmul(in["b"]); }
PARITY_CASE("matmul/k0-then-sum") { return in["a"].matmul(in["b"]).sum() + in["a"].sum(); }

// ---- 16-bit gradients through indexing ------------------------------------------------------------------
#define INDEX_GRAD_CASES(tag)                                                                         \
  PARITY_CASE(tag "/mask-index-grad") { return in["x"].index({in["m"]}) * 2; }                        \
  PARITY_CASE(tag "/int-index-grad") { return in["x"].index({in["i"]}); }                             \
  PARITY_CASE(tag "/index-select-grad") { return in["x"].index_select(1, in["i"]); }
INDEX_GRAD_CASES("half")
INDEX_GRAD_CASES("bfloat16")
#undef INDEX_GRAD_CASES

// ---- double backward: piecewise-constant derivatives --------------------------------------------------
PARITY_CASE("double/remainder") { return grad_of((kd::remainder(in["x"], in["b"]) * in["x"]).sum(), in["x"]); }
PARITY_CASE("double/remainder-other") { return grad_of(kd::remainder(in["x"], in["b"]).sum(), in["b"]); }
PARITY_CASE("double/relu") { return grad_of(in["x"].relu().sum(), in["x"]); }
PARITY_CASE("double/abs") { return grad_of(in["x"].abs().sum(), in["x"]); }
PARITY_CASE("double/clamp") { return grad_of(in["x"].clamp(-0.5, 0.5).sum(), in["x"]); }
PARITY_CASE("double/relu-times-w") { return grad_of((in["x"].relu() * in["w"]).sum(), in["x"]); }

// ---- writes into an expanded view ------------------------------------------------------------------------
PARITY_CASE("inplace/fill-expanded") { return expanded(in["x"]).fill_(2.5).clone(); }
PARITY_CASE("inplace/zero-expanded") { return expanded(in["x"]).zero_().clone(); }
PARITY_CASE("inplace/add-expanded") { return expanded(in["x"]).add_(1); }
PARITY_CASE("inplace/mul-expanded") { return expanded(in["x"]).mul_(in["x"]); }
PARITY_CASE("inplace/clamp-expanded") { return expanded(in["x"]).clamp_(-0.5, 0.5); }
PARITY_CASE("inplace/copy-expanded") { return expanded(in["x"]).copy_(kd::ones({3, 4})); }
PARITY_CASE("inplace/add-empty-expanded") { return in["x"].detach().expand({3, 0}).add_(1); }

// ---- index_put_ --------------------------------------------------------------------------------------------
PARITY_CASE("index-put/value-leading-ones") { return put(in["x"], {in["i"]}, in["v"]); }
PARITY_CASE("index-put/mask-value-leading-ones") { return put(in["x"], {in["m"]}, in["v"]); }
PARITY_CASE("index-put/two-indices-leading-ones") { return put(in["x"], {in["i"], in["j"]}, in["v"]); }
PARITY_CASE("index-put/value-extra-dim-not-one") { return put(in["x"], {in["i"]}, in["v"]); }
PARITY_CASE("index-put/out-of-range-broadcast-to-empty") {
  return put(in["x"], {in["i"], in["j"]}, kd::scalar_tensor(1.0));
}
PARITY_CASE("index-put/out-of-range-nonempty") { return put(in["x"], {in["i"]}, kd::scalar_tensor(1.0)); }
PARITY_CASE("index/out-of-range-broadcast-to-empty") { return in["x"].index({in["i"], in["j"]}); }
PARITY_CASE("index-put/value-other-dtype") { return put(in["x"], {in["i"]}, in["v"]); }
PARITY_CASE("index-put/0d-value-other-dtype") { return put(in["x"], {in["i"]}, in["v"]); }
PARITY_CASE("index-put/mask-one-value-other-dtype") { return put(in["x"], {in["m"]}, in["v"]); }
PARITY_CASE("index-put/mask-values-other-dtype") { return put(in["x"], {in["m"]}, in["v"]); }
PARITY_CASE("index-put/slice-value-other-dtype") { return put(in["x"], {Slice(1, 3)}, in["v"]); }

// ---- dtype checks skipped when there is nothing to read ----------------------------------------------------
PARITY_CASE("gather/empty-float-index") { return in["x"].gather(1, in["i"]); }
PARITY_CASE("gather/float-index") { return in["x"].gather(1, in["i"]); }
PARITY_CASE("scatter-add/empty-float-index") { return in["x"].scatter_add(1, in["i"], in["s"]); }
PARITY_CASE("masked-fill/empty-int64-mask") { return in["x"].masked_fill(in["m"], 1.0); }

// ---- NaN through the gradients of max, min, maximum, minimum and relu ---------------------------------------
PARITY_CASE("nan/max-all-grad") { return in["x"].max(); }
PARITY_CASE("nan/min-all-grad-float64") { return in["x"].min(); }
PARITY_CASE("nan/min-all-transposed-grad") { return in["x"].t().min(); }
PARITY_CASE("nan/max-all-ties-grad") { return in["x"].max(); }
PARITY_CASE("nan/maximum-grad") { return kd::maximum(in["a"], in["b"]); }
PARITY_CASE("nan/minimum-broadcast-grad") { return kd::minimum(in["a"], in["b"]); }
PARITY_CASE("nan/maximum-double-backward") {
  return grad_of((kd::maximum(in["a"], in["b"]) * in["a"]).sum(), in["a"]);
}
PARITY_CASE("nan/relu-grad") { return in["x"].relu(); }
PARITY_CASE("nan/relu-grad-float64-strided") { return in["x"].slice(0, 0, 7, 2).relu(); }
PARITY_CASE("nan/relu-grad-bfloat16") { return in["x"].relu(); }
PARITY_CASE("nan/relu-double-backward") { return grad_of((in["x"].relu() * in["x"]).sum(), in["x"]); }
