// Chapter 2's milestone: your autograd fits a small network. A 2 -> 16 -> 1 tanh network learns
// y = sin(2 x0) cos(x1) from 128 points by gradient descent with momentum, every gradient computed by your
// pieces: the derivatives of mul and tanh, sum_to for the broadcast biases, mm's backward, the
// engine's dependency count. It then checks its own gradients with gradcheck (your finite
// differences), and writes the final parameters and their gradients for the judge, which recomputes
// the loss and the gradients itself.
//
// The network needs only some of the chapter's pieces where they can go wrong (it divides nothing, its
// broadcasts have no size-1 dimension, its matmuls no transposed operand), so the program also takes
// the gradients of the checker's expression on the checker's tensors, drawn per run, which the checker
// computes with PyTorch: loss = sum(v), v = s + s * s (s reached twice: ex4), s = ((a / b) * c) @ W.t()
// (the quotient's derivatives: ex1; c [n, 1] broadcast: ex2; a transposed operand: ex3), and of
// graphs where a node waits for several gradients (skip connections, two roots: ex4); and runs
// gradcheck with the checker's tolerances on a function whose finite differences are off by far more
// than atol and far less than rtol of their size: PyTorch's gradcheck passes it (ex5).
//
//   milestone_ch02 IN_DIR OUT_DIR   (IN_DIR: x.npy [128, 2], y.npy [128, 1], float64, and the probe's
//                                    probe_{a,b,c,W,x2,w2,g2,z,tol}.npy; writes OUT_DIR/{w1,b1,w2,b2}.npy,
//                                    grad_{w1,b1,w2,b2}.npy, probe_grad_{a,b,c,W,skip,roots}.npy,
//                                    gradcheck.npy)
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

  // The probe.
  {
    auto leaf = [&](const char* name) { return kd::load_npy(in + "/probe_" + name + ".npy").requires_grad_(); };
    kd::Tensor a = leaf("a"), b = leaf("b"), c = leaf("c"), W = leaf("W");  // [n, m], [n, m], [n, 1], [k, m]
    const kd::Tensor s = ((a / b) * c).matmul(W.t());                      // [n, k]
    (s + s * s).sum().backward();
    const std::pair<const char*, const kd::Tensor*> grads[] = {{"a", &a}, {"b", &b}, {"c", &c}, {"W", &W}};
    for (const auto& [name, t] : grads) kd::save_npy(t->grad(), out + "/probe_grad_" + name + ".npy");
    // The engine's order on graphs where a node waits for several gradients: skip connections with a
    // parameter used at every step, and two roots, one inside the other's graph (ex4).
    kd::Tensor x2 = kd::load_npy(in + "/probe_x2.npy").requires_grad_(), w2 = kd::load_npy(in + "/probe_w2.npy").requires_grad_();
    {
      const kd::Tensor h = x2.tanh();
      kd::Tensor y = h;
      for (int i = 0; i < 6; ++i) y = (y * w2).tanh() + (i % 2 == 0 ? h : y * 0.5);
      (y * y).sum().backward();
      kd::save_npy(kd::stack({x2.grad(), w2.grad()}), out + "/probe_grad_skip.npy");
    }
    x2.set_grad(kd::Tensor());
    w2.set_grad(kd::Tensor());
    {
      const kd::Tensor y1 = (x2 * w2).exp();
      const kd::Tensor y2 = (y1 * x2).tanh().sum();
      kd::autograd::backward({y2, y1}, {kd::Tensor(), kd::load_npy(in + "/probe_g2.npy")});
      kd::save_npy(kd::stack({x2.grad(), w2.grad()}), out + "/probe_grad_roots.npy");
    }
    const kd::Tensor tol = kd::load_npy(in + "/probe_tol.npy");  // [atol, rtol]
    const kd::autograd::GradcheckResult probe = kd::autograd::gradcheck(
        [](const std::vector<kd::Tensor>& v) { return (v[0] * 3.0).exp().sum(); },
        {kd::load_npy(in + "/probe_z.npy").requires_grad_()},
        {.atol = tol[0].item<double>(), .rtol = tol[1].item<double>()});
    kd::save_npy(kd::tensor(std::vector<double>{probe.ok ? 1.0 : 0.0}, {1}), out + "/gradcheck.npy");
  }
  return 0;
}
