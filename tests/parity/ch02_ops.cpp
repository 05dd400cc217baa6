// The Kindling twin of every case in ch02_ops.py (values, gradients and refusals vs PyTorch).
#include <kindling/autograd.hpp>

#include <limits>

#include "parity.hpp"

namespace kd = kindling;
using kd::Tensor;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

// ---- ordering --------------------------------------------------------------------------------------
PARITY_CASE("sort/last-dim") { return in["x"].sort(); }
PARITY_CASE("sort/dim0-descending") { return in["x"].sort(0, true); }
PARITY_CASE("sort/transposed") { return in["x"].t().sort(1); }
PARITY_CASE("sort/nan-last") { return in["x"].sort(); }
PARITY_CASE("sort/nan-first-descending") { return in["x"].sort(-1, true); }
PARITY_CASE("sort/int64") { return in["x"].sort(-1, true); }
PARITY_CASE("sort/bool") { return in["x"].sort(); }
PARITY_CASE("sort/0d") { return in["x"].sort(); }
PARITY_CASE("sort/empty") { return in["x"].sort(1); }
PARITY_CASE("sort/bad-dim") { return in["x"].sort(2); }
PARITY_CASE("argsort/dim1") { return in["x"].argsort(1); }
PARITY_CASE("argsort/descending") { return in["x"].argsort(0, true); }
PARITY_CASE("topk/largest") { return in["x"].topk(2); }
PARITY_CASE("topk/smallest-dim0") { return in["x"].topk(3, 0, false); }
PARITY_CASE("topk/k0") { return in["x"].topk(0); }
PARITY_CASE("topk/k-too-big") { return in["x"].topk(4); }
PARITY_CASE("topk/k-negative") { return in["x"].topk(-1); }

// ---- more reductions ---------------------------------------------------------------------------
PARITY_CASE("amax/dims") { return in["x"].amax({0, 2}); }
PARITY_CASE("amax/keepdim-transposed") { return in["x"].t().amax({1}, true); }
PARITY_CASE("amax/all") { return in["x"].amax(); }
PARITY_CASE("amax/ties-share") { return in["x"].amax({1}); }
PARITY_CASE("amin/ties-share") { return in["x"].amin({0}); }
PARITY_CASE("amax/nan") { return in["x"].amax({1}); }
PARITY_CASE("amax/int64") { return in["x"].amax({0}); }
PARITY_CASE("amax/empty-dim") { return in["x"].amax({0}); }
PARITY_CASE("amax/empty-other-dim") { return in["x"].amax({1}); }
PARITY_CASE("prod/all") { return in["x"].prod(); }
PARITY_CASE("prod/dim") { return in["x"].prod(1); }
PARITY_CASE("prod/keepdim-transposed") { return in["x"].t().prod(0, true); }
PARITY_CASE("prod/one-zero") { return in["x"].prod(1); }
PARITY_CASE("prod/two-zeros") { return in["x"].prod(); }
PARITY_CASE("prod/int64") { return in["x"].prod(0); }
PARITY_CASE("prod/bool") { return in["x"].prod(); }
PARITY_CASE("prod/empty") { return in["x"].prod(0); }
PARITY_CASE("cumsum/dim1") { return in["x"].cumsum(1); }
PARITY_CASE("cumsum/dim0-transposed") { return in["x"].t().cumsum(0); }
PARITY_CASE("cumsum/uint8-to-int64") { return in["x"].cumsum(0); }
PARITY_CASE("cumsum/0d") { return in["x"].cumsum(0); }
PARITY_CASE("cumsum/empty") { return in["x"].cumsum(1); }
PARITY_CASE("cumsum/bad-dim") { return in["x"].cumsum(2); }
PARITY_CASE("cumprod/dim1") { return in["x"].cumprod(1); }
PARITY_CASE("cumprod/negative") { return in["x"].cumprod(0); }
PARITY_CASE("cumprod/zeros") { return in["x"].cumprod(1); }
PARITY_CASE("cumprod/int64") { return in["x"].cumprod(0); }
PARITY_CASE("logsumexp/dim") { return in["x"].logsumexp({1}); }
PARITY_CASE("logsumexp/large-values") { return in["x"].logsumexp({0}); }
PARITY_CASE("logsumexp/keepdim-dims") { return in["x"].transpose(0, 2).logsumexp({0, 1}, true); }
PARITY_CASE("logsumexp/neg-inf-row") { return in["x"].logsumexp({1}); }
PARITY_CASE("logsumexp/int64") { return in["x"].logsumexp({0}); }
PARITY_CASE("norm/2-all") { return in["x"].norm(); }
PARITY_CASE("norm/2-dim") { return in["x"].norm(2, {1}); }
PARITY_CASE("norm/2-at-zero") { return in["x"].norm(2, {1}); }
PARITY_CASE("norm/1-keepdim") { return in["x"].norm(1, {0}, true); }
PARITY_CASE("norm/inf") { return in["x"].norm(kInf, {1}); }
PARITY_CASE("norm/3") { return in["x"].t().norm(3, {0}); }
PARITY_CASE("norm/0") { return in["x"].norm(0); }
PARITY_CASE("norm/1.5-zeros") { return in["x"].norm(1.5, {1}); }
PARITY_CASE("norm/0.5-zeros") { return in["x"].norm(0.5); }
PARITY_CASE("norm/int-refused") { return in["x"].norm(); }

