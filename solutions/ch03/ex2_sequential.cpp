// ex2 — a Sequential container: own the children, register each under its position, chain forward.
#include "ch03/module_exercises.hpp"

namespace kindling::exercises::ch03 {

Sequential& Sequential::push_back(std::shared_ptr<nn::Module> module) {
  // BEGIN SOLUTION ex2: register the child under std::to_string(size()), then keep it in layers_
  // Registering is what makes the child's parameters, buffers, train()/eval() and printing visible
  // through this container; layers_ keeps the order and the ownership.
  register_module(std::to_string(layers_.size()), module);
  layers_.push_back(std::move(module));
  return *this;
  // END SOLUTION
}

Tensor Sequential::forward(const Tensor& x) {
  // BEGIN SOLUTION ex2: feed each child's output to the next
  Tensor h = x;
  for (const auto& layer : layers_) h = (*layer)(h);
  return h;
  // END SOLUTION
}

std::size_t Sequential::size() const {
  // BEGIN SOLUTION ex2: the number of children
  return layers_.size();
  // END SOLUTION
}

nn::Module& Sequential::operator[](std::size_t i) const {
  // BEGIN SOLUTION ex2: the i-th child, IndexError when out of range
  if (i >= layers_.size()) {
    throw IndexError("Sequential: index " + std::to_string(i) + " is out of range for a Sequential of " +
                     std::to_string(layers_.size()) + " modules");
  }
  return *layers_[i];
  // END SOLUTION
}

}  // namespace kindling::exercises::ch03
