// A "library call" submission: let the engine find the order itself -- by running backward from
// the roots, which calls count_dependencies (this very function) again.
#include "autograd/pieces.hpp"
#include "kindling/autograd/engine.hpp"

namespace kindling::autograd {
void count_dependencies(std::span<Node* const> roots, EngineSlots& slots) {
  for (Node* r : roots) {
    slots.visit(r);
    for (const Edge& e : r->next_functions()) {
      if (!e.function) continue;
      slots.visit(e.function.get());
      ++slots.task(e.function.get()).dependencies;
    }
  }
  backward({}, {});  // "the library knows the order"
}
}  // namespace kindling::autograd
