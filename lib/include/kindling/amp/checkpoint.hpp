#pragma once
/// @file
/// Activation checkpointing (`torch.utils.checkpoint.checkpoint`): trade compute for memory.
///
/// A forward pass keeps, for backward, the activations of every op of the graph. checkpoint(fn,
/// inputs) runs the segment `fn` *without* recording it -- only its inputs are kept -- and in
/// backward runs `fn` again, recording this time, and differentiates the recomputed segment. The
/// activations inside the segment live only during that part of backward: the segment's memory is
/// paid once at a time instead of for the whole forward, at the price of a second forward of it.
///
///     // x: [batch, 784]; block1 and block2 are nn modules
///     kd::Tensor h = kd::utils::checkpoint([&](const kd::Tensor& t) { return block1(t); }, x);
///     kd::Tensor out = kd::utils::checkpoint([&](const kd::Tensor& t) { return block2(t); }, h);
///
/// `fn` runs again during backward, after the function that called checkpoint may have returned:
/// capture by value what it uses (`[=]`, or `[&]` only for objects that outlive backward, like the
/// model). Tensors are cheap handles to copy.
///
/// As PyTorch's default (reentrant) version:
/// - the parameters `fn` uses get their gradients from the recomputation (accumulated into .grad);
/// - the state of the default random generator is saved before the forward and restored for the
///   recomputation, so dropout drops the same units twice (`preserve_rng_state`);
/// - `fn` must compute the same thing twice: no in-place change of what it reads, between forward
///   and backward (the saved inputs are checked); the result is not twice-differentiable;
/// - `fn` reads only its inputs and leaves (parameters): a non-leaf tensor it captured from outside
///   would take the recomputation's backward into the outer graph. Under `autograd::grad`, the
///   parameters inside still get their `.grad` accumulated (PyTorch refuses `.grad()` instead);
/// - when no input requires grad (the first segment, whose input is the data), PyTorch's
///   reentrant version warns and gives the parameters inside no gradient; Kindling checkpoints
///   the segment all the same and the parameters get their gradients (as PyTorch's
///   `use_reentrant=False` does).
#include <functional>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling::utils {

struct CheckpointOptions {
  bool preserve_rng_state = true;  ///< replay the default generator's state in the recomputation
};

/// A segment: tensors in, tensors out.
using CheckpointFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

/// Runs `fn(inputs)` keeping only `inputs` for backward; backward recomputes the segment.
std::vector<Tensor> checkpoint(CheckpointFn fn, const std::vector<Tensor>& inputs,
                               CheckpointOptions options = {});
/// The one-tensor form: `checkpoint(block, x)`.
Tensor checkpoint(std::function<Tensor(const Tensor&)> fn, const Tensor& input,
                  CheckpointOptions options = {});

}  // namespace kindling::utils