// ---- // and %, numbers on the left -----------------------------------------------------------
PARITY_CASE("floor_divide/float") { return kd::floor_divide(in["a"], in["b"]); }
PARITY_CASE("floor_divide/int64") { return kd::floor_divide(in["a"], in["b"]); }
PARITY_CASE("floor_divide/number-left") { return kd::floor_divide(7, in["b"]); }
PARITY_CASE("floor_divide/uint8-scalar") { return kd::floor_divide(in["a"], 3); }
PARITY_CASE("floor_divide/int-by-zero") { return kd::floor_divide(in["a"], 0); }
PARITY_CASE("floor_divide/bool") { return kd::floor_divide(in["a"], in["b"]); }
PARITY_CASE("remainder/float-grad") { return in["a"] % in["b"]; }
PARITY_CASE("remainder/broadcast-scalar") { return in["a"] % 1.5; }
PARITY_CASE("remainder/int64") { return in["a"] % in["b"]; }
PARITY_CASE("remainder/number-left") { return 7 % in["b"]; }
PARITY_CASE("remainder/int-by-zero") { return in["a"] % 0; }
PARITY_CASE("xlogy/grad") { return kd::xlogy(in["x"], in["y"]); }
PARITY_CASE("xlogy/zeros-and-nan") { return kd::xlogy(in["x"], in["y"]); }
PARITY_CASE("xlogy/same-tensor-zero") { return kd::xlogy(in["t"], in["t"]); }
PARITY_CASE("xlogy/broadcast-transposed") { return kd::xlogy(in["x"].t(), in["y"]); }
PARITY_CASE("xlogy/int64") { return kd::xlogy(in["x"], in["y"]); }
PARITY_CASE("xlogy/scalar-right") { return kd::xlogy(in["x"], 3.0); }
PARITY_CASE("xlogy/scalar-left") { return kd::xlogy(2, in["y"]); }
PARITY_CASE("compare/number-left") {
  const Tensor x = in["x"];
  return {2 < x, 2 <= x, 2 > x, 2 >= x, 2 == x, 2 != x};
}

