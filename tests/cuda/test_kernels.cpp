// The chapter's kernels, every version, against the library's CPU operations, on the kernel
// emulator (the same sources run on a GPU in tests/cuda/test_device.cpp when one is present).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "kindling/cuda/emulator.hpp"  // KernelError
#include "kindling/cuda/kernels.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/optim/adam.hpp"
#include "kindling/tensor.hpp"
#include "kindling/train/losses.hpp"

namespace kd = kindling;
namespace emu = kindling::cuda::emulated;
using kindling::cuda::BinaryLayout;
using kindling::cuda::BinaryOp;

namespace {

// Elements of t's storage from its first element on: what a kernel may read through t's strides.
std::int64_t readable(const kd::Tensor& t) {
  return static_cast<std::int64_t>(t.storage()->nbytes() / sizeof(float)) - t.storage_offset();
}

// The layout of `a op b` broadcast to `shape`, from the strides of the expanded views.
BinaryLayout layout_of(const kd::Tensor& a, const kd::Tensor& b, const kd::Shape& shape) {
  BinaryLayout L;
  L.ndim = static_cast<int>(shape.size());
  const kd::Tensor ea = a.expand(shape), eb = b.expand(shape);
  for (int d = 0; d < L.ndim; ++d) {
    L.sizes[d] = shape[static_cast<std::size_t>(d)];
    L.a_strides[d] = ea.stride(d);
    L.b_strides[d] = eb.stride(d);
  }
  return L;
}

void require_close(const std::vector<float>& got, const std::vector<float>& want, double rtol,
                   double atol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    REQUIRE(std::abs(double(got[i]) - double(want[i])) <= atol + rtol * std::abs(double(want[i])));
  }
}

}  // namespace

TEST_CASE("kernels: elementwise ops with broadcasting, transposed and offset inputs match the CPU") {
  kd::manual_seed(1);
  const kd::Tensor a = kd::randn({4, 1, 6});
  const kd::Tensor big = kd::randn({6, 5});
  const kd::Tensor b = big.slice(1, 1, 4).t();  // [3, 6], non-contiguous, storage offset 1
  REQUIRE(!b.is_contiguous());
  REQUIRE(b.storage_offset() == 1);
  const kd::Shape shape{4, 3, 6};
  const BinaryLayout L = layout_of(a, b, shape);
  const std::pair<BinaryOp, kd::Tensor> cases[] = {
      {BinaryOp::Add, a + b}, {BinaryOp::Sub, a - b}, {BinaryOp::Mul, a * b}, {BinaryOp::Div, a / b}};
  for (const auto& [op, want] : cases) {
    std::vector<float> out(72, NAN);
    emu::binary(op, a.data_ptr<float>(), readable(a), b.data_ptr<float>(), readable(b), out.data(),
                72, L);
    REQUIRE(out == want.contiguous().to_vector<float>());  // one float op per element: exact
  }
  // A 0-d scalar broadcast over everything, and an empty output.
  const kd::Tensor s = kd::scalar_tensor(2.5);
  const BinaryLayout Ls = layout_of(a, s, {4, 1, 6});
  std::vector<float> out(24);
  emu::binary(BinaryOp::Mul, a.data_ptr<float>(), readable(a), s.data_ptr<float>(), 1, out.data(),
              24, Ls);
  REQUIRE(out == (a * s).contiguous().to_vector<float>());
  emu::binary(BinaryOp::Add, nullptr, 0, nullptr, 0, nullptr, 0, BinaryLayout{});
}

TEST_CASE("kernels: a layout that reads past an input is caught by the emulator") {
  std::vector<float> a(6, 1.0f), b(6, 1.0f), out(12);
  BinaryLayout L;
  L.ndim = 2;
  L.sizes[0] = 2;
  L.sizes[1] = 6;
  L.a_strides[0] = 6;  // wrong: `a` holds one row of 6, not 2
  L.a_strides[1] = 1;
  L.b_strides[1] = 1;
  REQUIRE_THROWS_WITH(emu::binary(BinaryOp::Add, a.data(), 6, b.data(), 6, out.data(), 12, L),
                      Catch::Matchers::Contains("reads a[6], outside its 6 elements"));
}

