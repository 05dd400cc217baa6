#pragma once
/// @file
/// The backward graph as a picture: Graphviz DOT text in the style of torchviz's make_dot.
/// Backward nodes are grey boxes named like PyTorch (MulBackward0), leaves are light-blue boxes
/// with their shape, the output is a green box. Render with `dot -Tsvg graph.dot -o graph.svg`.
#include <map>
#include <string>

#include "kindling/tensor/tensor.hpp"

namespace kindling::autograd {

/// DOT text of the graph that produced `output`. `params` names leaves (e.g. {"w", w}); unnamed
/// leaves show their shape only.
std::string to_dot(const Tensor& output, const std::map<std::string, Tensor>& params = {});

}  // namespace kindling::autograd
