// Nodes of the backward graph: the base class (with its iterative destructor), the leaves'
// AccumulateGrad, and gradient_edge -- where the gradient of a tensor goes.
#include "kindling/autograd/node.hpp"

#include <atomic>
#include <mutex>
#include <string>

#include "kindling/autograd/autograd_meta.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/autograd/hooks.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::autograd {

namespace {
std::atomic<std::uint64_t> g_next_sequence_nr{0};
}  // namespace

Node::Node(std::uint32_t num_outputs)
    : num_outputs_(num_outputs), sequence_nr_(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {
  if (is_anomaly_enabled()) [[unlikely]] ensure_hooks().trace = current_trace();
}

NodeHooks& Node::ensure_hooks() {
  if (!hooks_) hooks_ = std::make_shared<NodeHooks>();
  return *hooks_;
}

// A chain y_n = f(y_{n-1}) is a linked list of nodes. Letting each node's shared_ptr members die
// naturally would destroy node n-1 inside node n's destructor, n-2 inside that, ... -- one stack
// frame per node, and a crash for long chains. Instead, the first destructor on this thread becomes
// the "drainer": nodes about to die are moved onto a thread-local stack and destroyed one at a time.
Node::~Node() {
  thread_local std::vector<std::shared_ptr<Node>> pending;
  thread_local bool draining = false;
  for (auto& edge : next_functions_) {
    if (edge.function && edge.function.use_count() == 1) pending.push_back(std::move(edge.function));
  }
  if (draining) return;
  draining = true;
  while (!pending.empty()) {
    std::shared_ptr<Node> victim = std::move(pending.back());
    pending.pop_back();
    victim.reset();  // its destructor pushes its own dying children onto `pending`
  }
  draining = false;
}

void Node::add_input(const Tensor& t) {
  if (!t.defined()) {
    next_functions_.push_back({});
    input_metadata_.push_back({});
    return;
  }
  next_functions_.push_back(gradient_edge(t));
  input_metadata_.push_back({t.shape(), t.dtype(), t.device()});
}

void Node::add_retained_grad(const std::shared_ptr<TensorImpl>& tensor, std::uint32_t output_nr) {
  for (const auto& r : retained_) {
    if (r.output_nr == output_nr && r.tensor.lock() == tensor) return;
  }
  retained_.push_back({tensor, output_nr});
}

// ---- AccumulateGrad -----------------------------------------------------------------------------
// One AccumulateGrad per leaf, shared by every op that uses it (so next_functions of two ops that
// read the same parameter point at the same node, as in PyTorch). The leaf's AutogradMeta holds it
// weakly; the graph holds it strongly.

AccumulateGrad::AccumulateGrad(Tensor variable) : Node(1), variable_(std::move(variable)) {}

// May `incoming` itself become .grad? Only if nobody else can see it (and it is a plain dense
// tensor of the leaf's dtype). A stride-0 expanded gradient, or one shared with another leaf
// (AddBackward0 passes the same tensor to both inputs), must not: a later in-place accumulation
// would corrupt it.
namespace {
bool can_steal(const Tensor& incoming, const Tensor& variable) {
  return incoming.impl_ptr().use_count() == 1 && incoming.storage().use_count() == 1 && incoming.is_contiguous() &&
         incoming.storage_offset() == 0 && incoming.dtype() == variable.dtype() && !incoming.impl()->autograd_meta;
}
}  // namespace

Grads AccumulateGrad::apply(Grads&& grad_outputs) {
  Tensor& incoming = grad_outputs[0];
  if (!incoming.defined()) return {};
  AutogradMeta& meta = materialize_autograd_meta(variable_);
  if (is_grad_enabled()) {
    // create_graph: the gradient is itself part of a graph (a gradient penalty differentiates it
    // again), so it is copied and combined out of place, keeping its history (as PyTorch does).
    meta.grad = meta.grad.defined() ? meta.grad + incoming : incoming.clone();
    return {};
  }
  if (!meta.grad.defined()) {
    // First gradient: keep it if nobody else can see it (can_steal), else copy.
    Tensor g = incoming;
    if (!can_steal(incoming, variable_)) {
      g = incoming.to(variable_.dtype()).contiguous();
      if (g.shares_storage(incoming)) {
        // still aliases someone else's memory: copy it (empty_like + copy_, which every device has)
        g = empty_like(g);
        g.copy_(incoming);
      }
    }
    meta.grad = g;
  } else if (meta.grad.device().is_cpu() && incoming.device().is_cpu() && grad_is_zeroed(meta)) {
    // (CPU only: a device's .grad keeps the plain add_ below, its kernel; the write-instead-of-add
    // saving is a CPU memory-traffic one.)
    // zero_grad zeroed .grad in place and nothing wrote to it since: 0 + g is g, so the gradient
    // is written rather than added, one pass over memory fewer. When nobody else holds .grad (no
    // handle, no view: the zeros are visible only through this leaf) and `incoming` may be kept,
    // .grad simply becomes `incoming`: no pass at all. The one trace is the address of .grad's
    // memory, which changes as it does after zero_grad(set_to_none=true).
    const Tensor& zeros = meta.grad;
    const bool unseen = zeros.impl_ptr().use_count() == 1 && zeros.storage().use_count() == 1 &&
                        zeros.storage()->owns_memory() && zeros.is_contiguous();
    if (unseen && can_steal(incoming, variable_)) meta.grad = incoming;
    else meta.grad.copy_(incoming);
  } else {
    // Later gradients are ADDED in place: x.grad is the same tensor after the second backward,
    // and holds the sum of both -- which is why training loops call zero_grad().
    meta.grad.add_(incoming);
  }
  return {};
}

void zero_grad_in_place(const Tensor& leaf) {
  AutogradMeta* meta = autograd_meta(leaf);
  if (meta == nullptr || !meta->grad.defined()) return;
  NoGradGuard no_grad;
  meta->grad.zero_();
  if (!meta->zeroed) meta->zeroed = std::make_unique<ZeroedGrad>();
  meta->zeroed->grad = meta->grad.impl_ptr();
  meta->zeroed->version = meta->grad.storage()->version();
}

bool grad_is_zeroed(const AutogradMeta& meta) {
  // The same tensor (not one made since at the same address: a weak pointer), unwritten since:
  // every in-place write bumps its storage's version.
  const ZeroedGrad* z = meta.zeroed.get();
  return z != nullptr && meta.grad.defined() && !z->grad.owner_before(meta.grad.impl_ptr()) &&
         !meta.grad.impl_ptr().owner_before(z->grad) && !z->grad.expired() &&
         meta.grad.storage()->version() == z->version;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  static std::mutex mutex;  // two threads building graphs on one parameter share one accumulator
  AutogradMeta& meta = materialize_autograd_meta(leaf);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto existing = meta.grad_accumulator.lock()) return existing;
  auto node = std::make_shared<AccumulateGrad>(leaf);
  if (meta.leaf_hooks) node->set_hooks(meta.leaf_hooks);  // the leaf's register_hook hooks
  meta.grad_accumulator = node;
  return node;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};
  const AutogradMeta* meta = autograd_meta(t);
  if (meta == nullptr || !meta->requires_grad) return {};
  if (meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  return {grad_accumulator(t), 0};
}

}  // namespace kindling::autograd
