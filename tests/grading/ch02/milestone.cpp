// Chapter 2's milestone: your autograd fits a small network. A 2 -> 16 -> 1 tanh network learns
// y = sin(2 x0) cos(x1) from 128 points by gradient descent with momentum, every gradient computed by your
// pieces: the derivatives of mul and tanh, sum_to for the broadcast biases, mm's backward, the
// engine's dependency count. It then checks its own gradients with gradcheck (your finite
// differences), and writes the final parameters and their gradients for the judge, which recomputes
// the loss and the gradients itself.
//
//   milestone_ch02 IN_DIR OUT_DIR   (IN_DIR: x.npy [128, 2], y.npy [128, 1], float64;
//                                    writes OUT_DIR/{w1,b1,w2,b2}.npy and grad_{w1,b1,w2,b2}.npy)
#include <kindling/autograd.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace kd = kindling;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string in = argv[1], out = argv[2];
  const kd::Tensor x = kd::load_npy(in + "/x.npy");  // [128, 2]
  const kd::Tensor y = kd::load_npy(in + "/y.npy");  // [128, 1]

  kd::manual_seed(0);
  const kd::TensorOptions f64{.dtype = kd::kFloat64};
  kd::Tensor w1 = (kd::randn({2, 16}, f64) * 0.7).requires_grad_();
  kd::Tensor b1 = kd::zeros({16}, f64).requires_grad_();
  kd::Tensor w2 = (kd::randn({16, 1}, f64) * 0.25).requires_grad_();
  kd::Tensor b2 = kd::zeros({1}, f64).requires_grad_();
  std::vector<kd::Tensor> params{w1, b1, w2, b2};

  // loss = mean((tanh(x @ w1 + b1) @ w2 + b2 - y)²)
  auto loss_of = [&](const std::vector<kd::Tensor>& p) {
    const kd::Tensor h = (x.matmul(p[0]) + p[1]).tanh();  // [128, 16]
    const kd::Tensor d = h.matmul(p[2]) + p[3] - y;       // [128, 1]
    return (d * d).mean();
  };

  // Gradient descent with momentum: v = 0.9 v + grad, p -= lr v.
  const double lr = 0.05;
  std::vector<kd::Tensor> velocity;
  for (const kd::Tensor& p : params) velocity.push_back(kd::zeros_like(p));
  double first = 0;
  for (int step = 0; step < 4000; ++step) {
    for (kd::Tensor& p : params) p.set_grad(kd::Tensor());
    const kd::Tensor loss = loss_of(params);
    loss.backward();
    if (step == 0) first = loss.item<double>();
    kd::NoGradGuard no_grad;
    for (std::size_t i = 0; i < params.size(); ++i) {
      velocity[i].mul_(0.9).add_(params[i].grad());
      params[i].sub_(velocity[i] * lr);
    }
  }

  // The gradients at the final parameters, and gradcheck's verdict on them.
  for (kd::Tensor& p : params) p.set_grad(kd::Tensor());
  const kd::Tensor loss = loss_of(params);
  loss.backward();
  const kd::autograd::GradcheckResult check = kd::autograd::gradcheck(loss_of, params);

  const char* names[] = {"w1", "b1", "w2", "b2"};
  for (int i = 0; i < 4; ++i) {
    kd::save_npy(params[i].detach(), out + "/" + names[i] + ".npy");
    kd::save_npy(params[i].grad(), out + "/grad_" + names[i] + ".npy");
  }
  std::printf("loss %.6f -> %.6f after 4000 steps; gradcheck %s (max |analytical - numerical| %.2e)\n", first,
              loss.item<double>(), check.ok ? "passed" : "FAILED", check.max_abs_error);
  return 0;
}
