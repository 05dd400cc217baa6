// The CUDA device: without a GPU, why it is unavailable and the emulated cuda:0 (to(), the strided
// copy back, device-mismatch errors, the caching allocator); with a GPU (ctest reports these as
// skipped, with the reason, when there is none), every gpu:: kernel against its emulated twin.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kindling/cuda.hpp"
#include "helpers.hpp"
#include "kindling/nn.hpp"
#include "kindling/tensor.hpp"
#include "sanitizers.hpp"

namespace kd = kindling;
namespace kc = kindling::cuda;
using kc::testing::need_emulated_device;
using kc::testing::need_gpu;
using kc::testing::skip;
using Catch::Matchers::Contains;

namespace {

const kd::Device kCuda = kd::Device::parse("cuda");

}  // namespace

TEST_CASE("device: without a GPU, is_available() is false and says why") {
  if (kc::is_available()) skip("a GPU is visible: " + kc::get_device_name(0));
  REQUIRE(kc::device_count() == 0);
  const std::string why = kc::unavailable_reason();
  INFO(why);
  if (kc::built_with_cuda()) {
    REQUIRE(kc::runtime_version() > 0);
    REQUIRE_THAT(why, Contains("driver") || Contains("CUDA runtime"));
  } else {
    REQUIRE_THAT(why, Contains("no CUDA") && Contains("emulator"));
  }
  // The device kernels refuse to run, with a clear error rather than a crash.
  REQUIRE_THROWS_AS(kc::gpu::matmul_v1(nullptr, nullptr, nullptr, 1, 1, 1), kd::DeviceError);
  REQUIRE_THROWS_WITH(kd::ones({2}).to(kCuda), Contains("to: cannot copy a tensor from cpu to cuda:0"));
}

TEST_CASE("device: tensors move to the emulated cuda:0 and back, contiguous or not") {
  need_emulated_device();
  REQUIRE(kc::is_emulated());
  kd::manual_seed(0);
  const kd::Tensor x = kd::randn({3, 4});
  const kd::Tensor y = x.to(kCuda);
  REQUIRE(y.device() == kCuda);
  REQUIRE(!y.shares_storage(x));
  REQUIRE(y.to(kd::kCPU).to_vector<float>() == x.to_vector<float>());
  // Views on the device come back through the strided copy: transposed, sliced, expanded, empty.
  const kd::Tensor big = kd::randn({5, 6}), on = big.to(kCuda);
  REQUIRE(on.t().to(kd::kCPU).to_vector<float>() == big.t().contiguous().to_vector<float>());
  REQUIRE(on.slice(1, 2, 5).slice(0, 1, 4).cpu().to_vector<float>() ==
          big.slice(1, 2, 5).slice(0, 1, 4).contiguous().to_vector<float>());
  const kd::Tensor row = kd::randn({1, 6}).to(kCuda);
  REQUIRE(row.expand({4, 6}).cpu().to_vector<float>() ==
          row.cpu().expand({4, 6}).contiguous().to_vector<float>());
  REQUIRE(kd::ones({0, 3}).to(kCuda).cpu().shape() == kd::Shape{0, 3});
  // A non-contiguous CPU tensor goes up contiguous.
  REQUIRE(big.t().to(kCuda).is_contiguous());
  // Other dtypes travel too.
  const kd::Tensor idx = kd::tensor(std::vector<std::int64_t>{3, 1, 4}, {3});
  REQUIRE(idx.to(kCuda).cpu().to_vector<std::int64_t>() == std::vector<std::int64_t>{3, 1, 4});
}

TEST_CASE("device: copy_ writes across devices: host to device, device to host, device to device") {
  need_emulated_device();
  kd::manual_seed(0);
  const kd::Tensor x = kd::randn({3, 4});
  kd::Tensor dev = kd::zeros({3, 4}).to(kCuda);
  const std::uint64_t v0 = dev.version();
  dev.copy_(x);  // host -> device, in place: the same device tensor, a new version
  REQUIRE(dev.device() == kCuda);
  CHECK(dev.version() > v0);
  CHECK(dev.cpu().to_vector<float>() == x.to_vector<float>());
  kd::Tensor host = kd::zeros({4, 3});
  host.copy_(dev.t());  // device (a transposed view) -> host
  CHECK(host.to_vector<float>() == x.t().contiguous().to_vector<float>());
  kd::Tensor dev2 = kd::zeros({3, 4}, {.dtype = kd::kFloat64}).to(kCuda);
  dev2.copy_(dev);  // device -> device, converting the dtype
  CHECK(dev2.cpu().to_vector<double>() == x.to(kd::kFloat64).to_vector<double>());
  dev.copy_(kd::ones({4}));  // a broadcast source
  CHECK(dev.cpu().to_vector<float>() == std::vector<float>(12, 1.0f));
  // Refused, with the reason: a broadcast that does not fit, a non-contiguous device destination.
  CHECK_THROWS_WITH(dev.copy_(kd::ones({5})), Catch::Contains("cannot be broadcast"));
  kd::Tensor wide = kd::zeros({4, 3}).to(kCuda);
  kd::Tensor view = wide.t();
  CHECK_THROWS_AS(view.copy_(x), kd::DeviceError);
  CHECK_THROWS_WITH(view.copy_(x), Catch::Contains("not contiguous") && Catch::Contains("cuda:0"));
}

