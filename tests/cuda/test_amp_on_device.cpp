// Chapter 6's mixed precision on the device: autocast for cuda tensors (float16 by default, as
// torch.autocast("cuda")), the casts between float32 and the 16-bit dtypes, the 16-bit kernels
// behind a training step, and GradScaler's unscale and inf check, each against the CPU's amp layer.
// They run on the GPU where one is visible, else on the emulated cuda:0.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kindling/amp.hpp"
#include "kindling/cuda.hpp"
#include "helpers.hpp"
#include "kindling/optim/adam.hpp"
#include "kindling/train.hpp"

namespace kd = kindling;
namespace kc = kindling::cuda;
namespace amp = kindling::amp;
using kc::testing::require_close;
using kc::testing::SimpleNet;
using kc::testing::use_any_device;

namespace {

const kd::Device kCuda = kd::Device::parse("cuda");

// The 16-bit patterns of a float16 or bfloat16 tensor (on the CPU).
std::vector<std::uint16_t> bits(const kd::Tensor& t16) {
  const kd::Tensor c = t16.cpu().contiguous();
  std::vector<std::uint16_t> out(static_cast<std::size_t>(c.numel()));
  std::memcpy(out.data(), c.raw_data_ptr(), out.size() * sizeof(std::uint16_t));
  return out;
}

// Values that probe the casts: ties, overflow past float16's 65504, float16 subnormals and
// underflow to 0, bfloat16's last steps, signed zeros, inf and NaN, and ordinary values.
kd::Tensor probe_values() {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.0f, 65520.0f, 1e6f, -1e6f,
                          6.1e-5f, 5.96e-8f, 2.98e-8f, 2.9e-8f, 1e-10f, 1.00048828125f, 1.00146484375f,
                          3.3895e38f, 1e-39f, inf, -inf, nan, 0.1f, 1.0f / 3.0f};
  const kd::Tensor r = kd::randn({977}) * 100.0;
  for (float x : r.to_vector<float>()) v.push_back(x);
  return kd::tensor(v, {static_cast<std::int64_t>(v.size())});
}

}  // namespace

TEST_CASE("amp on the device: float32 <-> float16 / bfloat16 casts match the CPU's bit for bit") {
  use_any_device();
  const kd::Tensor x = probe_values();
  const kd::Tensor dx = x.to(kCuda);
  for (kd::DType dt : {kd::kFloat16, kd::kBFloat16}) {
    INFO(kd::dtype_name(dt));
    const kd::Tensor d16 = dx.to(dt), c16 = x.to(dt);
    REQUIRE(d16.device() == kCuda);
    REQUIRE(d16.dtype() == dt);
    const std::vector<std::uint16_t> got = bits(d16), want = bits(c16);
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("element " << i << " = " << x.to_vector<float>()[i]);
      const bool both_nan = std::isnan(static_cast<float>(c16.to(kd::kFloat32).to_vector<float>()[i])) &&
                            (got[i] & 0x7FFF) > (dt == kd::kFloat16 ? 0x7C00 : 0x7F80);
      if (!both_nan) REQUIRE(got[i] == want[i]);
    }
    // Back to float32: exact, so the values equal the CPU's widened ones (NaN as NaN).
    const std::vector<float> back = d16.to(kd::kFloat32).cpu().to_vector<float>(),
                             ref = c16.to(kd::kFloat32).to_vector<float>();
    for (std::size_t i = 0; i < back.size(); ++i)
      REQUIRE((back[i] == ref[i] || (std::isnan(back[i]) && std::isnan(ref[i]))));
  }
  // float16 -> bfloat16 on the device goes through float32 and is rounded once, as on the CPU.
  REQUIRE(bits(dx.to(kd::kFloat16).to(kd::kBFloat16)) == bits(x.to(kd::kFloat16).to(kd::kBFloat16)));
  // A transposed view is cast through the strided kernel first; float64 has no device cast.
  const kd::Tensor m = kd::randn({5, 7});
  REQUIRE(bits(m.to(kCuda).t().to(kd::kHalf)) == bits(m.t().contiguous().to(kd::kHalf)));
  REQUIRE_THROWS_AS(dx.to(kd::kFloat64), kd::DeviceError);
}

TEST_CASE("amp on the device: the cast's gradient flows back to the float32 device tensor") {
  use_any_device();
  const kd::Tensor x = kd::randn({4, 6});
  const kd::Tensor dx = x.to(kCuda).detach().requires_grad_();
  (dx.to(kd::kHalf).relu().to(kd::kFloat32) * kd::full({4, 6}, 3.0).to(kCuda)).sum(0).backward(kd::ones({6}).to(kCuda));
  REQUIRE(dx.grad().device() == kCuda);
  REQUIRE(dx.grad().dtype() == kd::kFloat32);
  // d/dx of 3 * relu(x): 3 where x > 0 (x's float16 rounding keeps its sign), else 0.
  require_close(dx.grad(), (x > 0.0).to(kd::kFloat32) * 3.0, 0, 0);
}

