// Nodes of the backward graph: the base class (with its iterative destructor), the leaves'
// AccumulateGrad, saved tensors with their version check, and the generic OpNode.
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>

#include "autograd/function.hpp"
#include "autograd/recorder.hpp"
#include "kindling/autograd/grad_mode.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::autograd {

// Any program that links this file has autograd: make sure ops record from the start (also done
// by tensor_autograd.cpp; a static library only links the objects a program refers to).
[[maybe_unused]] static const bool g_hooks_installed = (install_hooks(), true);

namespace {
std::atomic<std::uint64_t> g_next_sequence_nr{0};
}  // namespace

Node::Node(std::uint32_t num_outputs, std::vector<Edge> next_functions)
    : next_functions_(std::move(next_functions)),
      num_outputs_(num_outputs),
      sequence_nr_(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

// A chain y_n = f(y_{n-1}) is a linked list of nodes. Letting each node's shared_ptr members die
// naturally would destroy node n-1 inside node n's destructor, n-2 inside that, ... — one stack
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

void Node::add_retained_grad(const std::shared_ptr<TensorImpl>& tensor, std::uint32_t output_nr) {
  for (const auto& r : retained_) {
    if (r.output_nr == output_nr && r.tensor.lock() == tensor) return;
  }
  retained_.push_back({tensor, output_nr});
}

// ---- AccumulateGrad -----------------------------------------------------------------------------
// One AccumulateGrad per leaf, shared by every op that uses it (so next_functions of two ops that
// read the same parameter point at the same node, as in PyTorch). TensorImpl has no slot for it,
// so a small registry maps a leaf to its (weakly held) accumulator.
namespace {
std::mutex g_accumulators_mutex;
std::unordered_map<const TensorImpl*, std::weak_ptr<Node>>& accumulators() {
  static auto* map = new std::unordered_map<const TensorImpl*, std::weak_ptr<Node>>();  // never destroyed
  return *map;
}
}  // namespace

AccumulateGrad::AccumulateGrad(Tensor variable) : Node(1, {}), variable_(std::move(variable)) {}

AccumulateGrad::~AccumulateGrad() {
  std::lock_guard<std::mutex> lock(g_accumulators_mutex);
  auto& map = accumulators();
  auto it = map.find(variable_.impl());
  if (it != map.end() && it->second.expired()) map.erase(it);
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grad_outputs) {
  Tensor& incoming = grad_outputs[0];
  if (!incoming.defined()) return {};
  TensorImpl* leaf = variable_.impl();
  NoGradGuard no_grad;
  if (!leaf->grad) {
    // First gradient: keep it if nobody else can see it (and it is a plain dense tensor), else copy.
    // A stride-0 expanded gradient, or one shared with another leaf (AddBackward0 passes the same
    // tensor to both inputs), must not become .grad: a later in-place accumulation would corrupt it.
    const bool can_steal = incoming.impl_ptr().use_count() == 1 && incoming.storage().use_count() == 1 &&
                           incoming.is_contiguous() && incoming.storage_offset() == 0 &&
                           incoming.dtype() == leaf->dtype;
    Tensor g = incoming;
    if (!can_steal) {
      g = incoming.to(leaf->dtype).contiguous();
      if (g.shares_storage(incoming)) g = g.clone();  // still aliases someone else's memory: copy
    }
    leaf->grad = g.impl_ptr();
  } else {
    // Later gradients are ADDED in place: x.grad is the same tensor after the second backward,
    // and holds the sum of both — which is why training loops call zero_grad().
    Tensor(leaf->grad).add_(incoming);
  }
  return {};
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  std::lock_guard<std::mutex> lock(g_accumulators_mutex);
  auto& slot = accumulators()[leaf.impl()];
  if (auto existing = slot.lock()) return existing;
  auto node = std::make_shared<AccumulateGrad>(leaf);
  slot = node;
  return node;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined() || !t.impl()->requires_grad) return {};
  if (t.impl()->grad_fn) return {t.impl()->grad_fn, t.impl()->output_nr};
  return {grad_accumulator(t), 0};
}

// ---- saved tensors ------------------------------------------------------------------------------
namespace {
Tensor alias_without_autograd(const Tensor& t) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = t.impl()->storage;
  impl->shape = t.impl()->shape;
  impl->strides = t.impl()->strides;
  impl->offset = t.impl()->offset;
  impl->dtype = t.impl()->dtype;
  return Tensor(std::move(impl));
}
}  // namespace

SavedTensor::SavedTensor(const Tensor& t, bool is_output, std::uint32_t output_nr, const char* producer)
    : data_(is_output ? alias_without_autograd(t) : t),
      version_(t.version()),
      producer_(producer),
      output_nr_(output_nr) {}

Tensor SavedTensor::unpack(const OpNode& owner, std::size_t slot) const {
  if (!data_.defined()) {
    throw AutogradError(std::string(owner.name()) +
                        ": Trying to backward through the graph a second time (or directly access saved "
                        "tensors after they have already been freed). Saved intermediate values of the "
                        "graph are freed when you call backward(). Specify retain_graph=true if you need "
                        "to backward through the graph a second time: y.backward({}, /*retain_graph=*/true).");
  }
  if (data_.version() != version_) {
    std::string which = producer_ ? std::string(", which is output ") + std::to_string(output_nr_) + " of " +
                                        producer_
                                  : std::string();
    throw AutogradError(
        "one of the variables needed for gradient computation has been modified by an inplace operation: [" +
        std::string(dtype_name(data_.dtype())) + " " + shape_str(data_.shape()) + "]" + which + ", is at version " +
        std::to_string(data_.version()) + "; expected version " + std::to_string(version_) +
        " instead. It was saved by " + owner.name() + " (saved tensor " + std::to_string(slot) +
        "). Hint: do not modify a tensor in place (x.mul_(), x += ..., copy_) between the forward pass "
        "that used it and backward(); use an out-of-place op (x = x * 2) or clone() it first.");
  }
  return data_;
}

