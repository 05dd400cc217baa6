#pragma once
/// @file
/// The backward engine: walks the graph from the outputs to the leaves in dependency order and
/// adds gradients into the leaves' `.grad` (`Tensor::backward` calls it).
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::autograd {

/// torch.autograd.backward: computes the gradients of `tensors` w.r.t. every leaf that requires
/// grad and *accumulates* them into the leaves' .grad. `grad_tensors[i]` is the gradient of
/// `tensors[i]` (may be omitted / undefined for one-element tensors, meaning 1). Unless
/// `retain_graph`, the tensors saved for backward are freed on the way.
void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors = {},
              bool retain_graph = false);

/// torch.autograd.grad: returns d(outputs)/d(inputs) (weighted by grad_outputs) *without* touching
/// any .grad. An input the outputs do not depend on gives an undefined tensor if `allow_unused`,
/// otherwise an AutogradError.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
                         bool allow_unused = false);

}  // namespace kindling::autograd
