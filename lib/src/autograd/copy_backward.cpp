// Backward of tensor/copy.cpp: clone (also contiguous() of a non-contiguous tensor), dtype
// conversion and moving between devices. A copy moves values without changing them: the gradient
// passes straight through (converted back to the input's dtype by the engine, moved back to its
// device here).
#include "autograd/registry.hpp"

namespace kindling::autograd {
namespace {

// clone: out = copy of x         dx = g
struct Clone : Function<Clone> {
  static constexpr const char* name = "CloneBackward0";
  void setup_context(Context&, const Tensor&, const Tensor&) {}
  Grads backward(Context&, const Grads& grad) { return {grad[0]}; }
};

// to_dtype: out = x.to(dtype)    dx = g (the engine converts it to x's dtype)
struct ToCopy : Function<ToCopy> {
  static constexpr const char* name = "ToCopyBackward0";
  void setup_context(Context&, const Tensor&, const Tensor&) {}
  Grads backward(Context&, const Grads& grad) { return {grad[0]}; }
};

// to_device: out = x.to(device)  dx = g moved back to x's device
struct ToDevice : Function<ToDevice> {
  static constexpr const char* name = "ToCopyBackward0";
  Device device;
  void setup_context(Context&, const Tensor& x, const Tensor&) { device = x.device(); }
  Grads backward(Context&, const Grads& grad) { return {grad[0].to(device)}; }
};

}  // namespace

void register_copy(Registry& r) {
  r.add<Clone>("clone");
  r.add<ToCopy>("to_dtype");
  r.add<ToDevice>("to_device");
}

}  // namespace kindling::autograd
