#pragma once
// Internal: the recorder that the autograd layer plugs into chapter 1's detail::set_recorder.
#include <string>
#include <vector>

#include "kindling/tensor/autograd_hooks.hpp"

namespace kindling::autograd {

/// Builds the backward node for one recorded forward call and attaches it to `outputs`.
void record_op(detail::OpRecord&& rec, std::vector<Tensor>& outputs);
/// "MulBackward0" for printing grad_fn=<...>.
std::string node_name_of(const Tensor& t);
/// Installs record_op and node_name_of in the tensor layer (idempotent).
void install_hooks();

}  // namespace kindling::autograd
