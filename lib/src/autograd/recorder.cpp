// The recorder: what chapter 1's ops call (through detail::record) when an input requires grad.
// It looks the op up in the derivative table and attaches an OpNode to the outputs — the graph is
// built *during* the forward pass, one node per op ("define by run").
#include <string>

#include "autograd/function.hpp"
#include "autograd/recorder.hpp"

namespace kindling::autograd {

void record_op(detail::OpRecord&& rec, std::vector<Tensor>& outputs) {
  const Derivative* d = find_derivative(rec.op);
  if (d == nullptr) {
    throw AutogradError(std::string(rec.op) +
                        ": no derivative is registered for this op, so it cannot be used on tensors that "
                        "require grad. Hint: compute it under kd::NoGradGuard, or add a row to the derivative "
                        "table (lib/src/autograd/derivatives_*.cpp).");
  }
  // An op that returned one of its own inputs (x.to(x.dtype()), contiguous() of a contiguous
  // tensor) did nothing: attaching a node would make the tensor its own ancestor.
  for (const Tensor& out : outputs)
    for (const Tensor& in : rec.inputs)
      if (out.is_same(in)) return;

  // One edge per input: where its gradient goes (its grad_fn, its leaf accumulator, or nowhere).
  std::vector<Edge> edges;
  edges.reserve(rec.inputs.size());
  for (const Tensor& in : rec.inputs) edges.push_back(gradient_edge(in));

  const char* name = d->name_fn ? d->name_fn(rec, outputs) : d->name;
  auto node = std::make_shared<OpNode>(*d, name, std::move(rec), outputs, std::move(edges));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    TensorImpl* impl = outputs[i].impl();
    if (!is_floating_point(impl->dtype)) continue;  // indices of max(dim): never differentiable
    impl->requires_grad = true;
    impl->grad_fn = node;
    impl->output_nr = static_cast<std::uint32_t>(i);
  }
}

std::string node_name_of(const Tensor& t) {
  return t.defined() && t.impl()->grad_fn ? t.impl()->grad_fn->name() : "";
}

void install_hooks() {
  detail::set_recorder(&record_op);
  detail::set_node_name_fn(&node_name_of);
}

}  // namespace kindling::autograd
