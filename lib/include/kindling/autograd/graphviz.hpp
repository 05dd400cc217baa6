#pragma once
/// @file
/// The backward graph as a picture: Graphviz DOT text in the style of torchviz's make_dot.
/// Backward nodes are grey boxes named like PyTorch (MulBackward0), leaves are light-blue boxes
/// with their shape, the output is a green box. Render with `dot -Tsvg graph.dot -o graph.svg`.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kindling/autograd/hooks.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling::autograd {

/// DOT text of the graph that produced `output`. `params` names leaves (e.g. {"w", w}); unnamed
/// leaves show their shape only.
std::string to_dot(const Tensor& output, const std::map<std::string, Tensor>& params = {});

/// Watches the next backward through the graph of `output` and draws what it did: the same graph
/// with its arrows pointing the way the gradients travel (from the output down to the leaves),
/// every node numbered in the order the engine ran it and labelled with the gradient that reached
/// it (summed over its uses). Make it after the forward, call backward, then to_dot():
///
///     kd::autograd::GradientFlow flow(loss);
///     loss.backward();
///     std::ofstream("flow.dot") << flow.to_dot({{"w", w}});
///
/// It watches with node pre-hooks (register_prehook) and takes them out when it is destroyed.
class GradientFlow {
 public:
  explicit GradientFlow(const Tensor& output);
  ~GradientFlow();
  GradientFlow(const GradientFlow&) = delete;
  GradientFlow& operator=(const GradientFlow&) = delete;

  /// DOT text of the graph as backward ran it (torchviz's colours; gradients in the labels).
  std::string to_dot(const std::map<std::string, Tensor>& params = {}) const;

  /// What one node received: the run's step number (1 = the first node backward ran) and the
  /// gradient of each of its outputs (undefined where none arrived).
  struct Visit {
    int step = 0;
    std::vector<Tensor> grads;
  };
  /// The visit of `node`, or nullptr if backward has not reached it (yet).
  const Visit* visit(const Node* node) const;

 private:
  struct State;
  Tensor output_;
  std::shared_ptr<State> state_;
  std::vector<RemovableHandle> handles_;
};

}  // namespace kindling::autograd