TEST_CASE("device: mixing devices names the op and both devices") {
  need_emulated_device();
  const kd::Tensor a = kd::ones({2, 3}).to(kCuda), b = kd::ones({2, 3});
  REQUIRE_THROWS_WITH(a + b, Contains("add: expected all tensors to be on the same device") &&
                                 Contains("first is on cuda:0 and the second on cpu") &&
                                 Contains("model.to(device)"));
  REQUIRE_THROWS_WITH(kd::matmul(b, a.t()), Contains("matmul") && Contains("cpu") && Contains("cuda:0"));
  REQUIRE_THROWS_WITH(a.exp(), Contains("runs on the CPU but the tensor is on cuda:0"));
  REQUIRE_THROWS_WITH(b.to(kd::Device::parse("cuda:1")), Contains("there is no cuda:1"));
  // A model moved to the device and a batch left on the CPU: the error says so.
  kd::nn::Linear fc(3, 2);
  fc.to(kCuda);
  REQUIRE(fc.weight.device() == kCuda);
  REQUIRE_THROWS_WITH(fc(b), Contains("cuda:0") && Contains("cpu"));
}

TEST_CASE("device: the caching allocator reuses freed blocks and empty_cache returns them") {
#if defined(KINDLING_TEST_ASAN)
  skip("under AddressSanitizer the emulated device caches nothing (use after free stays visible)");
#endif
  need_emulated_device();
  kc::empty_cache();
  const std::size_t base = kc::memory_allocated();
  std::size_t reserved = 0;
  {
    const kd::Tensor t = kd::zeros({1000}).to(kCuda);  // 4000 bytes, rounded to 4096
    REQUIRE(kc::memory_allocated() == base + 4096);
    reserved = kc::memory_reserved();
  }
  REQUIRE(kc::memory_allocated() == base);
  REQUIRE(kc::memory_reserved() == reserved);  // kept for reuse
  {
    const kd::Tensor t = kd::zeros({1001}).to(kCuda);  // same rounded size: the same block
    REQUIRE(kc::memory_reserved() == reserved);
  }
  kc::empty_cache();
  REQUIRE(kc::memory_reserved() == kc::memory_allocated());
}

TEST_CASE("device: ones, zeros, full and empty for cuda:0 allocate there, and running out names cuda:0") {
  need_emulated_device();
  for (kd::DType dt : {kd::kFloat32, kd::kInt64, kd::kBFloat16}) {
    const kd::Tensor o = kd::ones({3, 4}, {.dtype = dt, .device = kCuda});
    const kd::Tensor f = kd::full({2, 5}, 7, {.dtype = dt, .device = kCuda});
    REQUIRE(o.device() == kCuda);
    REQUIRE(f.device() == kCuda);
    REQUIRE(o.dtype() == dt);
    CHECK(kd::equal(o.to(kd::kCPU), kd::ones({3, 4}, {.dtype = dt})));
    CHECK(kd::equal(f.to(kd::kCPU), kd::full({2, 5}, 7, {.dtype = dt})));
    CHECK(kd::empty({2}, {.dtype = dt, .device = kCuda}).device() == kCuda);
  }
  const std::size_t host_before = kd::memory::allocated_bytes(kd::kCPU);
  const kd::Tensor z = kd::zeros({1000, 1000}, {.device = kCuda});
  CHECK(kd::memory::allocated_bytes(kd::kCPU) < host_before + 1000 * 1000 * 4);  // nothing staged on the host
#if defined(KINDLING_TEST_ASAN) || defined(KINDLING_TEST_TSAN)
  skip("a sanitizer's allocator aborts on a 1 TiB request instead of returning null");
#endif
  // 1 TiB: more than this machine (and the device it emulates) can give. Was: built on the host
  // first, so the error said 'on cpu'.
  const kd::Shape huge{1 << 20, 1 << 18};
  for (auto make : {+[](const kd::Shape& s) { return kd::ones(s, {.device = kCuda}); },
                    +[](const kd::Shape& s) { return kd::zeros(s, {.dtype = kd::kInt64, .device = kCuda}); },
                    +[](const kd::Shape& s) { return kd::empty(s, {.device = kCuda}); }}) {
    REQUIRE_THROWS_AS(make(huge), kd::OutOfMemoryError);
    REQUIRE_THROWS_WITH(make(huge), Contains("cuda:0") && !Contains("on cpu"));
  }
}

