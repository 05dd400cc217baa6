// The simple layers: Linear, activations, Dropout, Flatten and the containers. Each holds its
// parameters and calls the matching functional:: op.
#include <cmath>
#include <cstdint>

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
// The constructor and reset_parameters are chapter 3's exercise 1 (nn/pieces.hpp): in the answer file.
Tensor Linear::forward(const Tensor& x) { return F::linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + detail::py_bool(bias.defined());
}

// ---- activations ------------------------------------------------------------------------------
Tensor ReLU::forward(const Tensor& x) { return F::relu(x); }
Tensor ReLU6::forward(const Tensor& x) { return F::relu6(x); }  // hardtanh(x, 0, 6), as PyTorch's
// x·relu6(x + 3)/6 written with clamp: its gradient at -3 and 3 (clamp's passes at the bounds) is
// PyTorch's hardswish_backward's, -0.5 and 1.5.
Tensor Hardswish::forward(const Tensor& x) {
  if (!x.is_floating_point()) {
    throw DTypeError("Hardswish: expected a floating-point input but got " + std::string(dtype_name(x.dtype())) +
                     ". Hint: x.to(kFloat32)");
  }
  return x * (x + 3.0).clamp(0.0, 6.0) / 6.0;
}
Tensor Sigmoid::forward(const Tensor& x) { return F::sigmoid(x); }
Tensor Tanh::forward(const Tensor& x) { return F::tanh(x); }
GELU::GELU(std::string approximate_) : approximate(std::move(approximate_)) {
  if (approximate != "none" && approximate != "tanh")
    throw ValueError("GELU: approximate must be 'none' or 'tanh', got '" + approximate + "'");
}
Tensor GELU::forward(const Tensor& x) { return F::gelu(x, approximate); }
Tensor LeakyReLU::forward(const Tensor& x) { return F::leaky_relu(x, negative_slope); }
std::string LeakyReLU::extra_repr() const { return "negative_slope=" + detail::py_float(negative_slope); }
Tensor SiLU::forward(const Tensor& x) { return F::silu(x); }
Tensor ELU::forward(const Tensor& x) { return F::elu(x, alpha); }
std::string ELU::extra_repr() const { return "alpha=" + detail::py_float(alpha); }
Tensor Softplus::forward(const Tensor& x) { return F::softplus(x, beta, threshold); }
// PyTorch's defaults are the ints 1 and 20, printed "beta=1, threshold=20": print whole numbers so.
std::string Softplus::extra_repr() const {
  auto num = [](double v) {
    return std::trunc(v) == v && std::abs(v) < 1e15 ? std::to_string(static_cast<std::int64_t>(v)) : detail::py_float(v);
  };
  return "beta=" + num(beta) + ", threshold=" + num(threshold);
}
Tensor Softmax::forward(const Tensor& x) { return F::softmax(x, dim); }
Tensor LogSoftmax::forward(const Tensor& x) { return F::log_softmax(x, dim); }

// ---- Dropout, Flatten -------------------------------------------------------------------------
Dropout::Dropout(double p_, bool inplace_) : p(p_), inplace(inplace_) {
  if (!(p >= 0.0 && p <= 1.0))
    throw ValueError("Dropout: probability has to be between 0 and 1, but got " + detail::py_float(p));
}
Tensor Dropout::forward(const Tensor& x) { return F::dropout(x, p, is_training()); }
std::string Dropout::extra_repr() const {
  return "p=" + detail::py_float(p) + ", inplace=" + detail::py_bool(inplace);
}

Tensor Flatten::forward(const Tensor& x) { return F::flatten(x, start_dim, end_dim); }

// ---- containers -------------------------------------------------------------------------------
// append_shared, operator[] and Sequential::forward are chapter 3's exercise 2 (nn/pieces.hpp): in the
// answer file.

Tensor ModuleList::forward(const Tensor&) {
  throw NotImplemented("ModuleList has no forward(): it only holds modules. Hint: loop over it in your own "
                       "forward: for (kd::nn::Module& layer : layers) x = layer(x);");
}

}  // namespace kindling::nn