TEST_CASE("amp on the device: relu, its gradient, the column sum and + - * / in 16 bits match the CPU") {
  use_any_device();
  kd::manual_seed(11);
  for (kd::DType dt : {kd::kFloat16, kd::kBFloat16}) {
    INFO(kd::dtype_name(dt));
    const kd::Tensor x = kd::randn({37, 29}).to(dt), g = kd::randn({37, 29}).to(dt), b = kd::randn({29}).to(dt);
    const kd::Tensor dx = x.to(kCuda), dg = g.to(kCuda), db = b.to(kCuda);
    REQUIRE(bits(dx.relu()) == bits(x.relu()));
    // relu lets a NaN through, and its gradient too (PyTorch's threshold_backward zeroes where x <= 0).
    kd::Tensor xn = x.clone();
    xn.index_put_({0, 0}, std::nan(""));
    xn.index_put_({0, 1}, -0.0);
    const kd::Tensor dxn = xn.to(kCuda);
    REQUIRE(bits(dxn.relu()) == bits(xn.relu()));
    REQUIRE(bits(dx + db) == bits(x + b));  // one float32 op, one rounding: the same bits
    REQUIRE(bits(dx * dx) == bits(x * x));
    REQUIRE(bits(dx - db) == bits(x - b));
    REQUIRE(bits(dx / db) == bits(x / b));
    // The column sum accumulates in float32 and rounds once: within one 16-bit step of the CPU's.
    const kd::Tensor s = dx.sum(0);
    REQUIRE(s.dtype() == dt);
    require_close(s.to(kd::kFloat32), x.sum(0).to(kd::kFloat32), dt == kd::kFloat16 ? 1e-3 : 8e-3, 1e-2);
    // threshold_backward through autograd: the gradient is zeroed exactly where x <= 0.
    const kd::Tensor dleaf = dxn.detach().requires_grad_();
    dleaf.relu().backward(dg);
    REQUIRE(bits(dleaf.grad()) == bits(kd::where(xn <= 0.0, kd::zeros({37, 29}, {.dtype = dt}), g)));
    REQUIRE(bits(dleaf.grad())[0] == bits(g)[0]);  // at the NaN
    // The matmul: 16-bit tiles, float32 sums, each element rounded once.
    const kd::Tensor w = kd::randn({29, 13}).to(dt);
    require_close(dx.matmul(w.to(kCuda)).to(kd::kFloat32), x.matmul(w).to(kd::kFloat32),
                  dt == kd::kFloat16 ? 2e-3 : 1.6e-2, 2e-2);
  }
}

TEST_CASE("amp on the device: a CUDA autocast region changes cuda tensors only, a CPU region CPU tensors only") {
  use_any_device();
  CHECK(kd::get_autocast_dtype(kd::DeviceType::CUDA) == kd::kHalf);  // torch.autocast("cuda")'s default
  CHECK(kd::get_autocast_dtype(kd::DeviceType::CPU) == kd::kBFloat16);
  const kd::Tensor a = kd::randn({3, 4}), b = kd::randn({4, 2});
  const kd::Tensor da = a.to(kCuda), db = b.to(kCuda);
  {
    amp::AutocastGuard autocast({.device_type = kd::DeviceType::CUDA});
    CHECK(kd::is_autocast_enabled(kd::DeviceType::CUDA));
    CHECK_FALSE(kd::is_autocast_enabled(kd::DeviceType::CPU));
    CHECK(da.matmul(db).dtype() == kd::kHalf);
    CHECK(a.matmul(b).dtype() == kd::kFloat32);
    // The float32 list: the loss casts 16-bit logits back to float32, on the device.
    const kd::Tensor logits = da.matmul(db);
    const kd::Tensor target = kd::tensor(std::vector<std::int64_t>{0, 1, 1}, {3}).to(kCuda);
    const kd::Tensor loss = kd::nn::CrossEntropyLoss()(logits, target);
    CHECK(loss.dtype() == kd::kFloat32);
    CHECK(loss.device() == kCuda);
  }
  {
    amp::AutocastGuard autocast;  // the CPU's
    CHECK(a.matmul(b).dtype() == kd::kBFloat16);
    CHECK(da.matmul(db).dtype() == kd::kFloat32);
  }
  {
    amp::AutocastGuard autocast({.device_type = kd::DeviceType::CUDA, .dtype = kd::kBFloat16});
    CHECK(da.matmul(db).dtype() == kd::kBFloat16);
  }
  CHECK_FALSE(kd::is_autocast_enabled(kd::DeviceType::CUDA));
}