TEST_CASE("device: the emulated kernels run on tensors of the emulated cuda:0") {
  need_emulated_device();
  kd::manual_seed(1);
  const kd::Tensor a = kd::randn({20, 30}), b = kd::randn({30, 10});
  const kd::Tensor da = a.to(kCuda), db = b.to(kCuda);
  kd::Tensor dc = kd::empty({20, 10}).to(kCuda);
  kc::emulated::matmul_v3(da.data_ptr<float>(), db.data_ptr<float>(), dc.data_ptr<float>(), 20, 10, 30);
  const std::vector<float> got = dc.cpu().to_vector<float>(), want = kd::matmul(a, b).to_vector<float>();
  for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(std::abs(got[i] - want[i]) < 1e-4);
}

TEST_CASE("device: relu, its gradient and a bias gradient's sum(0) run on device kernels through autograd") {
  need_emulated_device();
  kd::manual_seed(3);
  // h: [batch, features] as after a Linear layer; loss = sum_j (relu(h).sum(0))[j] * w[j].
  kd::Tensor h = kd::randn({16, 40});
  h.requires_grad_();
  const kd::Tensor w = kd::randn({40});
  const kd::Tensor want = kd::relu(h).sum(0);
  (want * w).sum().backward();
  kd::Tensor dh = h.detach().to(kCuda);
  dh.requires_grad_();
  const kd::Tensor got = kd::relu(dh).sum(0);
  REQUIRE(got.device() == kCuda);
  REQUIRE(got.grad_fn() != nullptr);
  const std::vector<float> g = got.cpu().to_vector<float>(), wv = want.detach().to_vector<float>();
  for (std::size_t j = 0; j < g.size(); ++j) REQUIRE(std::abs(g[j] - wv[j]) < 1e-5);
  // The backward: sum(0)'s gradient is w expanded over the rows (a stride-0 view), which the
  // relu kernel does not take yet, so the gradient of relu is fed contiguous here.
  kd::Tensor dy = kd::relu(dh);
  dy.backward(w.expand({16, 40}).contiguous().to(kCuda));
  REQUIRE(dh.grad().device() == kCuda);
  REQUIRE(dh.grad().cpu().to_vector<float>() == h.grad().to_vector<float>());
}

TEST_CASE("device: relu's gradient passes at NaN and stops at 0 and -0, as PyTorch's threshold_backward") {
  need_emulated_device();
  const float nan = std::nanf("");
  kd::Tensor x = kd::tensor({nan, 1.5f, -1.0f, 0.0f, -0.0f, -nan}).to(kCuda);
  x.requires_grad_();
  kd::relu(x).backward(kd::full({6}, 2.0).to(kCuda));
  REQUIRE(x.grad().device() == kCuda);
  CHECK(x.grad().cpu().to_vector<float>() == std::vector<float>{2, 2, 0, 0, 0, 2});
}

