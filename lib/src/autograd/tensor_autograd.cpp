// The Tensor methods of chapter 2 (declared in tensor.hpp, defined here so that chapter 1 compiles
// and links without autograd). Each one reads or writes the tensor's AutogradMeta.
#include <string>

#include "kindling/autograd/autograd_meta.hpp"
#include "kindling/autograd/engine.hpp"
#include "kindling/autograd/node.hpp"

namespace kindling {

namespace {
TensorImpl& need(const Tensor& t, const char* what) {
  if (!t.defined()) {
    throw ValueError(std::string(what) + ": the tensor is undefined (default-constructed). "
                     "Hint: assign it a value first, e.g. kd::zeros({...}).");
  }
  return *t.impl();
}
}  // namespace

bool Tensor::requires_grad() const { return defined() && impl()->requires_grad(); }

Tensor& Tensor::requires_grad_(bool requires_grad) {
  TensorImpl& impl = need(*this, "requires_grad_");
  if (requires_grad && !kindling::is_floating_point(impl.dtype)) {
    throw AutogradError(std::string("requires_grad_: only tensors of floating point dtype can require "
                                    "gradients, but this one is ") + dtype_name(impl.dtype) +
                        ". Hint: convert it first, e.g. x.to(kd::kFloat32).requires_grad_().");
  }
  autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  if (!requires_grad && meta && meta->grad_fn) {
    throw AutogradError("requires_grad_(false): you can only change requires_grad flags of leaf tensors; "
                        "this one was computed by " + std::string(meta->grad_fn->name()) +
                        ". Hint: to use a computed tensor in a part that does not need gradients, use "
                        "y.detach().");
  }
  if (!requires_grad && !meta) return *this;
  autograd::materialize_autograd_meta(*this).requires_grad = requires_grad;
  return *this;
}

bool Tensor::is_leaf() const {
  need(*this, "is_leaf");
  const autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  return meta == nullptr || meta->grad_fn == nullptr;
}

Tensor Tensor::grad() const {
  need(*this, "grad");
  const autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  return meta ? meta->grad : Tensor();
}

void Tensor::set_grad(const Tensor& grad) {
  TensorImpl& impl = need(*this, "set_grad");
  if (!grad.defined()) {
    if (autograd::AutogradMeta* meta = autograd::autograd_meta(*this)) meta->grad = Tensor();
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
  autograd::materialize_autograd_meta(*this).grad = grad;
}

void Tensor::retain_grad() {
  need(*this, "retain_grad");
  autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  if (!meta || !meta->requires_grad) {
    throw AutogradError("retain_grad: can't retain the gradient of a tensor that does not require grad. "
                        "Hint: only tensors computed from a tensor with requires_grad_() have a gradient.");
  }
  if (!meta->grad_fn) return;  // leaves keep their gradient anyway
  meta->retains_grad = true;
  meta->grad_fn->add_retained_grad(impl_ptr(), meta->output_nr);
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  need(*this, "grad_fn");
  const autograd::AutogradMeta* meta = autograd::autograd_meta(*this);
  return meta ? meta->grad_fn : nullptr;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  need(*this, "backward");
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

}  // namespace kindling
