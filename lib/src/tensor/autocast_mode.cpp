// The thread's autocast state and its cache of cast weights (PyTorch's autocast_mode.cpp).
#include "kindling/tensor/autocast_mode.hpp"

#include <algorithm>
#include <unordered_map>

#include "kindling/tensor/autograd_hooks.hpp"
#include "internal.hpp"

namespace kindling {
namespace detail {
namespace {

struct ThreadAutocast {
  // One switch per device type: [0] the CPU's, [1] CUDA's (float16 by default, as in PyTorch).
  AutocastState state[2] = {{}, {.dtype = kFloat16}};
  AutocastState& of(DeviceType type) { return state[type == DeviceType::CPU ? 0 : 1]; }
  int nesting = 0;
  // Weight (by its TensorImpl) -> (the weight, kept alive so the key stays unique; its cast).
  std::unordered_map<const TensorImpl*, std::pair<Tensor, Tensor>> cache;
  // Weight (by its TensorImpl) -> its 16-bit copy, kept across regions (and so across training
  // steps). The optimizer refreshes it when it updates the weight (refresh_autocast_copy); any
  // other in-place change bumps the weight's version counter and the copy stops being used.
  std::unordered_map<const TensorImpl*, WeightCopy> copies;
  AutocastCopyStats stats;
};

ThreadAutocast& tls() {
  thread_local ThreadAutocast t;
  return t;
}

bool eligible(const Tensor& t) { return t.defined() && t.is_floating_point() && t.dtype() != kFloat64; }

// The persistent copy of `w` in `dtype`, if it still holds exactly w.to(dtype): the same storage
// (a weight freed and another allocated at the same address fails here), the same view of it, the
// weight unchanged since the copy was written (its version), and nobody wrote into the copy.
WeightCopy* fresh_copy(ThreadAutocast& a, const Tensor& w, DType dtype) {
  auto it = a.copies.find(w.impl());
  if (it == a.copies.end()) return nullptr;
  WeightCopy& c = it->second;
  const bool same_weight = c.weight_storage.lock() == w.storage() && c.shape == w.shape() &&
                           c.strides == w.strides() && c.offset == w.storage_offset();
  const bool fresh = same_weight && c.data.dtype() == dtype && c.weight_version == w.version() &&
                     c.data_version == c.data.version();
  return fresh ? &c : nullptr;
}

// Drops the copies of weights that no longer exist (their storage is gone).
void prune(ThreadAutocast& a) {
  std::erase_if(a.copies, [](const auto& kv) { return kv.second.weight_storage.expired(); });
}

void remember_copy(ThreadAutocast& a, const Tensor& w, const Tensor& cast) {
  if (a.copies.size() >= 64 && a.copies.size() % 64 == 0) prune(a);
  a.copies.insert_or_assign(w.impl(), WeightCopy{.weight_storage = w.storage(), .shape = w.shape(),
                                                 .strides = w.strides(), .offset = w.storage_offset(),
                                                 .weight_version = w.version(), .data = cast.detach(),
                                                 .data_version = cast.version()});
}

}  // namespace

AutocastState autocast_state(DeviceType device_type) { return tls().of(device_type); }
void set_autocast_state(const AutocastState& state, DeviceType device_type) { tls().of(device_type) = state; }
int autocast_increment_nesting() { return ++tls().nesting; }
int autocast_decrement_nesting() { return --tls().nesting; }
void clear_autocast_cache() { tls().cache.clear(); }
std::size_t autocast_cache_size() { return tls().cache.size(); }
void clear_autocast_weight_copies() { tls().copies.clear(); }
std::size_t autocast_weight_copies_size() { return tls().copies.size(); }
AutocastCopyStats autocast_copy_stats() { return tls().stats; }

namespace {

// The persistent copy of weight `w` that an optimizer step is about to make stale, ready to be
// written in place; nullptr when w has none.
WeightCopy* copy_to_refresh(ThreadAutocast& a, const Tensor& w) {
  if (a.copies.empty() || !w.defined()) return nullptr;
  auto it = a.copies.find(w.impl());
  if (it == a.copies.end()) return nullptr;
  WeightCopy& c = it->second;
  if (c.weight_storage.lock() != w.storage() || c.shape != w.shape() || c.strides != w.strides() ||
      c.offset != w.storage_offset()) {
    a.copies.erase(it);  // another tensor now lives at this address
    return nullptr;
  }
  // Written in place only when nothing else looks at the copy: a graph still alive from the last
  // forward (backward with retain_graph) may have saved it, and must keep the values it saw.
  if (c.data.storage().use_count() != 1) c.data = empty_preserving_strides(w, c.data.dtype());
  return &c;
}

void mark_fresh(ThreadAutocast& a, WeightCopy& c, const Tensor& w) {
  c.weight_version = w.version();
  c.data_version = c.data.version();
  ++a.stats.refreshes;
}

}  // namespace

Tensor flat_range(const Tensor& t, std::int64_t begin, std::int64_t end) {
  if (!t.defined()) return t;
  if (!t.is_contiguous() || begin < 0 || end < begin || end > t.numel()) {
    throw ValueError("flat_range: elements [" + std::to_string(begin) + ", " + std::to_string(end) +
                     ") of a tensor of shape " + shape_str(t.shape()) +
                     (t.is_contiguous() ? "" : " (not contiguous)") + ". Hint: a contiguous tensor and 0 <= begin <= end <= numel.");
  }
  return make_view(t, {end - begin}, {1}, t.storage_offset() + begin);
}

bool refresh_autocast_copy(const Tensor& w) {
  ThreadAutocast& a = tls();
  WeightCopy* c = copy_to_refresh(a, w);
  if (c == nullptr) return false;
  copy_into(c->data, w);  // the same rounding as w.to(dtype): bit-identical to a fresh cast
  mark_fresh(a, *c, w);
  return true;
}

bool update_refreshing_autocast_copy(const Tensor& w, const std::function<void(std::int64_t, std::int64_t)>& update) {
  ThreadAutocast& a = tls();
  WeightCopy* c = copy_to_refresh(a, w);
  if (c == nullptr || !w.is_contiguous() || !c->data.is_contiguous()) return false;
  // 16,384 elements: the chunk of the weight and of the optimizer's state (Adam: p, g, m, v, 256 KB
  // in float32) stays in the L2 cache between the update and the cast.
  constexpr std::int64_t kChunk = 16384;
  const std::int64_t n = w.numel();
  for (std::int64_t begin = 0; begin < n; begin += kChunk) {
    const std::int64_t end = std::min(n, begin + kChunk);
    update(begin, end);
    copy_into(flat_range(c->data, begin, end), flat_range(w, begin, end));
  }
  w.storage()->bump_version();
  mark_fresh(a, *c, w);
  return true;
}

Tensor autocast_to_lower(const Tensor& t) {
  ThreadAutocast& a = tls();
  if (!t.defined()) return t;
  const AutocastState& state = a.of(t.device().type);  // the region of t's device type
  if (!state.enabled || !eligible(t) || t.dtype() == state.dtype) return t;
  // A weight (a float32 leaf that requires grad) is cast once per autocast region: every use
  // in the forward shares one bfloat16 copy and one ToCopyBackward node.
  const TensorImpl& impl = *t.impl();
  const bool cacheable = state.cache_enabled && t.dtype() == kFloat32 && impl.requires_grad() &&
                         impl.autograd_meta->is_leaf();
  if (cacheable) {
    auto it = a.cache.find(t.impl());
    if (it != a.cache.end()) return it->second.second;
  }
  // Across regions, the 16-bit copy that the optimizer refreshed at its last step is reused: a new
  // view of it, recorded as the cast, so the gradient still flows back to the float32 weight.
  // (On a device the weight is cast once per region, as PyTorch does: the fused device Adam does
  // not write a 16-bit copy.)
  const bool persistent = cacheable && t.device().is_cpu();
  Tensor cast;
  if (WeightCopy* c = persistent ? fresh_copy(a, t, state.dtype) : nullptr) {
    cast = record<"to_dtype">(c->data.detach(), t);
    ++a.stats.reuses;
  } else {
    cast = t.to(state.dtype);
    ++a.stats.casts;
    if (persistent) remember_copy(a, t, cast);
  }
  if (cacheable && grad_mode_enabled()) a.cache.emplace(t.impl(), std::pair{t, cast});
  return cast;
}

Tensor autocast_to_float32(const Tensor& t) {
  if (!t.defined() || !tls().of(t.device().type).enabled || !eligible(t) || t.dtype() == kFloat32) return t;
  return t.to(kFloat32);
}

}  // namespace detail

bool is_autocast_enabled(DeviceType device_type) { return detail::tls().of(device_type).enabled; }
DType get_autocast_dtype(DeviceType device_type) { return detail::tls().of(device_type).dtype; }

}  // namespace kindling
