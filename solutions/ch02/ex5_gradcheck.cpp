// ex5 — gradcheck by hand: the Jacobian twice, by central differences and by autograd, compared.
#include "ch02/autograd_exercises.hpp"

#include <cmath>

namespace kindling::exercises::ch02 {

Tensor numerical_jacobian(const Function& f, const std::vector<Tensor>& inputs, std::size_t wrt, double eps) {
  // BEGIN SOLUTION ex5: perturb one element at a time by +eps and -eps (on copies), column j = (f+ - f-) / 2eps
  NoGradGuard no_grad;  // only values are needed here
  std::vector<Tensor> args = inputs;
  const Tensor x = inputs.at(wrt).detach().clone();  // our own copy, perturbed in place
  args[wrt] = x;
  const std::int64_t in_n = x.numel();
  const std::int64_t out_n = f(args).numel();
  Tensor jac = zeros({out_n, in_n}, {.dtype = kFloat64});
  double* px = x.data_ptr<double>();
  for (std::int64_t j = 0; j < in_n; ++j) {
    const double orig = px[j];
    px[j] = orig + eps;
    const std::vector<double> plus = f(args).to_vector<double>();
    px[j] = orig - eps;
    const std::vector<double> minus = f(args).to_vector<double>();
    px[j] = orig;
    double* pj = jac.data_ptr<double>();
    for (std::int64_t i = 0; i < out_n; ++i) pj[i * in_n + j] = (plus[i] - minus[i]) / (2 * eps);
  }
  return jac;
  // END SOLUTION
}

Tensor analytical_jacobian(const Function& f, const std::vector<Tensor>& inputs, std::size_t wrt) {
  // BEGIN SOLUTION ex5: one autograd::grad per output element, with a one-hot grad_output
  const Tensor out = f(inputs);
  const Tensor& x = inputs.at(wrt);
  const std::int64_t out_n = out.numel(), in_n = x.numel();
  Tensor jac = zeros({out_n, in_n}, {.dtype = kFloat64});
  if (!out.requires_grad()) return jac;  // the output does not depend on any input that requires grad
  for (std::int64_t i = 0; i < out_n; ++i) {
    Tensor onehot = zeros(out.shape(), {.dtype = out.dtype()});
    onehot.view({-1}).index_put_({i}, 1.0);
    const auto g = autograd::grad({out}, {x}, {onehot}, /*retain_graph=*/true, /*allow_unused=*/true);
    if (g[0].defined()) jac.select(0, i).copy_(g[0].reshape({-1}));
  }
  return jac;
  // END SOLUTION
}

bool check_gradients(const Function& f, const std::vector<Tensor>& inputs, double eps, double atol, double rtol) {
  // BEGIN SOLUTION ex5: compare the two Jacobians of every input that requires grad, entry by entry
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k].requires_grad()) continue;
    const std::vector<double> num = numerical_jacobian(f, inputs, k, eps).to_vector<double>();
    const std::vector<double> ana = analytical_jacobian(f, inputs, k).to_vector<double>();
    for (std::size_t i = 0; i < num.size(); ++i)
      if (!(std::fabs(ana[i] - num[i]) <= atol + rtol * std::fabs(num[i]))) return false;
  }
  return true;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch02
