// mm / matmul: every rank combination against a naive triple loop, transposed views without copies
// (counted with the allocation meter), broadcasting of batch dims, dtypes and error messages.
#include <catch2/catch.hpp>
#include <kindling/tensor.hpp>

#include "math_helpers.hpp"

namespace kd = kindling;
using Catch::Contains;
using kd::testing::close;
using kd::testing::sample;
using kd::testing::values;

namespace {
/// Naive [M, K] · [K, N] in float64 over the values of two 2-D tensors.
std::vector<double> naive_mm(const kd::Tensor& a, const kd::Tensor& b) {
  const auto va = values(a), vb = values(b);
  const std::int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  std::vector<double> c(M * N, 0.0);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j)
      for (std::int64_t k = 0; k < K; ++k) c[i * N + j] += va[i * K + k] * vb[k * N + j];
  return c;
}

/// Expected torch.matmul of batched operands (both at least 2-D): naive_mm per broadcast batch index.
std::vector<double> naive_batched(const kd::Tensor& a, const kd::Tensor& b) {
  const kd::Shape abatch(a.shape().begin(), a.shape().end() - 2), bbatch(b.shape().begin(), b.shape().end() - 2);
  const kd::Shape batch = kd::broadcast_shapes(abatch, bbatch);
  kd::Shape ashape = batch, bshape = batch;
  ashape.push_back(a.size(-2));
  ashape.push_back(a.size(-1));
  bshape.push_back(b.size(-2));
  bshape.push_back(b.size(-1));
  const kd::Tensor ae = a.expand(ashape).reshape({-1, a.size(-2), a.size(-1)});
  const kd::Tensor be = b.expand(bshape).reshape({-1, b.size(-2), b.size(-1)});
  std::vector<double> out;
  for (std::int64_t i = 0; i < ae.size(0); ++i) {
    const auto c = naive_mm(ae[i], be[i]);
    out.insert(out.end(), c.begin(), c.end());
  }
  return out;
}
}  // namespace

TEST_CASE("mm: all transpose combinations and sliced operands match a naive loop") {
  const std::int64_t M = 5, K = 7, N = 3;
  const std::vector<kd::Tensor> as = {sample({M, K}), sample({K, M}).t(), sample({2 * M, K}).slice(0, 0, 2 * M, 2),
                                      sample({M, 2 * K}).slice(1, 0, 2 * K, 2), sample({K, 2 * M}).t().slice(0, 1, 2 * M, 2)};
  const std::vector<kd::Tensor> bs = {sample({K, N}), sample({N, K}).t(), sample({K, 3 * N}).slice(1, 0, 3 * N, 3)};
  for (std::size_t i = 0; i < as.size(); ++i)
    for (std::size_t j = 0; j < bs.size(); ++j) {
      INFO("a #" << i << " strides " << kd::shape_str(as[i].strides()) << ", b #" << j << " strides "
                 << kd::shape_str(bs[j].strides()));
      const kd::Tensor c = kd::mm(as[i], bs[j]);
      CHECK(c.shape() == kd::Shape{M, N});
      CHECK(c.dtype() == kd::kFloat32);
      CHECK(close(values(c), naive_mm(as[i], bs[j]), 1e-5, 1e-5));
      CHECK(close(values(as[i].matmul(bs[j])), values(c), 0, 0));
    }
}

