// The simple layers: Linear, activations, Dropout, Flatten and the containers. Each holds its
// parameters and calls the matching functional:: op.
#include <cmath>

#include "kindling/nn/activation.hpp"
#include "kindling/nn/container.hpp"
#include "kindling/nn/dropout.hpp"
#include "kindling/nn/flatten.hpp"
#include "kindling/nn/functional.hpp"
#include "kindling/nn/init.hpp"
#include "kindling/nn/linear.hpp"
#include "kindling/tensor/creation.hpp"
#include "nn/repr.hpp"

namespace kindling::nn {

namespace F = functional;

// ---- Linear -----------------------------------------------------------------------------------
Linear::Linear(std::int64_t in, std::int64_t out, LinearOptions options) : in_features(in), out_features(out) {
  if (in < 0 || out < 0) {
    throw ValueError("Linear: in_features and out_features must be non-negative, got " + std::to_string(in) + " and " +
                     std::to_string(out));
  }
  weight = register_parameter("weight", empty({out, in}));
  if (options.bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Linear::reset_parameters() {
  // PyTorch's Linear.reset_parameters: kaiming_uniform_(a=√5) gives U(-1/√in, 1/√in) for the weight.
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double bound = in_features > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor Linear::forward(const Tensor& x) { return F::linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + detail::py_bool(bias.defined());
}

// ---- activations ------------------------------------------------------------------------------
Tensor ReLU::forward(const Tensor& x) { return F::relu(x); }
Tensor Sigmoid::forward(const Tensor& x) { return F::sigmoid(x); }
Tensor Tanh::forward(const Tensor& x) { return F::tanh(x); }
GELU::GELU(std::string approximate_) : approximate(std::move(approximate_)) {
  if (approximate != "none" && approximate != "tanh")
    throw ValueError("GELU: approximate must be 'none' or 'tanh', got '" + approximate + "'");
}
Tensor GELU::forward(const Tensor& x) { return F::gelu(x, approximate); }
Tensor Softmax::forward(const Tensor& x) { return F::softmax(x, dim); }
Tensor LogSoftmax::forward(const Tensor& x) { return F::log_softmax(x, dim); }

// ---- Dropout, Flatten -------------------------------------------------------------------------
Dropout::Dropout(double p_) : p(p_) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError("Dropout: probability has to be between 0 and 1, but got " + detail::py_float(p));
}
Tensor Dropout::forward(const Tensor& x) { return F::dropout(x, p, is_training()); }
std::string Dropout::extra_repr() const { return "p=" + detail::py_float(p) + ", inplace=False"; }

Tensor Flatten::forward(const Tensor& x) { return F::flatten(x, start_dim, end_dim); }

// ---- containers -------------------------------------------------------------------------------
void ModuleListBase::append_shared(std::shared_ptr<Module> module) {
  if (!module) throw ValueError(type_name() + ": cannot append a null module");
  const std::string name = std::to_string(size());
  register_module(name, std::move(module));
}

Module& ModuleListBase::operator[](std::ptrdiff_t index) const {
  const auto n = static_cast<std::ptrdiff_t>(size());
  const std::ptrdiff_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) {
    throw IndexError(type_name() + ": index " + std::to_string(index) + " is out of range for " + std::to_string(n) +
                     " modules");
  }
  return *child_slots()[static_cast<std::size_t>(i)].module;
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (const Child& c : child_slots()) y = c.module->forward(y);
  return y;
}

Tensor ModuleList::forward(const Tensor&) {
  throw NotImplemented("ModuleList has no forward(): it only holds modules. Hint: loop over it in your own "
                       "forward: for (kd::nn::Module& layer : layers) x = layer(x);");
}

}  // namespace kindling::nn
