// The recorder slot and grad mode: all chapter 1 knows about autograd.
#include "kindling/tensor/autograd_hooks.hpp"

#include <atomic>

namespace kindling::detail {
namespace {
std::atomic<Recorder> g_recorder{nullptr};
std::atomic<NodeNameFn> g_node_name_fn{nullptr};
thread_local bool t_grad_mode = true;
}  // namespace

void set_recorder(Recorder r) { g_recorder.store(r); }
Recorder recorder() { return g_recorder.load(std::memory_order_relaxed); }
void set_node_name_fn(NodeNameFn fn) { g_node_name_fn.store(fn); }
NodeNameFn node_name_fn() { return g_node_name_fn.load(std::memory_order_relaxed); }
bool grad_mode_enabled() { return t_grad_mode; }
void set_grad_mode_enabled(bool enabled) { t_grad_mode = enabled; }

bool needs_grad(const std::vector<Tensor>& inputs) {
  if (!grad_mode_enabled() || recorder() == nullptr) return false;
  for (const auto& t : inputs)
    if (t.defined() && t.impl()->requires_grad) return true;
  return false;
}

Tensor record(OpRecord&& rec, Tensor out) {
  if (needs_grad(rec.inputs)) {
    std::vector<Tensor> outs{out};
    recorder()(std::move(rec), outs);
  }
  return out;
}

void record(OpRecord&& rec, std::vector<Tensor>& outs) {
  if (needs_grad(rec.inputs)) recorder()(std::move(rec), outs);
}

void check_inplace(const Tensor& self, const char* op) {
  const TensorImpl* impl = self.impl();
  if (impl && impl->requires_grad && impl->grad_fn == nullptr && grad_mode_enabled()) {
    throw AutogradError(std::string(op) + ": a leaf tensor that requires grad is being modified in place. "
                        "Autograd would lose track of its value. Hint: do it inside a "
                        "`kd::NoGradGuard no_grad;` scope (as optimizers do), or work on a clone().");
  }
  if (impl && impl->requires_grad && grad_mode_enabled()) {
    throw AutogradError(std::string(op) + ": in-place operations on tensors that are part of the autograd "
                        "graph are not supported by Kindling. Hint: write `y = y + x` instead of "
                        "`y += x`, or modify the tensor under kd::NoGradGuard.");
  }
}

}  // namespace kindling::detail
