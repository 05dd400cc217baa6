// Anomaly mode: the flags, the per-thread stack of module calls that tells a new node where it is
// being made, and the checks the engine (and, with check_forward, every recorded op) runs on
// results while the mode is on.
#include "kindling/autograd/anomaly_mode.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "kindling/autograd/hooks.hpp"
#include "kindling/autograd/node.hpp"
#include "autograd/engine_hooks.hpp"
#include "autograd/user_line.hpp"
#include "tensor/dispatch.hpp"

namespace kindling::autograd {

namespace {
// Where anomaly mode was last turned on (the guard's or set_detect_anomaly's line).
std::mutex g_site_mutex;
bool g_has_site = false;
SourceLocation g_site;
}  // namespace

void set_detect_anomaly(bool enabled, AnomalyOptions options, SourceLocation where) {
  {
    std::lock_guard lock(g_site_mutex);
    g_has_site = enabled;
    g_site = where;
  }
  detail::g_anomaly_check_nan.store(options.check_nan);
  detail::g_anomaly_check_forward.store(options.check_forward);
  detail::g_anomaly_enabled.store(enabled);
}

namespace {
// The guards alive, oldest first. Scopes end in reverse order, but a guard held by a unique_ptr or
// a member can end before a younger one: see the destructor.
std::mutex g_guards_mutex;
std::vector<DetectAnomalyGuard*> g_guards;
}  // namespace

DetectAnomalyGuard::DetectAnomalyGuard(AnomalyOptions options, SourceLocation where) {
  std::lock_guard guards(g_guards_mutex);
  enabled_ = detail::g_anomaly_enabled.load();
  check_nan_ = detail::g_anomaly_check_nan.load();
  check_forward_ = detail::g_anomaly_check_forward.load();
  {
    std::lock_guard lock(g_site_mutex);
    had_site_ = g_has_site;
    previous_site_ = g_site;
  }
  set_detect_anomaly(true, options, where);
  g_guards.push_back(this);
}

DetectAnomalyGuard::~DetectAnomalyGuard() {
  std::lock_guard guards(g_guards_mutex);
  const auto it = std::find(g_guards.begin(), g_guards.end(), this);
  if (it != g_guards.end() && it + 1 != g_guards.end()) {
    // Not the youngest: a younger guard is still alive and its options stay in force. What this
    // one would have restored becomes what the next younger one restores, so that when the last
    // of them ends the mode is what it was before the oldest began (without this, the younger
    // guard would later restore "on", the state this one had set).
    DetectAnomalyGuard* younger = *(it + 1);
    younger->enabled_ = enabled_;
    younger->check_nan_ = check_nan_;
    younger->check_forward_ = check_forward_;
    younger->had_site_ = had_site_;
    younger->previous_site_ = previous_site_;
    g_guards.erase(it);
    return;
  }
  if (it != g_guards.end()) g_guards.erase(it);
  set_detect_anomaly(enabled_, {.check_nan = check_nan_, .check_forward = check_forward_}, previous_site_);
  std::lock_guard lock(g_site_mutex);
  g_has_site = had_site_ && enabled_;
}

// ---- where a node is made ----------------------------------------------------------------------
namespace {
struct Frame {
  std::string name;
  SourceLocation where;
};
thread_local std::vector<Frame> t_calls;

std::string location_str(const SourceLocation& loc) {
  std::string file = loc.file_name();
  if (auto slash = file.find_last_of('/'); slash != std::string::npos) file = file.substr(slash + 1);
  return file + ":" + std::to_string(loc.line());
}
}  // namespace

CallSiteGuard::CallSiteGuard(std::string name, SourceLocation where) {
  t_calls.push_back({std::move(name), where});
}
CallSiteGuard::~CallSiteGuard() { t_calls.pop_back(); }

CreationTrace current_trace() {
  CreationTrace trace;
  for (const Frame& f : t_calls) trace.module_path += (trace.module_path.empty() ? "" : " > ") + f.name;
  if (!t_calls.empty()) {
    trace.call_site = t_calls.back().where;
    trace.has_call_site = true;
  } else {
    trace.stack = detail::capture_stack();
    std::lock_guard lock(g_site_mutex);
    trace.enabled_at = g_site;
    trace.has_enabled_at = g_has_site;
  }
  return trace;
}

std::string CreationTrace::str() const {
  if (!has_call_site && !stack.empty()) {
    const std::string line = detail::user_line(stack);
    if (!line.empty()) return "created outside any module call, at " + line;
  }
  if (!has_call_site && has_enabled_at)
    return "created outside any module call, below the line that turned anomaly mode on (" +
           location_str(enabled_at) + ")";
  if (!has_call_site) return "created outside any module call";
  return "created in " + module_path + ", called at " + location_str(call_site);
}

// ---- the checks -----------------------------------------------------------------------------------
NonFinite count_non_finite(const Tensor& t) {
  NonFinite n;
  if (!t.defined() || !t.is_floating_point() || t.numel() == 0) return n;
  Tensor c = t.contiguous();
  if (c.dtype() != kFloat32 && c.dtype() != kFloat64) c = c.to(kFloat32);  // 16-bit floats widen exactly
  kindling::detail::dispatch_floating(c.dtype(), "count_non_finite", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = c.data_ptr<T>();
    for (std::int64_t i = 0, e = c.numel(); i < e; ++i) {
      if (std::isnan(p[i])) ++n.nan;
      else if (std::isinf(p[i])) ++n.inf;
    }
  });
  return n;
}

