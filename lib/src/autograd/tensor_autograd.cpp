// The Tensor methods of chapter 2 (declared in tensor.hpp, defined here so chapter 1 compiles
// without autograd), and the static initializer that plugs the recorder into the tensor layer:
// any program that calls requires_grad_() or backward() links this file, so the recorder is
// installed before main() runs.
#include <string>

#include "autograd/recorder.hpp"
#include "kindling/autograd/engine.hpp"
#include "kindling/autograd/node.hpp"

namespace kindling {

namespace {
const bool g_hooks_installed = [] {
  autograd::install_hooks();
  return true;
}();

TensorImpl& need(const Tensor& t, const char* what) {
  if (!t.defined()) {
    throw ValueError(std::string(what) + ": the tensor is undefined (default-constructed). "
                     "Hint: assign it a value first, e.g. kd::zeros({...}).");
  }
  return *t.impl();
}
}  // namespace

bool Tensor::requires_grad() const { return defined() && impl()->requires_grad; }

Tensor& Tensor::requires_grad_(bool requires_grad) {
  (void)g_hooks_installed;
  autograd::install_hooks();  // idempotent; makes sure even a static-init-order corner case records
  TensorImpl& impl = need(*this, "requires_grad_");
  if (requires_grad && !kindling::is_floating_point(impl.dtype)) {
    throw AutogradError(std::string("requires_grad_: only tensors of floating point dtype can require "
                                    "gradients, but this one is ") + dtype_name(impl.dtype) +
                        ". Hint: convert it first, e.g. x.to(kd::kFloat32).requires_grad_().");
  }
  if (!requires_grad && impl.grad_fn) {
    throw AutogradError("requires_grad_(false): you can only change requires_grad flags of leaf tensors; "
                        "this one was computed by " + std::string(impl.grad_fn->name()) +
                        ". Hint: to use a computed tensor in a part that does not need gradients, use "
                        "y.detach().");
  }
  impl.requires_grad = requires_grad;
  return *this;
}

bool Tensor::is_leaf() const { return need(*this, "is_leaf").grad_fn == nullptr; }

Tensor Tensor::grad() const {
  const TensorImpl& impl = need(*this, "grad");
  return impl.grad ? Tensor(impl.grad) : Tensor();
}

void Tensor::set_grad(const Tensor& grad) {
  TensorImpl& impl = need(*this, "set_grad");
  if (!grad.defined()) {
    impl.grad.reset();
    return;
  }
  if (grad.shape() != impl.shape) {
    throw ShapeError("set_grad: assigned grad has shape " + shape_str(grad.shape()) + " but the tensor has shape " +
                     shape_str(impl.shape) + ". Hint: a gradient always has the shape of its tensor.");
  }
  if (grad.dtype() != impl.dtype) {
    throw DTypeError(std::string("set_grad: assigned grad has dtype ") + dtype_name(grad.dtype()) +
                     " but the tensor has dtype " + dtype_name(impl.dtype) + ". Hint: convert it with .to(" +
                     dtype_name(impl.dtype) + ").");
  }
  impl.grad = grad.impl_ptr();
}

void Tensor::retain_grad() {
  TensorImpl& impl = need(*this, "retain_grad");
  if (!impl.requires_grad) {
    throw AutogradError("retain_grad: can't retain the gradient of a tensor that does not require grad. "
                        "Hint: only tensors computed from a tensor with requires_grad_() have a gradient.");
  }
  if (!impl.grad_fn) return;  // leaves keep their gradient anyway
  impl.retains_grad = true;
  impl.grad_fn->add_retained_grad(impl_ptr(), impl.output_nr);
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const { return need(*this, "grad_fn").grad_fn; }

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  need(*this, "backward");
  autograd::backward({*this}, {gradient}, retain_graph);
}

}  // namespace kindling