TEST_CASE("mm: a transposed view is multiplied without a copy") {
  const kd::Tensor x = sample({32, 784}), w = sample({128, 784});
  const auto before = kd::memory::allocation_count();
  const kd::Tensor y = x.mm(w.t());  // [32, 784] · [784, 128]
  CHECK(kd::memory::allocation_count() - before == 1);  // only the result
  CHECK(y.shape() == kd::Shape{32, 128});
  CHECK(close(values(y), naive_mm(x, w.t()), 1e-4, 1e-4));
  const auto b2 = kd::memory::allocation_count();
  const kd::Tensor z = kd::matmul(x.t().t(), w.t());
  CHECK(kd::memory::allocation_count() - b2 == 1);
  // A batched input times a transposed weight is folded into one GEMM, still without copies.
  const kd::Tensor seq = sample({4, 8, 784});
  const auto b3 = kd::memory::allocation_count();
  const kd::Tensor s = kd::matmul(seq, w.t());
  CHECK(kd::memory::allocation_count() - b3 == 1);
  CHECK(s.shape() == kd::Shape{4, 8, 128});
  CHECK(close(values(s), naive_batched(seq, w.t()), 1e-4, 1e-4));
  // Batched transposed matrices.
  const kd::Tensor bt = sample({4, 5, 784}).transpose(1, 2);  // [4, 784, 5]
  const auto b4 = kd::memory::allocation_count();
  const kd::Tensor r = kd::matmul(seq, bt);
  CHECK(kd::memory::allocation_count() - b4 == 1);
  CHECK(close(values(r), naive_batched(seq, bt), 1e-4, 1e-4));
}

TEST_CASE("matmul: vectors — dot, matrix-vector, vector-matrix") {
  const kd::Tensor v = sample({6}), w = sample({12}).slice(0, 0, 12, 2), m = sample({4, 6}), n = sample({6, 3});
  const kd::Tensor d = kd::matmul(v, w);
  CHECK(d.dim() == 0);
  double dot = 0;
  for (int i = 0; i < 6; ++i) dot += values(v)[i] * values(w)[i];
  CHECK(d.item<double>() == Approx(dot).epsilon(1e-5));
  const kd::Tensor mv = kd::matmul(m, w);
  CHECK(mv.shape() == kd::Shape{4});
  CHECK(close(values(mv), naive_mm(m, w.unsqueeze(1)), 1e-5, 1e-5));
  const kd::Tensor vm = kd::matmul(v, n);
  CHECK(vm.shape() == kd::Shape{3});
  CHECK(close(values(vm), naive_mm(v.unsqueeze(0), n), 1e-5, 1e-5));
  const kd::Tensor mtv = kd::matmul(sample({6, 4}).t(), kd::ones({1}).expand({6}));  // stride-0 vector
  CHECK(close(values(mtv), naive_mm(sample({6, 4}).t(), kd::ones({6, 1})), 1e-5, 1e-5));
}

TEST_CASE("matmul: batched with broadcasting of batch dims and 1-D operands") {
  struct Case { kd::Shape a, b, out; };
  const std::vector<Case> cases = {{{2, 1, 3, 4}, {5, 4, 2}, {2, 5, 3, 2}},
                                   {{3, 4}, {2, 4, 5}, {2, 3, 5}},
                                   {{2, 3, 4}, {4, 5}, {2, 3, 5}},
                                   {{1, 3, 4}, {2, 4, 5}, {2, 3, 5}},
                                   {{2, 3, 4}, {4}, {2, 3}},
                                   {{4}, {2, 4, 5}, {2, 5}}};
  for (const auto& c : cases) {
    INFO(kd::shape_str(c.a) << " @ " << kd::shape_str(c.b));
    const kd::Tensor a = sample(c.a), b = sample(c.b);
    const kd::Tensor r = kd::matmul(a, b);
    CHECK(r.shape() == c.out);
    const kd::Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a, b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
    CHECK(close(values(r), naive_batched(a2, b2), 1e-5, 1e-5));
  }
  // Non-contiguous batch: every other matrix of a stack, and a permuted stack.
  const kd::Tensor a = sample({6, 3, 4}).slice(0, 0, 6, 2), b = sample({4, 3, 5}).permute({1, 0, 2});
  CHECK(close(values(kd::matmul(a, b)), naive_batched(a, b), 1e-5, 1e-5));
}

