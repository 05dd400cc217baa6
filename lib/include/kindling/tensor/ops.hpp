#pragma once
/// @file
/// Free-function forms of the tensor operations (torch.add(a, b) ↔ kd::add(a, b)), plus ops that
/// take several tensors.
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling {

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& exponent);
Tensor pow(const Tensor& a, Scalar exponent);
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
/// Elementwise choice: condition ? a : b (condition is a bool tensor; all three broadcast).
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, Scalar b);
Tensor where(const Tensor& condition, Scalar a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor softmax(const Tensor& x, std::int64_t dim);
Tensor log_softmax(const Tensor& x, std::int64_t dim);
/// Joins tensors along an existing dimension.
Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// Joins same-shaped tensors along a new dimension (how a DataLoader makes a batch).
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// True when |a - b| <= atol + rtol * |b| everywhere after broadcasting a and b together, like
/// torch.allclose (NaNs count as equal if equal_nan). Mixed dtypes are refused, as in PyTorch.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);
/// True when shapes and values are equal.
bool equal(const Tensor& a, const Tensor& b);

}  // namespace kindling
