// Chapter 2 — is a gradient right? gradcheck compares what backward computes with
// central finite differences, (f(x + eps) - f(x - eps)) / 2 eps, element by element in
// float64. A correct function passes; a function whose backward was planted wrong (its
// value is x^2, its gradient 3) is caught.
#include <kindling/autograd.hpp>

#include <cstdio>
#include <iostream>

namespace kd = kindling;

int main() {
  kd::manual_seed(0);
  // [snippet: ok]
  kd::Tensor a = kd::randn({3, 4}, {.dtype = kd::kFloat64, .requires_grad = true});
  kd::Tensor b = kd::randn({4}, {.dtype = kd::kFloat64, .requires_grad = true});
  auto f = [](const std::vector<kd::Tensor>& in) {
    return (in[0] * in[1]).tanh().sum(1);
  };  // [3]
  kd::autograd::GradcheckResult r = kd::autograd::gradcheck(f, {a, b});
  std::printf("tanh(a * b).sum(1): ok=%s, max |analytical - numerical| = %.2e\n",
              r.ok ? "true" : "false", r.max_abs_error);
  // [end]

  // [snippet: by-hand]
  // One entry by hand: d f[0] / d a[0, 0], numerically and from backward.
  const double eps = 1e-6;
  double plus, minus;
  {
    kd::NoGradGuard no_grad;
    kd::Tensor ap = a.clone(), am = a.clone();
    ap.index_put_({0, 0}, a.index({0, 0}).item<double>() + eps);
    am.index_put_({0, 0}, a.index({0, 0}).item<double>() - eps);
    plus = f({ap, b}).index({0}).item<double>();
    minus = f({am, b}).index({0}).item<double>();
  }
  f({a, b}).index({0}).backward();
  std::printf("d f[0]/d a[0,0]: numerical %.10f, backward %.10f\n",
              (plus - minus) / (2 * eps), a.grad().index({0, 0}).item<double>());
  // [end]

  // [snippet: planted]
  // value x^2, gradient 3: the detach() trick glues the value of one expression to the
  // gradient of another
  auto wrong = [](const std::vector<kd::Tensor>& in) {
    const kd::Tensor& x = in[0];
    return (x * x).detach() + 3 * x - (3 * x).detach();
  };
  kd::Tensor x = kd::randn({5}, {.dtype = kd::kFloat64, .requires_grad = true});
  r = kd::autograd::gradcheck(wrong, {x});
  std::cout << "planted wrong gradient: ok=" << std::boolalpha << r.ok << "\n"
            << r.message << "\n";
  // [end]
}