TEST_CASE("matmul: float64, int64 and uint8") {
  const kd::Tensor a = sample({3, 4}, kd::kFloat64), b = sample({5, 4}, kd::kFloat64).t();
  CHECK(kd::mm(a, b).dtype() == kd::kFloat64);
  CHECK(close(values(kd::mm(a, b)), naive_mm(a, b), 1e-12, 1e-12));
  const kd::Tensor i = kd::arange(12).reshape({3, 4}), j = kd::arange(8).reshape({2, 4}).t() - 3;
  CHECK(kd::mm(i, j).dtype() == kd::kInt64);
  CHECK(values(kd::mm(i, j)) == naive_mm(i, j));
  CHECK(values(kd::matmul(kd::arange(24).reshape({2, 3, 4}), kd::arange(4))) ==
        naive_batched(kd::arange(24).reshape({2, 3, 4}), kd::arange(4).unsqueeze(1)));
  const kd::Tensor u = kd::arange(1, 4).to(kd::kUInt8).view({3, 1});
  CHECK(kd::mm(u, u.t()).dtype() == kd::kUInt8);
  CHECK(values(kd::mm(u, u.t())) == naive_mm(u, u.t()));
}

TEST_CASE("matmul: empty dimensions") {
  const kd::Tensor z = kd::mm(kd::ones({3, 0}), kd::ones({0, 2}));  // K = 0: a sum of nothing
  CHECK(z.shape() == kd::Shape{3, 2});
  CHECK(values(z) == std::vector<double>(6, 0.0));
  CHECK(kd::mm(kd::ones({0, 4}), kd::ones({4, 2})).shape() == kd::Shape{0, 2});
  CHECK(kd::matmul(kd::ones({0, 3, 4}), kd::ones({4, 2})).shape() == kd::Shape{0, 3, 2});
  CHECK(kd::matmul(kd::ones({0}), kd::ones({0})).item<double>() == 0.0);
}

TEST_CASE("matmul: error messages name shapes and suggest a fix") {
  const kd::Tensor x = kd::zeros({32, 784}), w = kd::zeros({128, 784});
  CHECK_THROWS_AS(kd::matmul(x, w), kd::ShapeError);
  CHECK_THROWS_WITH(kd::matmul(x, w),
                    Contains("matmul: shapes [32, 784] and [128, 784] cannot be multiplied (784 != 128). Did you mean w.t()?"));
  CHECK_THROWS_WITH(kd::mm(x, kd::zeros({10, 5})), Contains("mm: shapes [32, 784] and [10, 5]") && Contains("784 != 10"));
  CHECK_THROWS_WITH(kd::matmul(kd::zeros({3}), kd::zeros({4})), Contains("3") && Contains("4"));
  CHECK_THROWS_AS(kd::matmul(kd::zeros({3}), kd::zeros({4})), kd::ShapeError);
  CHECK_THROWS_AS(kd::mm(kd::zeros({3}), kd::zeros({3, 3})), kd::ShapeError);
  CHECK_THROWS_WITH(kd::mm(kd::zeros({3}), kd::zeros({3, 3})), Contains("2-D") && Contains("matmul"));
  CHECK_THROWS_AS(kd::matmul(kd::full({}, 1.0), kd::zeros({3})), kd::ShapeError);
  CHECK_THROWS_AS(kd::mm(kd::zeros({2, 2}), kd::zeros({2, 2}, {.dtype = kd::kFloat64})), kd::DTypeError);
  CHECK_THROWS_WITH(kd::mm(kd::zeros({2, 2}), kd::zeros({2, 2}, {.dtype = kd::kFloat64})),
                    Contains("float32") && Contains("float64"));
  CHECK_THROWS_AS(kd::mm(kd::zeros({2, 2}) > 0, kd::zeros({2, 2}) > 0), kd::DTypeError);
  CHECK_THROWS_AS(kd::matmul(kd::zeros({2, 3, 4}), kd::zeros({3, 4, 5})), kd::ShapeError);  // batch 2 vs 3
}

