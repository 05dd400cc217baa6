// The non-template parts of autograd::Function: saved tensors and their version check, the context,
// and attaching a new node to the outputs of forward.
#include "kindling/autograd/function.hpp"

#include "kindling/autograd/anomaly_mode.hpp"
#include "autograd/engine_hooks.hpp"
#include "kindling/tensor/small_object_pool.hpp"

#include <atomic>
#include <string>

#include "kindling/tensor/creation.hpp"

namespace kindling::autograd {

namespace {
std::atomic<FunctionObserver> g_function_observer{nullptr};
}  // namespace
void set_function_observer(FunctionObserver observer) { g_function_observer.store(observer); }
FunctionObserver function_observer() { return g_function_observer.load(std::memory_order_relaxed); }

namespace {

/// A second TensorImpl over the same memory, without autograd meta (no grad_fn, no grad).
Tensor alias_without_autograd(const Tensor& t) {
  auto impl = kindling::detail::make_pooled<TensorImpl>();
  impl->storage = t.impl()->storage;
  impl->shape = t.impl()->shape;
  impl->strides = t.impl()->strides;
  impl->offset = t.impl()->offset;
  impl->dtype = t.impl()->dtype;
  return Tensor(std::move(impl));
}

const char* grad_fn_name(const Tensor& t) {
  const AutogradMeta* meta = autograd_meta(t);
  return meta && meta->grad_fn ? meta->grad_fn->name() : nullptr;
}

}  // namespace

// ---- SavedTensor --------------------------------------------------------------------------------

SavedTensor::SavedTensor(const Tensor& t)
    : data_(t), version_(t.defined() ? t.version() : 0), producer_(t.defined() ? grad_fn_name(t) : nullptr),
      saved_(t.defined()) {
  if (t.defined()) {
    if (const AutogradMeta* meta = autograd_meta(t)) output_nr_ = meta->output_nr;
  }
}

void SavedTensor::mark_output(Node* owner, std::uint32_t output_nr) {
  data_ = alias_without_autograd(data_);
  output_of_ = owner;
  output_nr_ = output_nr;
  producer_ = owner->name();
}

Tensor SavedTensor::unpack(const Node& owner, std::size_t slot) const {
  if (saved_ && !data_.defined()) {
    throw AutogradError(std::string(owner.name()) +
                        ": Trying to backward through the graph a second time (or directly access saved "
                        "tensors after they have already been freed). Saved intermediate values of the "
                        "graph are freed when you call backward(). Specify retain_graph=true if you need "
                        "to backward through the graph a second time: y.backward({}, /*retain_graph=*/true).");
  }
  if (!data_.defined()) return data_;
  if (data_.version() != version_) {
    const std::string which = producer_ ? std::string(", which is output ") + std::to_string(output_nr_) + " of " +
                                              producer_
                                        : std::string();
    throw AutogradError(
        "one of the variables needed for gradient computation has been modified by an inplace operation: [" +
        std::string(dtype_name(data_.dtype())) + " " + shape_str(data_.shape()) + "]" + which + ", is at version " +
        std::to_string(data_.version()) + "; expected version " + std::to_string(version_) +
        " instead. It was saved by " + owner.name() + " (saved tensor " + std::to_string(slot) +
        "). Hint: do not modify a tensor in place (x.mul_(), x += ..., copy_, fill_) between the forward pass "
        "that used it and backward(); use an out-of-place op (x = x * 2) or clone() it first.");
  }
  if (output_of_ != nullptr && is_grad_enabled()) {
    // A double backward differentiates through this saved output: give it back its history.
    Tensor t = alias_without_autograd(data_);
    AutogradMeta& meta = materialize_autograd_meta(t);
    meta.requires_grad = true;
    meta.grad_fn = output_of_->shared_from_this();
    meta.output_nr = output_nr_;
    return t;
  }
  return data_;
}

// ---- Context ------------------------------------------------------------------------------------

void Context::save_for_backward(std::initializer_list<Tensor> tensors) {
  save_for_backward(std::span<const Tensor>(tensors.begin(), tensors.size()));
}

void Context::save_for_backward(std::span<const Tensor> tensors) {
  if (node_ == nullptr) return;  // forward without a graph: nothing will ever be unpacked
  for (const Tensor& t : tensors) saved_.emplace_back(t);
}

Tensor Context::saved(std::size_t i) const {
  if (i >= saved_.size()) {
    throw IndexError("Context::saved: tensor " + std::to_string(i) + " was asked for, but " +
                     std::to_string(saved_.size()) + " were saved. Hint: save it in forward (or setup_context) "
                     "with ctx.save_for_backward({...}).");
  }
  return saved_[i].unpack(*node_, i);
}

Grads Context::saved_tensors() const {
  Grads out;
  for (std::size_t i = 0; i < saved_.size(); ++i) out.push_back(saved(i));
  return out;
}

bool Context::needs_input_grad(std::size_t i) const {
  return node_ != nullptr && i < node_->num_inputs() && node_->next_functions()[i].is_valid();
}

void Context::mark_outputs(std::span<Tensor> outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (SavedTensor& s : saved_)
      if (s.is_same(outputs[i])) s.mark_output(node_, static_cast<std::uint32_t>(i));
}

void Context::release() {
  if (saved_.empty()) return;  // nothing was saved: backward through it again is harmless (PyTorch agrees)
  for (SavedTensor& s : saved_) s.release();
  released_ = true;
}

std::vector<Tensor> Context::peek_saved() const {
  std::vector<Tensor> out;
  for (const SavedTensor& s : saved_)
    if (s.defined()) out.push_back(s.peek());
  return out;
}

// ---- the machinery ------------------------------------------------------------------------------

namespace detail {

void attach_outputs(Node& node, Context& ctx, std::span<Tensor* const> outputs) {
  node.set_num_outputs(static_cast<std::uint32_t>(outputs.size()));
  std::shared_ptr<Node> self = node.shared_from_this();
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = *outputs[i];
    if (!out.defined() || !out.is_floating_point()) continue;  // indices of max(dim): never differentiable
    AutogradMeta& meta = materialize_autograd_meta(out);
    meta.requires_grad = true;
    meta.grad_fn = self;
    meta.output_nr = static_cast<std::uint32_t>(i);
    if (is_anomaly_enabled()) [[unlikely]] check_forward_output(node, out, i);  // anomaly_mode.cpp
  }
  SmallVector<Tensor, 3> outs;
  for (Tensor* t : outputs) outs.push_back(*t);
  ctx.mark_outputs(std::span<Tensor>(outs.data(), outs.size()));
}

std::string default_node_name(std::string_view type_name) {
  // "kindling::nn::(anonymous namespace)::Exp" -> "ExpBackward"
  std::size_t cut = type_name.rfind("::");
  std::string_view base = cut == std::string_view::npos ? type_name : type_name.substr(cut + 2);
  return std::string(base) + "Backward";
}

namespace {
// What a second backward meets at a once-differentiable Function: an error naming it.
class DelayedError final : public Node {
 public:
  explicit DelayedError(std::string message) : message_(std::move(message)) {}
  const char* name() const override { return "DelayedError"; }
  Grads apply(Grads&&) override { throw AutogradError(message_); }