TEST_CASE("kernels: sum v1 (shared-memory tree) and v2 (warp shuffles) match a float64 sum") {
  kd::manual_seed(2);
  for (std::int64_t n : {0, 1, 255, 257, 20000}) {
    const kd::Tensor x = kd::randn({n});
    const std::vector<float> v = x.to_vector<float>();
    double want = 0;
    for (float f : v) want += f;
    for (auto fn : {emu::sum_v1, emu::sum_v2}) {
      float out = 0.0f;
      fn(v.data(), n, &out);
      INFO("n = " << n);
      REQUIRE(std::abs(out - want) <= 1e-5 * std::sqrt(double(n) + 1) * 4);
    }
  }
}

TEST_CASE("kernels: softmax over rows matches nn::functional::softmax") {
  kd::manual_seed(3);
  for (auto [rows, cols] : {std::pair{5, 300}, std::pair{3, 7}, std::pair{1, 1}}) {
    const kd::Tensor x = kd::randn({rows, cols}) * kd::scalar_tensor(10.0);
    std::vector<float> out(static_cast<std::size_t>(rows * cols));
    emu::softmax_rows(x.data_ptr<float>(), out.data(), rows, cols);
    require_close(out, kd::nn::functional::softmax(x, 1).to_vector<float>(), 1e-5, 1e-7);
  }
}

TEST_CASE("kernels: cross-entropy per row matches nn::functional::cross_entropy") {
  kd::manual_seed(4);
  const int rows = 6, classes = 10;
  const kd::Tensor logits = kd::randn({rows, classes}) * kd::scalar_tensor(3.0);
  std::vector<std::int64_t> target = {0, 9, 3, 3, 7, 1};
  std::vector<float> loss(rows);
  emu::cross_entropy_rows(logits.data_ptr<float>(), target.data(), loss.data(), rows, classes);
  const kd::Tensor want = kd::nn::functional::cross_entropy(
      logits, kd::tensor(target, {rows}), {.reduction = kd::nn::Reduction::None});
  require_close(loss, want.to_vector<float>(), 1e-5, 1e-6);
  target[2] = 10;  // out of range: the kernel's check stops the launch
  REQUIRE_THROWS_WITH(
      emu::cross_entropy_rows(logits.data_ptr<float>(), target.data(), loss.data(), rows, classes),
      Catch::Matchers::Contains("a target is outside [0, classes)") &&
          Catch::Matchers::Contains("block (2, 0, 0)"));
}

TEST_CASE("kernels: ReLU and its gradient match kd::relu and autograd, zeros included") {
  kd::manual_seed(11);
  // 1000 elements: four blocks of 256 with a partial last one; exact zeros test the x == 0 case.
  kd::Tensor x = kd::randn({1000});
  x.index_put_({kd::indexing::Slice(0, 10)}, 0.0);
  x.requires_grad_();
  const kd::Tensor g = kd::randn({1000});
  const kd::Tensor y = kd::relu(x);
  y.backward(g);
  const std::vector<float> xs = x.detach().to_vector<float>();
  std::vector<float> out(1000, NAN), dx(1000, NAN);
  emu::relu(xs.data(), out.data(), 1000);
  emu::relu_backward(g.data_ptr<float>(), xs.data(), dx.data(), 1000);
  REQUIRE(out == y.detach().to_vector<float>());  // a comparison and a copy: the same bits
  REQUIRE(dx == x.grad().to_vector<float>());
  emu::relu(xs.data(), out.data(), 0);  // n == 0 launches nothing
}