TEST_CASE("device: two Linear layers with ReLU, forward and backward, run on device kernels and match the CPU") {
  need_emulated_device();
  kd::manual_seed(4);
  // x: [8, 30] -> Linear(30, 20) -> ReLU -> Linear(20, 5): the weights are used transposed
  // (x @ w.t(), a stride view) and the biases broadcast over the batch.
  auto make = [](kd::Shape shape) {
    kd::Tensor t = kd::randn(shape);
    t.requires_grad_();
    return t;
  };
  kd::Tensor x = make({8, 30}), w1 = make({20, 30}), b1 = make({20}), w2 = make({5, 20}), b2 = make({5});
  const kd::Tensor g = kd::randn({8, 5});
  auto net = [](const kd::Tensor& x, const kd::Tensor& w1, const kd::Tensor& b1, const kd::Tensor& w2,
                const kd::Tensor& b2) { return kd::matmul(kd::relu(kd::matmul(x, w1.t()) + b1), w2.t()) + b2; };
  const kd::Tensor y = net(x, w1, b1, w2, b2);
  y.backward(g);
  std::vector<kd::Tensor> dev;
  for (const kd::Tensor* t : {&x, &w1, &b1, &w2, &b2}) {
    kd::Tensor d = t->detach().to(kCuda);
    d.requires_grad_();
    dev.push_back(d);
  }
  const kd::Tensor dy = net(dev[0], dev[1], dev[2], dev[3], dev[4]);
  REQUIRE(dy.device() == kCuda);
  dy.backward(g.to(kCuda));
  auto close = [](const kd::Tensor& got, const kd::Tensor& want) {
    REQUIRE(got.device() == kCuda);
    kc::testing::require_close(got, want, 1e-5, 1e-5);
  };
  close(dy, y);
  const std::vector<const kd::Tensor*> cpu = {&x, &w1, &b1, &w2, &b2};
  for (std::size_t i = 0; i < dev.size(); ++i) {
    INFO("gradient " << i);
    close(dev[i].grad(), cpu[i]->grad());
  }
}

TEST_CASE("device: nn::Linear (addmm) moved with to(device) runs forward and backward on device kernels") {
  need_emulated_device();
  kd::manual_seed(5);
  kd::nn::Linear cpu(30, 10), dev(30, 10);
  dev.load_state_dict(cpu.state_dict());
  dev.to(kCuda);
  const kd::Tensor x = kd::randn({6, 30}), g = kd::randn({6, 10});
  const kd::Tensor y = cpu.forward(x);
  y.backward(g);
  const kd::Tensor dy = dev.forward(x.to(kCuda));
  REQUIRE(dy.device() == kCuda);
  dy.backward(g.to(kCuda));
  auto close = [](const kd::Tensor& got, const kd::Tensor& want) {
    REQUIRE(got.device() == kCuda);
    kc::testing::require_close(got, want, 1e-5, 1e-5);
  };
  close(dy, y);
  close(dev.weight.grad(), cpu.weight.grad());
  close(dev.bias.grad(), cpu.bias.grad());
}

TEST_CASE("device: an op without a device kernel still refuses a device tensor, naming the op") {
  need_emulated_device();
  const kd::Tensor x = kd::randn({4, 5}).to(kCuda);
  REQUIRE_THROWS_AS(kd::exp(x), kd::DeviceError);
  REQUIRE_THROWS_WITH(kd::exp(x), Contains("exp") && Contains("cuda:0"));
  REQUIRE_THROWS_WITH(x.sum(1), Contains("sum") && Contains("cuda:0"));  // only sum over dim 0 has a kernel
  REQUIRE_THROWS_WITH(kd::relu(x.t()), Contains("relu") && Contains("contiguous"));
  REQUIRE_THROWS_AS(kd::relu(x.to(kd::kFloat64)), kd::DeviceError);  // float32 only
}