TEST_CASE("matmul: records mm with both inputs; matmul as PyTorch composes it") {
  using kd::testing::ref;
  kd::testing::RecordCapture cap;
  const kd::Tensor a = kd::testing::needs_grad(sample({2, 3})), b = sample({3, 4});
  (void)kd::mm(a, b);
  CHECK(cap.last().op == "mm");
  CHECK(cap.last().args == ref(a) + ", " + ref(b));
  const kd::Tensor bt = sample({4, 3}).t();
  (void)a.matmul(bt);
  CHECK(cap.last().op == "mm");
  CHECK(cap.last().args == ref(a) + ", " + ref(bt));  // the original view, not an internal copy
  // [3] @ [3, 4]: unsqueeze(0), mm, then the in-place squeeze_ that names PyTorch's top node.
  cap.records.clear();
  (void)kd::testing::needs_grad(sample({3})).matmul(b);
  REQUIRE(cap.records.size() == 3);
  CHECK(cap.records[0].op == "unsqueeze");
  CHECK(cap.records[1].op == "mm");
  CHECK(cap.records[2].op == "squeeze_");
  // Batched: expand, reshape, bmm, _unsafe_view.
  cap.records.clear();
  (void)kd::testing::needs_grad(sample({5, 2, 3})).matmul(sample({5, 3, 4}));
  std::vector<std::string> ops;
  for (const auto& r : cap.records) ops.push_back(r.op);
  CHECK(ops == std::vector<std::string>{"expand", "reshape_alias", "bmm", "unsafe_view"});
  // Nothing requires grad: the general kernel runs, nothing is recorded.
  cap.records.clear();
  (void)sample({5, 2, 3}).matmul(sample({5, 3, 4}));
  CHECK(cap.records.empty());
}

TEST_CASE("mm: the layers' sizes (the oneDNN range of gemm.cpp) match a naive loop in every layout") {
  // 40 x 50 x 30 = 60,000 multiply-adds: above the size where gemm.cpp leaves OpenBLAS (when Kindling
  // is built with oneDNN); transposed views and slices with a leading dimension bigger than a row.
  const std::int64_t M = 40, K = 50, N = 30;
  const std::vector<kd::Tensor> as = {sample({M, K}), sample({K, M}).t(), sample({M, 2 * K}).slice(1, 0, K),
                                      sample({K, M + 3}).t().slice(0, 0, M)};
  const std::vector<kd::Tensor> bs = {sample({K, N}), sample({N, K}).t(), sample({K, N + 5}).slice(1, 2, N + 2)};
  for (std::size_t i = 0; i < as.size(); ++i)
    for (std::size_t j = 0; j < bs.size(); ++j) {
      INFO("a #" << i << " strides " << kd::shape_str(as[i].strides()) << ", b #" << j << " strides "
                 << kd::shape_str(bs[j].strides()));
      CHECK(close(values(kd::mm(as[i], bs[j])), naive_mm(as[i], bs[j]), 1e-4, 1e-4));
    }
}

TEST_CASE("set_num_threads: refuses counts below 1, and products agree on any count") {
  const int before = kd::get_num_threads();
  CHECK_THROWS_AS(kd::set_num_threads(0), kd::ValueError);
  CHECK_THROWS_WITH(kd::set_num_threads(-2), Contains("set_num_threads") && Contains("at least 1"));
  const kd::Tensor a = sample({64, 96}), b = sample({96, 48});
  kd::set_num_threads(1);
  CHECK(kd::get_num_threads() == 1);
  const kd::Tensor one = kd::mm(a, b);
  kd::set_num_threads(2);
  CHECK(kd::get_num_threads() == 2);
  CHECK(close(values(kd::mm(a, b)), values(one), 1e-5, 1e-5));
  kd::set_num_threads(before > 0 ? before : 1);
}
