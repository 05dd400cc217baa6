// Autograd hooks for the parity runner, linked into the suites of chapter 2 onwards.
#include <kindling/autograd.hpp>

#include "parity.hpp"

namespace {
const bool installed = [] {
  auto& h = parity::grad_hooks();
  h.requires_grad = [](kindling::Tensor& t) { t.requires_grad_(true); };
  h.backward = [](const std::vector<kindling::Tensor>& outs, const std::vector<kindling::Tensor>& grads) {
    for (std::size_t i = 0; i < outs.size(); ++i) outs[i].backward(grads[i], /*retain_graph=*/true);
  };
  h.grad = [](const kindling::Tensor& t) { return t.grad(); };
  return true;
}();
}  // namespace
