// The thread's autocast state and its cache of cast weights (PyTorch's autocast_mode.cpp).
#include "kindling/tensor/autocast_mode.hpp"

#include <unordered_map>

#include "kindling/tensor/autograd_hooks.hpp"

namespace kindling {
namespace detail {
namespace {

struct ThreadAutocast {
  AutocastState state;
  int nesting = 0;
  // Weight (by its TensorImpl) -> (the weight, kept alive so the key stays unique; its cast).
  std::unordered_map<const TensorImpl*, std::pair<Tensor, Tensor>> cache;
};

ThreadAutocast& tls() {
  thread_local ThreadAutocast t;
  return t;
}

bool eligible(const Tensor& t) { return t.defined() && t.is_floating_point() && t.dtype() != kFloat64; }

}  // namespace

AutocastState autocast_state() { return tls().state; }
void set_autocast_state(const AutocastState& state) { tls().state = state; }
int autocast_increment_nesting() { return ++tls().nesting; }
int autocast_decrement_nesting() { return --tls().nesting; }
void clear_autocast_cache() { tls().cache.clear(); }
std::size_t autocast_cache_size() { return tls().cache.size(); }

Tensor autocast_to_lower(const Tensor& t) {
  ThreadAutocast& a = tls();
  if (!a.state.enabled || !eligible(t) || t.dtype() == a.state.dtype) return t;
  // A weight (a float32 leaf that requires grad) is cast once per autocast region: every use
  // in the forward shares one bfloat16 copy and one ToCopyBackward node.
  const TensorImpl& impl = *t.impl();
  const bool cacheable = a.state.cache_enabled && t.dtype() == kFloat32 && impl.requires_grad() &&
                         impl.autograd_meta->is_leaf();
  if (cacheable) {
    auto it = a.cache.find(t.impl());
    if (it != a.cache.end()) return it->second.second;
  }
  Tensor cast = t.to(a.state.dtype);
  if (cacheable && grad_mode_enabled()) a.cache.emplace(t.impl(), std::pair{t, cast});
  return cast;
}

Tensor autocast_to_float32(const Tensor& t) {
  if (!tls().state.enabled || !eligible(t) || t.dtype() == kFloat32) return t;
  return t.to(kFloat32);
}

}  // namespace detail

bool is_autocast_enabled() { return detail::tls().state.enabled; }
DType get_autocast_dtype() { return detail::tls().state.dtype; }

}  // namespace kindling