 private:
  std::string message_;
};
}  // namespace

void delay_error(const char* name, const Grads& grad_outputs, Grads& grad_inputs) {
  // Unlike PyTorch's @once_differentiable (which only marks results that depend on a grad_output
  // requiring grad), every result is marked: its second derivative also depends on the saved inputs,
  // and a silently missing term is worse than a clear error.
  auto node = std::make_shared<DelayedError>(
      std::string(name) + " is not differentiable twice: its backward is a hand-written kernel, not tensor ops. "
      "Hint: differentiate a model without this layer, or write the layer's backward with tensor ops so that "
      "create_graph can record it.");
  for (const Tensor& g : grad_outputs) node->add_input(g);
  SmallVector<Tensor*, 3> outs;
  for (Tensor& g : grad_inputs) {
    if (g.defined()) g = g.detach();
    outs.push_back(&g);
  }
  Context unused;
  attach_outputs(*node, unused, outs);
}

void materialize_grads(const Node& node, Grads& grads, std::span<const InputMetadata> outputs) {
  (void)node;
  grads.resize(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (!grads[i].defined() && kindling::is_floating_point(outputs[i].dtype))
      grads[i] = zeros(outputs[i].shape, {.dtype = outputs[i].dtype});
  }
}

}  // namespace detail

}  // namespace kindling::autograd
