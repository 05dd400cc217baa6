// The recorder slot, grad mode and the list of record sites: all chapter 1 knows about autograd.
#include "kindling/tensor/autograd_hooks.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace kindling::detail {
namespace {
std::atomic<Recorder> g_recorder{nullptr};
std::atomic<NodeNameFn> g_node_name_fn{nullptr};
std::atomic<AutogradMetaFactory> g_meta_factory{nullptr};
std::atomic<ValueReadObserver> g_value_read_observer{nullptr};
thread_local bool t_grad_mode = true;

std::vector<RecordSite>& sites() {
  static auto* list = new std::vector<RecordSite>();  // filled during static initialisation, never freed
  return *list;
}
}  // namespace

void set_recorder(Recorder r) { g_recorder.store(r); }
Recorder recorder() { return g_recorder.load(std::memory_order_relaxed); }
void set_node_name_fn(NodeNameFn fn) { g_node_name_fn.store(fn); }
NodeNameFn node_name_fn() { return g_node_name_fn.load(std::memory_order_relaxed); }
void set_autograd_meta_factory(AutogradMetaFactory f) { g_meta_factory.store(f); }
void set_value_read_observer(ValueReadObserver fn) { g_value_read_observer.store(fn); }
ValueReadObserver value_read_observer() { return g_value_read_observer.load(std::memory_order_relaxed); }
bool grad_mode_enabled() { return t_grad_mode; }
void set_grad_mode_enabled(bool enabled) { t_grad_mode = enabled; }

const std::vector<RecordSite>& record_sites() { return sites(); }

bool add_record_site(const char* key, const void* signature, std::string_view signature_name) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  for (const RecordSite& s : sites())
    if (s.signature == signature && std::string_view(s.key) == key) return true;
  sites().push_back({key, signature, signature_name});
  return true;
}

std::string describe_arg(const Tensor& t) {
  if (!t.defined()) return "None";
  char address[32];
  std::snprintf(address, sizeof address, "%p", static_cast<const void*>(t.impl()));
  return "Tensor" + shape_str(t.shape()) + "@" + address;
}
std::string describe_arg(const std::vector<Tensor>& ts) {
  std::string out = "[";
  for (std::size_t i = 0; i < ts.size(); ++i) out += (i ? ", " : "") + describe_arg(ts[i]);
  return out + "]";
}
std::string describe_arg(IntArrayRef dims) { return shape_str(dims); }
std::string describe_arg(const Scalar& s) {
  if (s.is_bool()) return s.to<bool>() ? "True" : "False";
  if (!s.is_floating_point()) return std::to_string(s.to_int());
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s.to_double());
  return buf;
}
std::string describe_arg(const std::optional<Scalar>& s) { return s ? describe_arg(*s) : "None"; }
std::string describe_arg(std::int64_t v) { return std::to_string(v); }
std::string describe_arg(bool v) { return v ? "True" : "False"; }

bool needs_grad(const std::vector<Tensor>& inputs) {
  if (!grad_mode_enabled() || recorder() == nullptr) return false;
  return requires_grad(inputs);
}

void set_requires_grad(TensorImpl& t) {
  if (!t.autograd_meta) {
    AutogradMetaFactory make = g_meta_factory.load(std::memory_order_relaxed);
    t.autograd_meta = make ? make() : std::make_unique<AutogradMetaInterface>();
  }
  t.autograd_meta->requires_grad = true;
}

void check_inplace(const Tensor& self, const char* op) {
  const TensorImpl* impl = self.impl();
  if (!impl || !impl->requires_grad() || !grad_mode_enabled()) return;
  if (impl->autograd_meta->is_leaf()) {
    throw AutogradError(std::string(op) + ": a leaf tensor that requires grad is being modified in place. "
                        "Autograd would lose track of its value. Hint: do it inside a "
                        "`kd::NoGradGuard no_grad;` scope (as optimizers do), or work on a clone().");
  }
  throw AutogradError(std::string(op) + ": in-place operations on tensors that are part of the autograd "
                      "graph are not supported by Kindling. Hint: write `y = y + x` instead of "
                      "`y += x`, or modify the tensor under kd::NoGradGuard.");
}

}  // namespace kindling::detail