TEST_CASE("kernels: the column sum matches kd::sum over dim 0, for shapes that are not block multiples") {
  kd::manual_seed(12);
  for (auto [rows, cols] : {std::pair{64, 128}, std::pair{1, 1}, std::pair{37, 300}, std::pair{0, 5},
                            std::pair{5, 0}}) {
    const kd::Tensor x = kd::randn({rows, cols});
    std::vector<float> out(static_cast<std::size_t>(cols), NAN);
    emu::column_sum(x.data_ptr<float>(), out.data(), rows, cols);
    INFO("rows, cols = " << rows << ", " << cols);
    require_close(out, x.sum(0).to_vector<float>(), 1e-5, 1e-5 * (rows + 1));
  }
}

TEST_CASE("kernels: matmul v1, v2 and v3 match kd::matmul for shapes that are not tile multiples") {
  kd::manual_seed(5);
  for (auto [M, N, K] : {std::tuple{70, 90, 50}, std::tuple{1, 1, 1}, std::tuple{64, 64, 64},
                         std::tuple{130, 3, 17}, std::tuple{5, 7, 0}}) {
    const kd::Tensor a = kd::randn({M, K}), b = kd::randn({K, N});
    const std::vector<float> want = kd::matmul(a, b).contiguous().to_vector<float>();
    for (auto fn : {emu::matmul_v1, emu::matmul_v2, emu::matmul_v3}) {
      std::vector<float> c(static_cast<std::size_t>(M * N), NAN);
      fn(a.data_ptr<float>(), b.data_ptr<float>(), c.data(), M, N, K);
      INFO("M, N, K = " << M << ", " << N << ", " << K);
      require_close(c, want, 1e-5, 1e-5 * (K + 1));
    }
  }
}

TEST_CASE("kernels: the fused Adam step matches optim::Adam over three steps") {
  kd::manual_seed(6);
  const std::int64_t n = 1000;
  kd::Tensor p = kd::randn({n});
  p.requires_grad_();
  std::vector<float> mine = p.to_vector<float>(), m(n, 0.0f), v(n, 0.0f);
  const kd::optim::AdamOptions o{.lr = 1e-2, .betas = {0.9, 0.99}, .eps = 1e-8, .weight_decay = 0.1};
  kd::optim::Adam adam({p}, o);
  for (int step = 1; step <= 3; ++step) {
    const kd::Tensor g = kd::randn({n});
    p.set_grad(g);
    adam.step();
    const kindling::cuda::AdamStep h{
        float(o.lr), float(o.betas.first), float(o.betas.second), float(o.eps),
        float(o.weight_decay), float(1 - std::pow(o.betas.first, step)),
        float(1 - std::pow(o.betas.second, step))};
    emu::adam_step(mine.data(), g.data_ptr<float>(), m.data(), v.data(), n, h);
    require_close(mine, p.detach().to_vector<float>(), 1e-5, 1e-6);
  }
}

TEST_CASE("kernels: the tiled matmul reads each element of a and b once per tile of c it meets") {
  // [40, 35] @ [35, 50]: 4 x 3 tiles of c; each row of a is read by the 4 tiles of its row of c,
  // each column of b by the 3 tiles of its column. The naive kernel reads 2K = 70 per output.
  const int M = 40, K = 35, N = 50;
  std::vector<float> a(M * K, 1.0f), b(K * N, 1.0f), c(M * N);
  kindling::cuda::emu::clear_launch_log();
  emu::matmul_v1(a.data(), b.data(), c.data(), M, N, K);
  emu::matmul_v2(a.data(), b.data(), c.data(), M, N, K);
  const auto& log = kindling::cuda::emu::launch_log();
  REQUIRE(log.size() == 2);
  CHECK(log[0].global_reads == std::uint64_t{2} * K * M * N);  // 140000
  CHECK(log[1].global_reads == std::uint64_t{4} * M * K + std::uint64_t{3} * K * N);  // 10850
  CHECK(log[1].barriers == std::uint64_t{2} * 3 * log[1].threads);  // 2 per step, 3 steps along K
  CHECK(c[0] == float(K));
}

namespace {
// The 16-bit kernels on t's elements (t: float16 or bfloat16, contiguous).
template <class H>
const H* ptr16(const kd::Tensor& t) {
  return static_cast<const H*>(t.raw_data_ptr());
}
template <class H>
std::vector<float> floats(const std::vector<H>& v) {
  return std::vector<float>(v.begin(), v.end());
}
}  // namespace