TEST_CASE("device: on a GPU every kernel matches its emulated twin") {
  need_gpu();
  kd::manual_seed(2);
  const int M = 300, N = 200, K = 100;
  const kd::Tensor a = kd::randn({M, K}), b = kd::randn({K, N});
  const kd::Tensor da = a.to(kCuda), db = b.to(kCuda);
  std::vector<float> want(static_cast<std::size_t>(M * N));
  kc::emulated::matmul_v1(a.data_ptr<float>(), b.data_ptr<float>(), want.data(), M, N, K);
  for (auto fn : {kc::gpu::matmul_v1, kc::gpu::matmul_v2, kc::gpu::matmul_v3}) {
    kd::Tensor dc = kd::empty({M, N}).to(kCuda);
    fn(da.data_ptr<float>(), db.data_ptr<float>(), dc.data_ptr<float>(), M, N, K);
    kc::synchronize();
    const std::vector<float> got = dc.cpu().to_vector<float>();
    for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(std::abs(got[i] - want[i]) < 1e-3);
  }
  const kd::Tensor x = kd::randn({100000});
  float host = 0;
  kc::emulated::sum_v2(x.data_ptr<float>(), x.numel(), &host);
  for (auto fn : {kc::gpu::sum_v1, kc::gpu::sum_v2}) {
    kd::Tensor out = kd::zeros({1}).to(kCuda);
    fn(x.to(kCuda).data_ptr<float>(), x.numel(), out.data_ptr<float>());
    REQUIRE(std::abs(out.cpu().item<float>() - host) < 0.05);
  }
  const kd::Tensor logits = kd::randn({64, 1000});
  kd::Tensor dsm = kd::empty({64, 1000}).to(kCuda);
  kc::gpu::softmax_rows(logits.to(kCuda).data_ptr<float>(), dsm.data_ptr<float>(), 64, 1000);
  const std::vector<float> sm = dsm.cpu().to_vector<float>(),
                           ref = logits.softmax(1).to_vector<float>();
  for (std::size_t i = 0; i < sm.size(); ++i) REQUIRE(std::abs(sm[i] - ref[i]) < 1e-6);
  // The strided elementwise kernel: a [300, 1] column times a transposed [200, 300] matrix.
  const kd::Tensor col = kd::randn({M, 1}), wide = kd::randn({N, M});
  kc::BinaryLayout L;
  L.ndim = 2;
  L.sizes[0] = M;
  L.sizes[1] = N;
  L.a_strides[0] = 1;  // col: [M, 1] broadcast along the columns
  L.b_strides[0] = 1;  // wide.t(): element (i, j) is wide[j, i]
  L.b_strides[1] = M;
  std::vector<float> prod(static_cast<std::size_t>(M * N));
  kc::emulated::binary(kc::BinaryOp::Mul, col.data_ptr<float>(), M, wide.data_ptr<float>(), N * M,
                       prod.data(), M * N, L);
  kd::Tensor dprod = kd::empty({M, N}).to(kCuda);
  kc::gpu::binary(kc::BinaryOp::Mul, col.to(kCuda).data_ptr<float>(), M, wide.to(kCuda).data_ptr<float>(),
                  N * M, dprod.data_ptr<float>(), M * N, L);
  REQUIRE(dprod.cpu().to_vector<float>() == prod);  // one multiplication each: the same bits
  // ReLU, its gradient and the column sum (a training step's kernels).
  const kd::Tensor rx = kd::randn({M, N}), rg = kd::randn({M, N});
  std::vector<float> r(static_cast<std::size_t>(M * N)), rdx(r.size()), cs(static_cast<std::size_t>(N));
  kc::emulated::relu(rx.data_ptr<float>(), r.data(), M * N);
  kc::emulated::relu_backward(rg.data_ptr<float>(), rx.data_ptr<float>(), rdx.data(), M * N);
  kc::emulated::column_sum(rx.data_ptr<float>(), cs.data(), M, N);
  const kd::Tensor drx = rx.to(kCuda), drg = rg.to(kCuda);
  kd::Tensor dr = kd::empty({M, N}).to(kCuda), drdx = kd::empty({M, N}).to(kCuda), dcs = kd::empty({N}).to(kCuda);
  kc::gpu::relu(drx.data_ptr<float>(), dr.data_ptr<float>(), M * N);
  kc::gpu::relu_backward(drg.data_ptr<float>(), drx.data_ptr<float>(), drdx.data_ptr<float>(), M * N);
  kc::gpu::column_sum(drx.data_ptr<float>(), dcs.data_ptr<float>(), M, N);
  REQUIRE(dr.cpu().to_vector<float>() == r);
  REQUIRE(drdx.cpu().to_vector<float>() == rdx);
  const std::vector<float> gcs = dcs.cpu().to_vector<float>();
  for (std::size_t j = 0; j < gcs.size(); ++j) REQUIRE(std::abs(gcs[j] - cs[j]) < 1e-4);
}

