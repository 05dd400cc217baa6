// ch03.ex2 — containers: Sequential and ModuleList hold their modules as children named "0", "1", ...
//
// nn::ModuleListBase::append_shared and operator[], nn::Sequential::forward (kindling/nn/container.hpp):
// push_back, append and the constructors of both containers call append_shared.
#include <string>

#include "kindling/nn/container.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::nn {

void ModuleListBase::append_shared(std::shared_ptr<Module> module) {
  // BEGIN SOLUTION ex2: refuse a null module, register it under its position as a name
  if (!module) throw ValueError(type_name() + ": cannot append a null module");
  const std::string name = std::to_string(size());
  register_module(name, std::move(module));
  // END SOLUTION
}

Module& ModuleListBase::operator[](std::ptrdiff_t index) const {
  // BEGIN SOLUTION ex2: Python's indexing: negative counts from the end, IndexError out of range
  const auto n = static_cast<std::ptrdiff_t>(size());
  const std::ptrdiff_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) {
    throw IndexError(type_name() + ": index " + std::to_string(index) + " is out of range for " + std::to_string(n) +
                     " modules");
  }
  return *child_slots()[static_cast<std::size_t>(i)].module;
  // END SOLUTION
}

Tensor Sequential::forward(const Tensor& x) {
  // BEGIN SOLUTION ex2: each child's output is the next one's input
  Tensor y = x;
  for (const Child& c : child_slots()) y = (*c.module)(y);  // like model(x): hooks run
  return y;
  // END SOLUTION
}

}  // namespace kindling::nn
