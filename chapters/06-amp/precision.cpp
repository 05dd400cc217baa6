// What float16 and bfloat16 can hold, what that does to small gradients, and how
// GradScaler's loss scaling rescues them -- and skips a step when a gradient overflows.
#include <cmath>

#include "common.hpp"

namespace amp = kd::amp;

// value after a round trip through `dtype` (the rounding autocast does to activations)
double through(double v, kd::DType dtype) {
  const kd::Tensor x = kd::scalar_tensor(v, {.dtype = kd::kFloat32});
  return x.to(dtype).to(kd::kFloat32).item<double>();
}

// How many elements of t are exactly zero.
std::int64_t zeros(const kd::Tensor& t) {
  return (t == 0.0).sum().item<std::int64_t>();
}

int main() {
  std::printf("== what survives a round trip ==\n");
  std::printf("%-26s %14s %14s %14s\n", "value", "float32", "float16", "bfloat16");
  // [snippet: range]
  const std::pair<const char*, double> values[] = {
      {"65504 (float16's max)", 65504.0},
      {"70000", 70000.0},
      {"1e-5", 1e-5},
      {"1e-8", 1e-8},
      {"1 + 2^-10", 1.0 + std::ldexp(1, -10)},
      {"1 + 2^-8", 1.0 + std::ldexp(1, -8)},
      {"3.14159265", 3.14159265},
      {"1e30", 1e30}};
  for (auto [name, v] : values) {
    std::printf("%-26s %14.8g %14.8g %14.8g\n", name, through(v, kd::kFloat32),
                through(v, kd::kFloat16), through(v, kd::kBFloat16));
  }
  // [end]

  // A nearly trained linear classifier: its logits are confident, so the gradients of
  // the loss with respect to them, (softmax - one_hot) / batch, are tiny.
  kd::manual_seed(0);
  const std::int64_t batch = 512;
  const kd::Tensor x = kd::randn({batch, 64});
  const kd::Tensor w_true = kd::randn({10, 64});
  const kd::Tensor y =
      x.matmul(w_true.t()).argmax(1);  // labels the true weights predict
  const kd::Tensor w0 = w_true * 0.5;

  std::printf(
      "\n== gradients of a confident classifier, batch %lld, float16 autocast ==\n",
      static_cast<long long>(batch));
  // [snippet: underflow]
  auto gradients = [&](bool fp16, double scale) {
    kd::Tensor w = w0.clone().requires_grad_();
    amp::GradScaler scaler({.init_scale = scale, .enabled = scale != 1.0});
    kd::Tensor logits, loss;
    {
      amp::AutocastGuard autocast({.dtype = kd::kFloat16, .enabled = fp16});
      logits = kd::nn::functional::linear(x, w);  // float16 under autocast
      logits.retain_grad();
      loss = kd::nn::functional::cross_entropy(logits, y);  // float32 always
    }
    scaler.scale(loss).backward();
    const std::int64_t lost = zeros(logits.grad());
    return lost;
  };
  const std::int64_t lost32 = gradients(false, 1.0);
  const std::int64_t lost16 = gradients(true, 1.0);
  const std::int64_t lost_scaled = gradients(true, 65536.0);
  const long long n = batch * 10;
  std::printf("logit gradients that are exactly zero:\n");
  std::printf("  float32                      %5lld / %lld\n", (long long)lost32, n);
  std::printf("  float16, no scaling          %5lld / %lld\n", (long long)lost16, n);
  std::printf("  float16, GradScaler (65536)  %5lld / %lld\n", (long long)lost_scaled,
              n);
  // [end]

  std::printf("\n== a scale too large: GradScaler skips the step and backs off ==\n");
  // [snippet: overflow]
  kd::Tensor w = w0.clone().requires_grad_();
  kd::optim::SGD opt({w}, {.lr = 0.1});
  amp::GradScaler scaler({.init_scale = std::ldexp(1.0, 28), .growth_interval = 3});
  for (int step = 1; step <= 10; ++step) {
    opt.zero_grad();
    kd::Tensor loss;
    {
      amp::AutocastGuard autocast({.dtype = kd::kFloat16});
      loss = kd::nn::functional::cross_entropy(kd::nn::functional::linear(x, w), y);
    }
    const double scale = scaler.get_scale();
    scaler.scale(loss).backward();
    const bool stepped =
        scaler.step(opt);  // unscale_, inf/NaN check, step unless found
    scaler.update();
    std::printf("step %2d: scale 2^%-3.0f %-22s loss %.6f\n", step, std::log2(scale),
                stepped ? "stepped" : "skipped (inf in grads)", loss.item<double>());
  }
  // [end]
}
