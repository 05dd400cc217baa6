// Tensor hooks: t.register_hook(fn) and the handles that remove them. A hook lives on the node
// that receives t's gradient -- t.grad_fn() for a non-leaf, the AccumulateGrad of a leaf (through
// the leaf's AutogradMeta, which outlives any one accumulator) -- and the engine runs it on that
// gradient before the node's formula sees it (run_pre_hooks).
#include "kindling/autograd/hooks.hpp"

#include <atomic>
#include <string>

#include "kindling/autograd/autograd_meta.hpp"
#include "kindling/autograd/node.hpp"
#include "autograd/engine_hooks.hpp"

namespace kindling::autograd {

RemovableHandle::RemovableHandle(std::function<void()> remover)
    : state_(std::make_shared<std::function<void()>>(std::move(remover))) {}

void RemovableHandle::remove() {
  if (!state_ || !*state_) return;
  auto remover = std::move(*state_);
  *state_ = nullptr;  // every copy of this handle sees it removed
  remover();
}

namespace {
std::uint64_t next_hook_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// The remover holds the hook list weakly: removing a hook after its graph is gone does nothing.
RemovableHandle add_pre_hook(const std::shared_ptr<NodeHooks>& hooks, std::uint32_t output_nr, TensorHook fn) {
  const std::uint64_t id = next_hook_id();
  hooks->pre_hooks.push_back({id, output_nr, std::move(fn)});
  std::weak_ptr<NodeHooks> weak = hooks;
  return RemovableHandle([weak, id] {
    if (auto h = weak.lock()) std::erase_if(h->pre_hooks, [id](const NodeHooks::PreHook& p) { return p.id == id; });
  });
}
}  // namespace

RemovableHandle register_prehook(Node& node, TensorHook fn, std::uint32_t output_nr) {
  if (!fn) throw ValueError(std::string("register_prehook: the hook on ") + node.name() + " is empty.");
  if (output_nr >= node.num_outputs()) {
    throw ValueError(std::string("register_prehook: ") + node.name() + " has " + std::to_string(node.num_outputs()) +
                     " output(s), there is no output " + std::to_string(output_nr) + ".");
  }
  node.ensure_hooks();
  return add_pre_hook(node.shared_hooks(), output_nr, std::move(fn));
}

void run_pre_hooks(const Node& node, Grads& grads) {
  NodeHooks* hooks = node.hooks();
  if (hooks->pre_hooks.empty()) return;
  // A hook may remove itself (or others) while it runs: iterate over a copy.
  const std::vector<NodeHooks::PreHook> list = hooks->pre_hooks;
  for (const auto& h : list) {
    if (h.output_nr >= grads.size() || !grads[h.output_nr].defined()) continue;
    Tensor replaced = h.fn(grads[h.output_nr]);
    if (!replaced.defined()) continue;
    const Tensor& old = grads[h.output_nr];
    if (replaced.shape() != old.shape()) {
      throw AutogradError(std::string("register_hook: a hook on ") + node.name() + " returned a gradient of shape " +
                          shape_str(replaced.shape()) + " for one of shape " + shape_str(old.shape()) +
                          ". Hint: a hook returns a gradient of the same shape (or nothing to keep it).");
    }
    if (replaced.dtype() != old.dtype() || replaced.device() != old.device()) {
      // PyTorch: "hook has changed the type of value". Converting silently would hide the mistake.
      throw AutogradError(std::string("register_hook: a hook on ") + node.name() + " changed the type of the "
                          "gradient: it returned a " + dtype_name(replaced.dtype()) + " tensor on " +
                          replaced.device().str() + " for a " + dtype_name(old.dtype()) + " one on " +
                          old.device().str() + ". Hint: return g.to(grad.dtype()) (a hook keeps the gradient's "
                          "dtype and device).");
    }
    grads[h.output_nr] = replaced;
  }
}

void run_post_accumulate_hooks(const Node& node) {
  NodeHooks* hooks = node.hooks();
  if (hooks->post_accumulate_hooks.empty()) return;
  const auto* acc = dynamic_cast<const AccumulateGrad*>(&node);
  if (!acc) return;
  const std::vector<NodeHooks::PostAccumulateHook> list = hooks->post_accumulate_hooks;  // a hook may remove itself
  for (const auto& h : list) h.fn(acc->variable());
}

RemovableHandle register_post_accumulate_grad_hook(const Tensor& leaf, std::function<void(const Tensor&)> fn) {
  if (!leaf.defined()) throw ValueError("register_post_accumulate_grad_hook: the tensor is undefined.");
  AutogradMeta* meta = autograd_meta(leaf);
  if (!meta || !meta->requires_grad || meta->grad_fn) {
    throw AutogradError("register_post_accumulate_grad_hook: the tensor (shape " + shape_str(leaf.shape()) +
                        ") is not a leaf that requires grad; only leaves (parameters) accumulate into .grad.");
  }
  if (!fn) throw ValueError("register_post_accumulate_grad_hook: the hook is empty.");
  if (!meta->leaf_hooks) {  // as in register_hook: shared with whichever AccumulateGrad the leaf has
    auto acc = meta->grad_accumulator.lock();
    meta->leaf_hooks = acc && acc->shared_hooks() ? acc->shared_hooks() : std::make_shared<NodeHooks>();
    if (acc) acc->set_hooks(meta->leaf_hooks);
  }
  const std::uint64_t id = next_hook_id();
  meta->leaf_hooks->post_accumulate_hooks.push_back({id, std::move(fn)});
  std::weak_ptr<NodeHooks> weak = meta->leaf_hooks;
  return RemovableHandle([weak, id] {
    if (auto h = weak.lock()) {
      std::erase_if(h->post_accumulate_hooks, [id](const NodeHooks::PostAccumulateHook& p) { return p.id == id; });
    }
  });
}

}  // namespace kindling::autograd

namespace kindling {

autograd::RemovableHandle Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  if (!defined()) throw ValueError("register_hook: the tensor is undefined.");
  autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  if (!meta || !meta->requires_grad) {
    throw AutogradError("register_hook: cannot register a hook on a tensor that doesn't require gradient "
                        "(shape " + shape_str(shape()) + "). Hint: call requires_grad_() on the leaf first, "
                        "or register the hook on a tensor computed from one.");
  }
  if (!hook) throw ValueError("register_hook: the hook is empty.");
  if (meta->grad_fn) {
    autograd::Node& node = *meta->grad_fn;
    node.ensure_hooks();
    return autograd::add_pre_hook(node.shared_hooks(), meta->output_nr, std::move(hook));
  }
  // A leaf: the hooks live in its meta and reach whichever AccumulateGrad it has now or later.
  if (!meta->leaf_hooks) {
    // The leaf's AccumulateGrad may already carry hooks of its own (register_prehook, an anomaly
    // trace): the leaf adopts them rather than replacing them.
    auto acc = meta->grad_accumulator.lock();
    meta->leaf_hooks = acc && acc->shared_hooks() ? acc->shared_hooks() : std::make_shared<autograd::NodeHooks>();
    if (acc) acc->set_hooks(meta->leaf_hooks);
  }
  return autograd::add_pre_hook(meta->leaf_hooks, 0, std::move(hook));
}

}  // namespace kindling
