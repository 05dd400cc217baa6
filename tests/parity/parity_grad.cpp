// Autograd hooks for the parity runner, linked into the suites of chapter 2 onwards.
#include <kindling/autograd.hpp>
#include <nlohmann/json.hpp>

#include "parity.hpp"

namespace {
nlohmann::json graph_of(const kindling::autograd::Node* n) {
  if (n == nullptr) return nullptr;
  nlohmann::json children = nlohmann::json::array();
  for (const auto& e : n->next_functions()) children.push_back(graph_of(e.function.get()));
  return nlohmann::json::array({n->name(), children});
}

const bool installed = [] {
  auto& h = parity::grad_hooks();
  h.requires_grad = [](kindling::Tensor& t) { t.requires_grad_(true); };
  h.backward = [](const std::vector<kindling::Tensor>& outs, const std::vector<kindling::Tensor>& grads) {
    for (std::size_t i = 0; i < outs.size(); ++i) outs[i].backward(grads[i], /*retain_graph=*/true);
  };
  h.grad = [](const kindling::Tensor& t) { return t.grad(); };
  h.graph = [](const kindling::Tensor& t) { return graph_of(t.grad_fn().get()).dump(); };
  return true;
}();
}  // namespace