namespace {
// "LogSoftmaxBackward0" -> "log_softmax": the forward op a backward node was made for.
std::string forward_op_name(std::string_view node) {
  if (auto b = node.find("Backward"); b != std::string_view::npos) node = node.substr(0, b);
  std::string out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const char c = node[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

std::string ordinal(std::size_t i) {
  const char* suffix = (i % 100 >= 11 && i % 100 <= 13) ? "th" : i % 10 == 1 ? "st" : i % 10 == 2 ? "nd"
                       : i % 10 == 3 ? "rd" : "th";
  return std::to_string(i) + suffix;
}

std::string where_made(const Node& node) {
  const NodeHooks* h = node.hooks();
  if (h && h->trace) return h->trace->str();
  return "made before anomaly mode was turned on";
}

std::string hint_for(const std::string& op) {
  if (op == "log" || op == "div" || op == "sqrt" || op == "pow" || op == "rsqrt" || op == "reciprocal")
    return "Hint: its forward input holds zeros (or negatives): log(0) = -inf and its gradient 1/0 = inf. "
           "Feed logits to CrossEntropyLoss (no softmax before it), use log_softmax instead of "
           "log(softmax(x)), or add a small epsilon.";
  return "Hint: look at this op's inputs in the forward pass; the usual causes are a too-large learning "
         "rate (weights already huge: print their norms), NaN or Inf in the data (kd::debug::scan), and "
         "log or division of 0.";
}

std::string counts(const NonFinite& nf, const Tensor& t) {
  return std::to_string(nf.nan) + " NaN and " + std::to_string(nf.inf) + " Inf of " + std::to_string(t.numel()) +
         " elements, shape " + shape_str(t.shape());
}
}  // namespace

void check_backward_outputs(const Node& node, const Grads& grads) {
  if (!detail::g_anomaly_check_nan.load(std::memory_order_relaxed)) return;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    const NonFinite nf = count_non_finite(grads[i]);
    if (nf.nan == 0 && nf.inf == 0) continue;
    const std::string op = forward_op_name(node.name());
    throw AnomalyError(std::string("anomaly: Function '") + node.name() + "' returned " +
                       (nf.nan ? "nan" : "inf") + " values in its " + ordinal(i) + " output (" + counts(nf, grads[i]) +
                       "). The forward op was " + op + ", " + where_made(node) + ". " + hint_for(op));
  }
}

void check_forward_output(const Node& node, const Tensor& out, std::size_t index) {
  if (!detail::g_anomaly_check_forward.load(std::memory_order_relaxed)) return;
  const NonFinite nf = count_non_finite(out);
  if (nf.nan == 0 && nf.inf == 0) return;
  const std::string op = forward_op_name(node.name());
  throw AnomalyError("anomaly (forward): " + op + " produced " + (nf.nan ? "nan" : "inf") + " values in its " +
                     ordinal(index) + " output (" + counts(nf, out) + "), " + where_made(node) + ". " + hint_for(op));
}

}  // namespace kindling::autograd
