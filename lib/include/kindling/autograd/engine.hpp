#pragma once
/// @file
/// The backward engine: walks the graph from the outputs to the leaves in dependency order and
/// adds gradients into the leaves' `.grad` (`Tensor::backward` calls it).
#include <optional>
#include <vector>

#include "kindling/autograd/node.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::autograd {

/// torch.autograd.backward: computes the gradients of `tensors` w.r.t. every leaf that requires
/// grad and *accumulates* them into the leaves' .grad. `grad_tensors[i]` is the gradient of
/// `tensors[i]` (may be omitted / undefined for one-element tensors, meaning 1). Unless
/// `retain_graph` (default: create_graph), the tensors saved for backward are freed on the way.
/// `create_graph` records the backward pass too, so the gradients can be differentiated again.
void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

/// Options of autograd::grad, with designated initialisers: `grad({y}, {x}, {}, {.create_graph = true})`.
struct GradOptions {
  std::optional<bool> retain_graph;  ///< keep saved tensors for another backward (default: create_graph)
  bool create_graph = false;         ///< record the backward pass: the result can be differentiated
  bool allow_unused = false;         ///< an input the outputs do not depend on gets an undefined tensor
};

/// torch.autograd.grad: returns d(outputs)/d(inputs) (weighted by grad_outputs) *without* touching
/// any .grad. An input the outputs do not depend on gives an undefined tensor if `allow_unused`,
/// otherwise an AutogradError.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, const GradOptions& options);
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
                         bool allow_unused = false);

/// What the engine does to every gradient a formula returns for an input that was broadcast in
/// the forward pass: sums it back to the input's shape. grad [4, 3, 5] -> shape [3, 1] sums dim 0
/// away, then dim 2 keeping it as size 1. (PyTorch's sum_to, in validate_outputs.)
Tensor sum_to(const Tensor& grad, const Shape& shape);
/// True when `shape` broadcasts to `target` (so a gradient of shape target can be summed to it).
bool is_expandable_to(const Shape& shape, const Shape& target);

}  // namespace kindling::autograd
