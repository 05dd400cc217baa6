#pragma once
/// @file
/// Anomaly mode (PyTorch's `torch.autograd.detect_anomaly` / `set_detect_anomaly`). While it is on,
/// every backward node remembers where it was created -- the module calls it was made under and
/// the line of the user's code that called the innermost one -- and the engine checks what each
/// node's backward returns: a NaN or an infinity stops the backward with an AnomalyError naming
/// the backward node, the forward op and that line. With `check_forward`, the result of every
/// recorded forward op is checked too. Off by default; when off it costs one flag test per node.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kindling/tensor/error.hpp"
#include "kindling/tensor/source_location.hpp"

namespace kindling::autograd {

/// What the backward (or forward) check found: the message names the node, the op and the line.
class AnomalyError : public AutogradError {
  using AutogradError::AutogradError;
};

struct AnomalyOptions {
  bool check_nan = true;       ///< check backward results for NaN/Inf (PyTorch's check_nan)
  bool check_forward = false;  ///< also check every recorded forward result (PyTorch has no such mode)
};

namespace detail {
inline std::atomic<bool> g_anomaly_enabled{false};
inline std::atomic<bool> g_anomaly_check_nan{true};
inline std::atomic<bool> g_anomaly_check_forward{false};
}  // namespace detail

/// Is anomaly mode on? (`torch.is_anomaly_enabled()`)
inline bool is_anomaly_enabled() { return detail::g_anomaly_enabled.load(std::memory_order_relaxed); }
/// Turns anomaly mode on or off for the whole process (`torch.autograd.set_detect_anomaly`).
void set_detect_anomaly(bool enabled, AnomalyOptions options = {},
                        SourceLocation where = SourceLocation::current());

/// Anomaly mode for a scope (`with torch.autograd.detect_anomaly():`); restores the previous state.
class DetectAnomalyGuard {
 public:
  /// `where` (the guard's own line) names the region of nodes made outside any module call.
  explicit DetectAnomalyGuard(AnomalyOptions options = {},
                              SourceLocation where = SourceLocation::current());
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool enabled_, check_nan_, check_forward_;
  bool had_site_;
  SourceLocation previous_site_;
};

/// PyTorch's spelling: `kd::autograd::detect_anomaly guard;` ~ `with torch.autograd.detect_anomaly():`.
using detect_anomaly = DetectAnomalyGuard;

/// Where a node was made: the innermost module call in progress (its type and the user's line
/// that called it) and the chain of module types above it ("SimpleNet > Linear").
struct CreationTrace {
  std::string module_path;  ///< empty when the op ran outside any module call
  SourceLocation call_site;
  bool has_call_site = false;
  /// Outside any module call: where anomaly mode was turned on (the op is below that line).
  SourceLocation enabled_at;
  bool has_enabled_at = false;
  /// Outside any module call: the call stack's return addresses when the node was made; str()
  /// finds the program's own line in them (when the program has line tables, -g1 or more).
  std::vector<void*> stack;
  /// "created in SimpleNet > Linear, called at net.cpp:12"; outside a module call "created
  /// outside any module call, at loss.cpp:30" (or, without line tables, below the line that
  /// turned anomaly mode on).
  std::string str() const;
};

/// Pushes one module call onto this thread's call stack while anomaly mode is on
/// (nn::Module::operator() makes one; so can any entry point that wants its callers' lines known).
class CallSiteGuard {
 public:
  CallSiteGuard(std::string name, SourceLocation where);
  ~CallSiteGuard();
  CallSiteGuard(const CallSiteGuard&) = delete;
  CallSiteGuard& operator=(const CallSiteGuard&) = delete;
};

/// The trace a node created now would record.
CreationTrace current_trace();

}  // namespace kindling::autograd