// ---- BackwardContext ----------------------------------------------------------------------------
Tensor BackwardContext::input(std::size_t i) const { return node_.saved_inputs_.at(i).unpack(node_, i); }
Tensor BackwardContext::output(std::size_t i) const {
  return node_.saved_outputs_.at(i).unpack(node_, node_.saved_inputs_.size() + i);
}
const Shape& BackwardContext::input_shape(std::size_t i) const { return node_.inputs_.at(i).shape; }
DType BackwardContext::input_dtype(std::size_t i) const { return node_.inputs_.at(i).dtype; }
std::size_t BackwardContext::num_inputs() const { return node_.inputs_.size(); }
bool BackwardContext::needs_input_grad(std::size_t i) const { return node_.next_functions()[i].is_valid(); }
const std::vector<std::int64_t>& BackwardContext::ints() const { return node_.ints_; }
const std::vector<double>& BackwardContext::scalars() const { return node_.scalars_; }
bool BackwardContext::flag() const { return node_.flag_; }

// ---- OpNode -------------------------------------------------------------------------------------
OpNode::OpNode(const Derivative& d, const char* name, detail::OpRecord&& rec, const std::vector<Tensor>& outputs,
               std::vector<Edge> edges)
    : Node(static_cast<std::uint32_t>(outputs.size()), std::move(edges)),
      derivative_(d),
      name_(name),
      ints_(std::move(rec.ints)),
      scalars_(std::move(rec.scalars)),
      flag_(rec.flag) {
  inputs_.reserve(rec.inputs.size());
  for (const Tensor& t : rec.inputs) {
    if (t.defined()) inputs_.push_back({t.shape(), t.dtype()});
    else inputs_.push_back({Shape{}, kFloat32});
  }
  if (d.save & kSaveAllInputs) {
    saved_inputs_.resize(rec.inputs.size());
    for (std::size_t i = 0; i < rec.inputs.size() && i < 16; ++i) {
      if ((d.save & (1u << i)) && rec.inputs[i].defined()) {
        const TensorImpl* impl = rec.inputs[i].impl();
        const char* producer = impl->grad_fn ? impl->grad_fn->name() : nullptr;
        saved_inputs_[i] = SavedTensor(rec.inputs[i], false, impl->output_nr, producer);
      }
    }
    has_saved_ = true;
  }
  if (d.save & kSaveOutputs) {
    saved_outputs_.reserve(outputs.size());
    for (std::size_t i = 0; i < outputs.size(); ++i)
      saved_outputs_.emplace_back(outputs[i], true, static_cast<std::uint32_t>(i), name);
    has_saved_ = true;
  }
}

std::vector<Tensor> OpNode::apply(std::vector<Tensor>&& grad_outputs) {
  if (released_) {
    throw AutogradError(std::string(name_) +
                        ": Trying to backward through the graph a second time (or directly access saved "
                        "tensors after they have already been freed). Saved intermediate values of the "
                        "graph are freed when you call backward(). Specify retain_graph=true if you need "
                        "to backward through the graph a second time: y.backward({}, /*retain_graph=*/true).");
  }
  BackwardContext ctx(*this, grad_outputs);
  std::vector<Tensor> grads = derivative_.backward(ctx);
  grads.resize(inputs_.size());
  // Every formula must return gradients shaped like its inputs: check, and convert the dtype
  // (a float32 input multiplied by a float64 0-d tensor gets a float32 gradient).
  for (std::size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined() || !next_functions_[i].is_valid()) {
      grads[i] = Tensor();
      continue;
    }
    if (grads[i].shape() != inputs_[i].shape) {
      throw AutogradError(std::string("Function ") + name_ + " returned an invalid gradient at index " +
                          std::to_string(i) + " - got " + shape_str(grads[i].shape()) +
                          " but expected shape compatible with " + shape_str(inputs_[i].shape) +
                          ". Hint: this is a bug in the derivative table (lib/src/autograd/derivatives_*.cpp): "
                          "the formula must sum broadcast dimensions away (unbroadcast).");
    }
    if (grads[i].dtype() != inputs_[i].dtype) grads[i] = grads[i].to(inputs_[i].dtype);
  }
  return grads;
}

void OpNode::release_saved() {
  if (!has_saved_) return;  // nothing was saved: backward through it again is harmless (PyTorch agrees)
  for (auto& s : saved_inputs_) s.release();
  for (auto& s : saved_outputs_) s.release();
  released_ = true;
}

std::vector<Tensor> OpNode::saved_tensors() const {
  std::vector<Tensor> out;
  for (const auto& s : saved_inputs_)
    if (s.peek().defined()) out.push_back(s.peek());
  for (const auto& s : saved_outputs_)
    if (s.peek().defined()) out.push_back(s.peek());
  return out;
}

}  // namespace kindling::autograd