TEST_CASE("device: on a GPU the 16-bit kernels match their emulated twins") {
  need_gpu();
  kd::manual_seed(3);
  const int M = 70, N = 90, K = 50;
  for (kd::DType dt : {kd::kFloat16, kd::kBFloat16}) {
    const kd::Tensor a = kd::randn({M, K}).to(dt), b = kd::randn({K, N}).to(dt);
    const kd::Tensor da = a.to(kCuda), db = b.to(kCuda);
    const kd::Tensor want = kd::empty({M, N}, {.dtype = dt}), dc = kd::empty({M, N}, {.dtype = dt}).to(kCuda);
    const kd::Tensor sum = kd::empty({M, K}, {.dtype = dt}), dsum = kd::empty({M, K}, {.dtype = dt}).to(kCuda);
    kc::BinaryLayout L;
    L.ndim = 1;
    L.sizes[0] = M * K;
    L.a_strides[0] = L.b_strides[0] = 1;
    if (dt == kd::kFloat16) {
      using H = kd::Half;
      kc::emulated::matmul_half(static_cast<const H*>(a.raw_data_ptr()), static_cast<const H*>(b.raw_data_ptr()),
                                static_cast<H*>(want.raw_data_ptr()), M, N, K);
      kc::gpu::matmul_half(static_cast<const H*>(da.raw_data_ptr()), static_cast<const H*>(db.raw_data_ptr()),
                           static_cast<H*>(dc.raw_data_ptr()), M, N, K);
      kc::emulated::binary_half(kc::BinaryOp::Mul, static_cast<const H*>(a.raw_data_ptr()), M * K,
                                static_cast<const H*>(a.raw_data_ptr()), M * K, static_cast<H*>(sum.raw_data_ptr()),
                                M * K, L);
      kc::gpu::binary_half(kc::BinaryOp::Mul, static_cast<const H*>(da.raw_data_ptr()), M * K,
                           static_cast<const H*>(da.raw_data_ptr()), M * K, static_cast<H*>(dsum.raw_data_ptr()),
                           M * K, L);
    } else {
      using H = kd::BFloat16;
      kc::emulated::matmul_bfloat16(static_cast<const H*>(a.raw_data_ptr()), static_cast<const H*>(b.raw_data_ptr()),
                                    static_cast<H*>(want.raw_data_ptr()), M, N, K);
      kc::gpu::matmul_bfloat16(static_cast<const H*>(da.raw_data_ptr()), static_cast<const H*>(db.raw_data_ptr()),
                               static_cast<H*>(dc.raw_data_ptr()), M, N, K);
      kc::emulated::binary_bfloat16(kc::BinaryOp::Mul, static_cast<const H*>(a.raw_data_ptr()), M * K,
                                    static_cast<const H*>(a.raw_data_ptr()), M * K,
                                    static_cast<H*>(sum.raw_data_ptr()), M * K, L);
      kc::gpu::binary_bfloat16(kc::BinaryOp::Mul, static_cast<const H*>(da.raw_data_ptr()), M * K,
                               static_cast<const H*>(da.raw_data_ptr()), M * K,
                               static_cast<H*>(dsum.raw_data_ptr()), M * K, L);
    }
    kc::synchronize();
    // The same float32 sums in the same order: the same bits (fused multiply-adds may differ by a
    // float32 rounding before the 16-bit one, hence the tolerance of one 16-bit step).
    const std::vector<float> got = dc.cpu().to(kd::kFloat32).to_vector<float>(),
                             ref = want.to(kd::kFloat32).to_vector<float>();
    for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(std::abs(got[i] - ref[i]) <= 1e-2 * (1 + std::abs(ref[i])));
    REQUIRE(dsum.cpu().to(kd::kFloat32).to_vector<float>() == sum.to(kd::kFloat32).to_vector<float>());
  }
}

TEST_CASE("device: the gradient of to(device) goes back to the input's device") {
  need_emulated_device();
  const kd::Tensor x = kd::randn({3, 4}).requires_grad_();
  const kd::Tensor y = x.to(kCuda);
  REQUIRE(y.requires_grad());
  REQUIRE(std::string(y.grad_fn()->name()) == "ToCopyBackward0");
  // No CUDA kernels for the arithmetic: come back to the CPU, then backward.
  (y.cpu() * kd::scalar_tensor(3.0)).sum().backward();
  REQUIRE(x.grad().device() == kd::kCPU);
  REQUIRE(x.grad().to_vector<float>() == std::vector<float>(12, 3.0f));
  // int64 tensors are not differentiable: nothing is recorded.
  REQUIRE(!kd::ones({2}, {.dtype = kd::kInt64}).to(kCuda).requires_grad());
}

TEST_CASE("device: load(path, map_location) puts a checkpoint's tensors on the device") {
  need_emulated_device();
  kd::StateDict sd;
  sd.insert("w", kd::arange(6).reshape({2, 3}).to(kd::kFloat32));
  const std::string path = "test_cuda_map_location.safetensors";
  kd::save(sd, path);
  const kd::StateDict on = kd::load(path, kCuda);
  std::remove(path.c_str());
  REQUIRE(on.at("w").device() == kCuda);
  REQUIRE(on.at("w").cpu().to_vector<float>() == std::vector<float>{0, 1, 2, 3, 4, 5});
  REQUIRE_THROWS_WITH(kd::load(path, kd::Device::parse("cuda:1")), Contains("there is no cuda:1"));
}