TEST_CASE("kernels: float16 and bfloat16 elementwise ops match the CPU amp layer bit for bit") {
  kd::manual_seed(7);
  const kd::Tensor a32 = kd::randn({4, 1, 6}) * kd::scalar_tensor(3.0);
  const kd::Tensor b32 = kd::randn({6, 5}).slice(1, 1, 4).t();  // [3, 6], strided, offset 1
  const kd::Shape shape{4, 3, 6};
  for (kd::DType dt : {kd::kFloat16, kd::kBFloat16}) {
    const kd::Tensor a = a32.to(dt);
    const kd::Tensor big = kd::randn({6, 5}).to(dt);
    const kd::Tensor b = big.slice(1, 1, 4).t();
    const BinaryLayout L = layout_of(a, b, shape);
    const std::pair<BinaryOp, kd::Tensor> cases[] = {
        {BinaryOp::Add, a + b}, {BinaryOp::Sub, a - b}, {BinaryOp::Mul, a * b}, {BinaryOp::Div, a / b}};
    for (const auto& [op, want] : cases) {
      INFO(kd::dtype_name(dt) << " op " << static_cast<int>(op));
      REQUIRE(want.dtype() == dt);
      const std::int64_t ra = static_cast<std::int64_t>(a.storage()->nbytes() / 2) - a.storage_offset();
      const std::int64_t rb = static_cast<std::int64_t>(b.storage()->nbytes() / 2) - b.storage_offset();
      std::vector<float> got;
      if (dt == kd::kFloat16) {
        std::vector<kd::Half> out(72);
        emu::binary_half(op, ptr16<kd::Half>(a), ra, ptr16<kd::Half>(b), rb, out.data(), 72, L);
        got = floats(out);
      } else {
        std::vector<kd::BFloat16> out(72);
        emu::binary_bfloat16(op, ptr16<kd::BFloat16>(a), ra, ptr16<kd::BFloat16>(b), rb, out.data(),
                             72, L);
        got = floats(out);
      }
      REQUIRE(got == want.contiguous().to(kd::kFloat32).to_vector<float>());  // one rounding: exact
    }
  }
}

TEST_CASE("kernels: float16 and bfloat16 matmuls match the CPU amp layer within one rounding") {
  kd::manual_seed(8);
  for (auto [M, N, K] : {std::tuple{33, 47, 29}, std::tuple{1, 20, 3}, std::tuple{5, 7, 0}}) {
    const kd::Tensor a32 = kd::randn({M, K}), b32 = kd::randn({K, N});
    for (kd::DType dt : {kd::kFloat16, kd::kBFloat16}) {
      const kd::Tensor a = a32.to(dt), b = b32.to(dt);
      const std::vector<float> want = kd::matmul(a, b).to(kd::kFloat32).contiguous().to_vector<float>();
      std::vector<float> got;
      if (dt == kd::kFloat16) {
        std::vector<kd::Half> c(static_cast<std::size_t>(M * N));
        emu::matmul_half(ptr16<kd::Half>(a), ptr16<kd::Half>(b), c.data(), M, N, K);
        got = floats(c);
      } else {
        std::vector<kd::BFloat16> c(static_cast<std::size_t>(M * N));
        emu::matmul_bfloat16(ptr16<kd::BFloat16>(a), ptr16<kd::BFloat16>(b), c.data(), M, N, K);
        got = floats(c);
      }
      INFO(kd::dtype_name(dt) << " M, N, K = " << M << ", " << N << ", " << K);
      // Both accumulate the exact products of 16-bit inputs in float32 and round once; the orders of
      // the sums differ, so a result may land one 16-bit step apart (2^-10 or 2^-7 relative).
      const double step = dt == kd::kFloat16 ? 1.0 / 1024 : 1.0 / 128;
      require_close(got, want, step, 1e-3);
    }
  }
}
