// Module hooks, with PyTorch's order of events for `model(x)`:
//   forward pre-hooks -> (full backward hooks: the input passes through an identity node) ->
//   forward -> forward hooks -> (full backward hooks: the output passes through an identity node).
// In backward, the output's identity node sees grad_output first and keeps it; the input's identity
// node then sees grad_input and calls the backward hooks with both (PyTorch's BackwardHook). When
// the input does not require grad there is no input node: the hooks run at the output's node,
// with grad_input undefined -- as PyTorch passes (None,).
#include <algorithm>
#include <atomic>
#include <optional>

#include "kindling/autograd/function.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/nn/module.hpp"

namespace kindling::nn {

struct Module::Hooks {
  template <class F>
  struct Entry {
    std::uint64_t id;
    F fn;
  };
  std::vector<Entry<ForwardPreHook>> forward_pre;
  std::vector<Entry<ForwardHook>> forward;
  std::vector<Entry<BackwardHook>> backward;
  bool empty() const { return forward_pre.empty() && forward.empty() && backward.empty(); }
};

namespace {

std::uint64_t next_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// What one call's two identity nodes share.
struct BackwardCall {
  Module* module = nullptr;
  std::vector<Module::BackwardHook> hooks;  // a copy: removing a hook later does not touch this call
  Tensor grad_output;
  bool input_hooked = false;
};

Tensor run_backward_hooks(BackwardCall& call, const Tensor& grad_input) {
  Tensor g = grad_input;
  for (auto& h : call.hooks) {
    Tensor r = h(*call.module, g, call.grad_output);
    if (r.defined() && g.defined()) {
      if (r.shape() != g.shape()) {
        throw ShapeError("register_full_backward_hook: a hook on " + call.module->type_name() +
                         " returned grad_input of shape " + shape_str(r.shape()) + " for one of shape " +
                         shape_str(g.shape()) + ". Hint: return a gradient of the input's shape, or nothing.");
      }
      g = r;
    }
  }
  return g;
}

// The identity the module's input passes through: its backward is where grad_input is known.
struct BackwardHookInput : autograd::Function<BackwardHookInput> {
  static constexpr const char* name = "BackwardHookFunctionBackward";
  std::shared_ptr<BackwardCall> call;
  Tensor forward(autograd::Context&, const Tensor& x, const std::shared_ptr<BackwardCall>& c) {
    call = c;
    return x;
  }
  autograd::Grads backward(autograd::Context&, const autograd::Grads& grad) {
    return {run_backward_hooks(*call, grad[0])};
  }
};

// The identity the module's output passes through: it keeps grad_output for the input's node.
struct BackwardHookOutput : autograd::Function<BackwardHookOutput> {
  static constexpr const char* name = "BackwardHookFunctionBackward";
  std::shared_ptr<BackwardCall> call;
  Tensor forward(autograd::Context&, const Tensor& y, const std::shared_ptr<BackwardCall>& c) {
    call = c;
    return y;
  }
  autograd::Grads backward(autograd::Context&, const autograd::Grads& grad) {
    call->grad_output = grad[0];
    if (!call->input_hooked) run_backward_hooks(*call, Tensor());
    return {grad[0]};
  }
};

template <class H, class List>
autograd::RemovableHandle remover(const std::shared_ptr<H>& hooks, List H::*list, std::uint64_t id) {
  std::weak_ptr<H> weak = hooks;
  return autograd::RemovableHandle([weak, list, id] {
    if (auto h = weak.lock()) std::erase_if((*h).*list, [id](const auto& e) { return e.id == id; });
  });
}

}  // namespace

autograd::RemovableHandle Module::register_forward_pre_hook(ForwardPreHook hook) {
  if (!hook) throw ValueError("register_forward_pre_hook: the hook is empty.");
  if (!hooks_) hooks_ = std::make_shared<Hooks>();
  const std::uint64_t id = next_id();
  hooks_->forward_pre.push_back({id, std::move(hook)});
  return remover(hooks_, &Hooks::forward_pre, id);
}

autograd::RemovableHandle Module::register_forward_hook(ForwardHook hook) {
  if (!hook) throw ValueError("register_forward_hook: the hook is empty.");
  if (!hooks_) hooks_ = std::make_shared<Hooks>();
  const std::uint64_t id = next_id();
  hooks_->forward.push_back({id, std::move(hook)});
  return remover(hooks_, &Hooks::forward, id);
}

autograd::RemovableHandle Module::register_full_backward_hook(BackwardHook hook) {
  if (!hook) throw ValueError("register_full_backward_hook: the hook is empty.");
  if (!hooks_) hooks_ = std::make_shared<Hooks>();
  const std::uint64_t id = next_id();
  hooks_->backward.push_back({id, std::move(hook)});
  return remover(hooks_, &Hooks::backward, id);
}

Tensor Module::call_with_hooks(const Tensor& input, SourceLocation where) {
  std::optional<autograd::CallSiteGuard> site;  // anomaly mode: nodes made below know this call
  if (autograd::is_anomaly_enabled()) site.emplace(type_name(), where);
  if (!hooks_ || hooks_->empty()) return forward(input);
  // Hooks may add or remove hooks while they run: each list is copied first (PyTorch iterates a
  // snapshot of its dicts too).
  std::shared_ptr<Hooks> keep = hooks_;
  Tensor x = input;
  for (auto h : std::vector(keep->forward_pre)) {
    Tensor r = h.fn(*this, x);
    if (r.defined()) x = r;
  }
  std::shared_ptr<BackwardCall> call;
  if (!keep->backward.empty() && autograd::is_grad_enabled()) {
    call = std::make_shared<BackwardCall>();
    call->module = this;
    for (const auto& e : keep->backward) call->hooks.push_back(e.fn);
    if (x.defined() && x.requires_grad()) {
      call->input_hooked = true;
      x = BackwardHookInput::apply(x, call);
    }
  }
  Tensor out = forward(x);
  for (auto h : std::vector(keep->forward)) {
    Tensor r = h.fn(*this, x, out);
    if (r.defined()) out = r;
  }
  if (call && out.defined() && out.requires_grad()) out = BackwardHookOutput::apply(out, call);
  return out;
}

}  // namespace kindling::nn