TEST_CASE("amp on the device: SimpleNet under float16 autocast and GradScaler on cuda:0 follows the CPU's run") {
  use_any_device();
  kd::manual_seed(5);
  SimpleNet cpu_net, dev_net;
  dev_net.load_state_dict(cpu_net.state_dict());
  dev_net.to(kCuda);
  kd::optim::Adam cpu_opt(cpu_net.parameters(), {.lr = 1e-3});
  kd::optim::Adam dev_opt(dev_net.parameters(), {.lr = 1e-3});
  amp::GradScaler cpu_scaler, dev_scaler;
  kd::nn::CrossEntropyLoss loss_fn;
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    const kd::Tensor x = kd::rand({8, 784}), y = kd::randint(0, 10, {8});
    // The CPU runs the same float16 autocast (its float16 kernels), as the reference.
    cpu_opt.zero_grad();
    kd::Tensor cpu_loss;
    {
      amp::AutocastGuard autocast({.dtype = kd::kHalf});
      cpu_loss = loss_fn(cpu_net(x), y);
    }
    cpu_scaler.scale(cpu_loss).backward();
    REQUIRE(cpu_scaler.step(cpu_opt));
    cpu_scaler.update();

    dev_opt.zero_grad();
    kd::Tensor dev_loss, logits;
    {
      amp::AutocastGuard autocast({.device_type = kd::DeviceType::CUDA});
      logits = dev_net(x.to(kCuda));
      dev_loss = loss_fn(logits, y.to(kCuda));
    }
    REQUIRE(logits.device() == kCuda);
    REQUIRE(logits.dtype() == kd::kHalf);
    REQUIRE(dev_loss.dtype() == kd::kFloat32);
    dev_scaler.scale(dev_loss).backward();
    for (const kd::Tensor& p : dev_net.parameters()) {
      REQUIRE(p.grad().device() == kCuda);
      REQUIRE(p.grad().dtype() == kd::kFloat32);  // the weights' gradients are in the weights' dtype
    }
    REQUIRE(dev_scaler.step(dev_opt));
    dev_scaler.update();
    REQUIRE(dev_scaler.get_scale() == cpu_scaler.get_scale());
    // float16 logits: the sums of the two devices' products run in another order, a 16-bit step apart.
    require_close(dev_loss, cpu_loss, 2e-3, 2e-3);
  }
  const auto cpu_params = cpu_net.parameters(), dev_params = dev_net.parameters();
  for (std::size_t i = 0; i < cpu_params.size(); ++i) {
    INFO("parameter " << i);
    REQUIRE(dev_params[i].device() == kCuda);
    REQUIRE(dev_params[i].dtype() == kd::kFloat32);
    require_close(dev_params[i].detach(), cpu_params[i].detach(), 1e-4, 3e-3);  // 3 steps of at most lr each
  }
}

TEST_CASE("amp on the device: GradScaler skips the step of an overflowing float16 backward and backs off") {
  use_any_device();
  kd::manual_seed(6);
  SimpleNet net;
  net.to(kCuda);
  kd::optim::Adam opt(net.parameters(), {.lr = 1e-3});
  // 2^40: the scaled gradients of the float16 logits overflow float16's 65504.
  amp::GradScaler scaler({.init_scale = 1099511627776.0});
  const kd::Tensor before = net.fc1.weight.detach().cpu().clone();
  const kd::Tensor x = kd::rand({8, 784}).to(kCuda), y = kd::randint(0, 10, {8}).to(kCuda);
  opt.zero_grad();
  kd::Tensor loss;
  {
    amp::AutocastGuard autocast({.device_type = kd::DeviceType::CUDA});
    loss = kd::nn::CrossEntropyLoss()(net(x), y);
  }
  scaler.scale(loss).backward();
  REQUIRE_FALSE(scaler.step(opt));  // an inf in a device gradient: skipped
  scaler.update();
  CHECK(scaler.get_scale() == 549755813888.0);  // backoff: halved
  REQUIRE(kd::equal(net.fc1.weight.detach().cpu(), before));  // the weights did not move
  // A float32 gradient with one NaN on the device, unscaled by the device kernel: found, and the
  // finite elements divided by the scale.
  kd::Tensor g = kd::tensor(std::vector<float>{2.0f, 4.0f, std::nanf(""), 8.0f}, {4}).to(kCuda);
  kd::Tensor p = kd::zeros({4}).to(kCuda).requires_grad_();
  p.set_grad(g);
  kd::optim::Adam single({p}, {.lr = 1e-3});
  amp::GradScaler two({.init_scale = 2.0});
  two.unscale_(single);
  REQUIRE_FALSE(two.step(single));
  const std::vector<float> unscaled = p.grad().cpu().to_vector<float>();
  CHECK(unscaled[0] == 1.0f);
  CHECK(unscaled[1] == 2.0f);
  CHECK(std::isnan(unscaled[2]));
  CHECK(unscaled[3] == 4.0f);
}
