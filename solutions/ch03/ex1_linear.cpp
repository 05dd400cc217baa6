// ch03.ex1 — Linear: its parameters, PyTorch's initialisation, and y = x·Wᵀ + b.
//
// nn::Linear's constructor and reset_parameters (kindling/nn/linear.hpp); detail::linear_forward
// (lib/src/nn/pieces.hpp) is what functional::linear — so Linear::forward — computes after its checks.
#include <cmath>
#include <string>

#include "kindling/nn/init.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"
#include "nn/pieces.hpp"

namespace kindling::nn {

Linear::Linear(std::int64_t in, std::int64_t out, LinearOptions options) : in_features(in), out_features(out) {
  // BEGIN SOLUTION ex1: check the sizes, register weight [out, in] and bias [out], initialise
  if (in < 0 || out < 0) {
    throw ValueError("Linear: in_features and out_features must be non-negative, got " + std::to_string(in) + " and " +
                     std::to_string(out));
  }
  weight = register_parameter("weight", empty({out, in}));
  if (options.bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
  // END SOLUTION
}

void Linear::reset_parameters() {
  // BEGIN SOLUTION ex1: kaiming_uniform_(a = sqrt(5)) for the weight, U(-1/sqrt(in), 1/sqrt(in)) for the bias
  // PyTorch's Linear.reset_parameters: kaiming_uniform_(a=√5) gives U(-1/√in, 1/√in) for the weight.
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const double bound = in_features > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
  // END SOLUTION
}

namespace detail {

Tensor linear_forward(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  // BEGIN SOLUTION ex1: x times the transposed weight, plus the bias (broadcast over the rows)
  // x: [*, in] · weightᵀ: [in, out] → [*, out]; t() is a view, the GEMM reads it transposed.
  // Composed like PyTorch's F.linear, so the graph shows PyTorch's nodes: a batch of vectors is one
  // addmm (AddmmBackward0), a batch of sequences [B, T, in] one addmm on [B*T, in] (ViewBackward0 on
  // top), anything else matmul + add.
  if (bias.defined() && x.dim() == 2) return addmm(bias, x, weight.t());
  if (bias.defined() && x.dim() == 3 && x.is_contiguous()) {
    const Tensor y = addmm(bias, x.view({x.size(0) * x.size(1), x.size(2)}), weight.t());
    return y.view({x.size(0), x.size(1), y.size(1)});
  }
  Tensor y = x.matmul(weight.t());
  return bias.defined() ? y + bias : y;
  // END SOLUTION
}

}  // namespace detail
}  // namespace kindling::nn