// ---- split, chunk, repeat, roll, take_along_dim ---------------------------------------------------
PARITY_CASE("split/size") { return in["x"].split(2); }
PARITY_CASE("split/sizes-dim1") { return in["x"].split({1, 3}, 1); }
PARITY_CASE("split/bad-sizes") { return in["x"].split({1, 1}, 0); }
PARITY_CASE("split/zero-size") { return in["x"].split(0); }
PARITY_CASE("split/0d") { return in["x"].split(1); }
PARITY_CASE("chunk/uneven") { return in["x"].chunk(3); }
PARITY_CASE("chunk/fewer") { return in["x"].chunk(4, 1); }
PARITY_CASE("chunk/zero") { return in["x"].chunk(0); }
PARITY_CASE("repeat/2d") { return in["x"].repeat({2, 3}); }
PARITY_CASE("repeat/more-dims") { return in["x"].repeat({2, 1, 2}); }
PARITY_CASE("repeat/transposed") { return in["x"].t().repeat({1, 2}); }
PARITY_CASE("repeat/zero") { return in["x"].repeat({0, 2}); }
PARITY_CASE("repeat/too-few") { return in["x"].repeat({2}); }
PARITY_CASE("roll/flat") { return in["x"].roll({1}); }
PARITY_CASE("roll/dims") { return in["x"].roll({-4, 1}, {1, 0}); }
PARITY_CASE("roll/misaligned") { return in["x"].roll({1}, {0, 1}); }
PARITY_CASE("take_along_dim/argmax") { return kd::take_along_dim(in["x"], in["x"].argmax(1, true), 1); }
PARITY_CASE("take_along_dim/broadcast") { return kd::take_along_dim(in["x"], in["i"], 1); }
PARITY_CASE("take_along_dim/flat") { return kd::take_along_dim(in["x"], in["i"]); }
PARITY_CASE("take_along_dim/float-index") { return kd::take_along_dim(in["x"], in["i"], 1); }

// ---- einsum ----------------------------------------------------------------------------------
PARITY_CASE("einsum/matmul") { return kd::einsum("ij,jk->ik", {in["a"], in["b"]}); }
PARITY_CASE("einsum/bmm") { return kd::einsum("bij,bjk->bik", {in["a"], in["b"]}); }
PARITY_CASE("einsum/dot") { return kd::einsum("i,i->", {in["a"], in["b"]}); }
PARITY_CASE("einsum/outer") { return kd::einsum("i,j->ij", {in["a"], in["b"]}); }
PARITY_CASE("einsum/transpose") { return kd::einsum("ij->ji", {in["a"]}); }
PARITY_CASE("einsum/trace") { return kd::einsum("ii", {in["a"]}); }
PARITY_CASE("einsum/diagonal") { return kd::einsum("ii->i", {in["a"]}); }
PARITY_CASE("einsum/sum-rows") { return kd::einsum("ij->i", {in["a"]}); }
PARITY_CASE("einsum/implicit") { return kd::einsum("ij,jk", {in["a"], in["b"]}); }
PARITY_CASE("einsum/attention") { return kd::einsum("bhqd,bhkd->bhqk", {in["q"], in["k"]}); }
PARITY_CASE("einsum/ellipsis") { return kd::einsum("...ij,...jk->...ik", {in["a"], in["b"]}); }
PARITY_CASE("einsum/three") { return kd::einsum("ij,jk,kl->il", {in["a"], in["b"], in["c"]}); }
PARITY_CASE("einsum/bilinear") { return kd::einsum("bi,oij,bj->bo", {in["x"], in["w"], in["y"]}); }
PARITY_CASE("einsum/diagonal-bool") { return kd::einsum("ii->i", {in["a"]}); }
PARITY_CASE("einsum/diagonal-uint8") { return kd::einsum("ii->i", {in["a"]}); }
PARITY_CASE("einsum/outer-bool") { return kd::einsum("i,j->ij", {in["a"], in["b"]}); }
PARITY_CASE("einsum/outer-uint8") { return kd::einsum("i,j->ij", {in["a"], in["b"]}); }
PARITY_CASE("einsum/batch-outer-int64") { return kd::einsum("bi,bj->bij", {in["a"], in["b"]}); }
PARITY_CASE("einsum/sum-rows-uint8") { return kd::einsum("ij->i", {in["a"]}); }
PARITY_CASE("einsum/size-mismatch") { return kd::einsum("ij,jk->ik", {in["a"], in["b"]}); }
PARITY_CASE("einsum/too-few-terms") { return kd::einsum("ij->ij", {in["a"], in["b"]}); }
PARITY_CASE("einsum/unknown-output") { return kd::einsum("ij->k", {in["a"]}); }

