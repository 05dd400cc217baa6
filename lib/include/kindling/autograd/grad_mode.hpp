#pragma once
/// @file
/// Grad mode: whether operations are being recorded for backward right now. It is thread-local,
/// like PyTorch's: a `NoGradGuard` in one thread (say, an evaluation loop) does not switch off
/// recording in another.
#include "kindling/tensor/autograd_hooks.hpp"

namespace kindling {

/// True while operations on tensors that require grad are recorded (the default).
inline bool is_grad_enabled() { return detail::grad_mode_enabled(); }
/// Switches recording on or off for this thread (prefer the RAII guards below).
inline void set_grad_enabled(bool enabled) { detail::set_grad_mode_enabled(enabled); }

/// `torch.no_grad()`: inside this scope nothing is recorded — results have no grad_fn and no
/// intermediate values are kept alive for backward. Use it for inference and for optimizer steps.
///
///     {
///       kd::NoGradGuard no_grad;
///       w -= lr * w.grad();   // allowed: not recorded, not refused
///     }
class NoGradGuard {
 public:
  NoGradGuard() : previous_(detail::grad_mode_enabled()) { detail::set_grad_mode_enabled(false); }
  ~NoGradGuard() { detail::set_grad_mode_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

/// `torch.enable_grad()`: records again inside a scope, even within a NoGradGuard.
class EnableGradGuard {
 public:
  EnableGradGuard() : previous_(detail::grad_mode_enabled()) { detail::set_grad_mode_enabled(true); }
  ~EnableGradGuard() { detail::set_grad_mode_enabled(previous_); }
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool previous_;
};

/// `torch.set_grad_enabled(mode)` as a scope: grad mode is `enabled` inside, restored after.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(detail::grad_mode_enabled()) {
    detail::set_grad_mode_enabled(enabled);
  }
  ~AutoGradMode() { detail::set_grad_mode_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

namespace autograd {
using kindling::AutoGradMode;
using kindling::EnableGradGuard;
using kindling::is_grad_enabled;
using kindling::NoGradGuard;
using kindling::set_grad_enabled;
}  // namespace autograd

}  // namespace kindling