// ---- advanced indexing: masks and position tensors --------------------------------------------
namespace {
using kd::indexing::Ellipsis;
using kd::indexing::None;
using kd::indexing::Slice;

Tensor put(const Tensor& x, std::initializer_list<kd::indexing::TensorIndex> idx, const Tensor& v) {
  Tensor y = x.detach().clone();
  y.index_put_(idx, v);
  return y;
}
Tensor put(const Tensor& x, std::initializer_list<kd::indexing::TensorIndex> idx, kd::Scalar v) {
  Tensor y = x.detach().clone();
  y.index_put_(idx, v);
  return y;
}
}  // namespace

PARITY_CASE("index/mask") { return in["x"].index({in["x"] > 0}); }
PARITY_CASE("index/mask-rows") { return in["x"].index({in["m"]}); }
PARITY_CASE("index/mask-after-slice") { return in["x"].index({Slice(), in["m"]}); }
PARITY_CASE("index/mask-2d-of-3d") { return in["x"].index({in["m"]}); }
PARITY_CASE("index/mask-uint8") { return in["x"].index({in["m"]}); }
PARITY_CASE("index/mask-true-0d") { return in["x"].index({kd::scalar_tensor(true, {.dtype = kd::kBool})}); }
PARITY_CASE("index/mask-bad-shape") { return in["x"].index({in["m"]}); }
PARITY_CASE("index/positions") { return in["x"].index({in["i"]}); }
PARITY_CASE("index/positions-2d") { return in["x"].index({Slice(), in["i"]}); }
PARITY_CASE("index/two-adjacent") { return in["x"].index({Slice(), in["i"], in["j"]}); }
PARITY_CASE("index/separated-go-first") { return in["x"].index({in["i"], Slice(), in["j"]}); }
PARITY_CASE("index/int-then-positions") { return in["x"].index({0, Slice(), in["i"]}); }
PARITY_CASE("index/none-and-positions") { return in["x"].index({None, in["i"]}); }
PARITY_CASE("index/ellipsis-positions") { return in["x"].index({Ellipsis, in["i"]}); }
PARITY_CASE("index/0d-position") { return in["x"].index({in["i"]}); }
PARITY_CASE("index/empty-positions") { return in["x"].index({in["i"]}); }
PARITY_CASE("index/transposed-source") { return in["x"].t().index({in["i"]}); }
PARITY_CASE("index/out-of-range") { return in["x"].index({in["i"]}); }
PARITY_CASE("index/float-positions") { return in["x"].index({in["i"]}); }
PARITY_CASE("index_put/mask-scalar") { return put(in["x"], {in["x"] > 0}, 0.0); }
PARITY_CASE("index_put/mask-tensor") { return put(in["x"], {in["x"] < 0}, in["v"]); }
PARITY_CASE("index_put/positions-broadcast") { return put(in["x"], {Slice(), in["i"]}, in["v"]); }
PARITY_CASE("index_put/two-positions") { return put(in["x"], {in["i"], in["j"]}, in["v"]); }
PARITY_CASE("index_put/rows") { return put(in["x"], {in["i"]}, 5.0); }
PARITY_CASE("index_put/bad-value-shape") { return put(in["x"], {in["i"]}, in["v"]); }
PARITY_CASE("nonzero/2d") { return kd::nonzero(in["x"]); }
PARITY_CASE("nonzero/empty") { return kd::nonzero(in["x"]); }
PARITY_CASE("prod/int64-wraps") { return in["x"].prod(); }
PARITY_CASE("cumsum/int64-wraps") { return in["x"].cumsum(0); }
