// Derivative table, views and joins. A view moves no numbers, it only re-labels them, so its
// backward re-labels the gradient the other way: permute -> inverse permute, unsqueeze -> squeeze,
// expand -> sum over the expanded dims, slice/select -> a zero gradient with g written into the
// slice. cat/stack cut the gradient back into one piece per input.
#include "autograd/function.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/ops.hpp"

namespace kindling::autograd {
namespace {

using Grads = std::vector<Tensor>;

// view / reshape: out = x.view(new_shape)           dx = g.reshape(x.shape)
// squeeze:        out = x.squeeze([dim])            dx = g.reshape(x.shape)
Grads reshape_backward(const BackwardContext& c) { return {c.grad().reshape(c.input_shape(0))}; }

// unsqueeze: out = x.unsqueeze(dim)  x: [3, 4], dim 1 -> [3, 1, 4]      dx = g.squeeze(dim)
Grads unsqueeze_backward(const BackwardContext& c) {
  const auto out_rank = static_cast<std::int64_t>(c.input_shape(0).size()) + 1;
  return {c.grad().squeeze(wrap_dim(c.ints()[0], out_rank, "unsqueeze"))};
}

// permute: out = x.permute(dims)  out dim i is x dim dims[i]    dx = g.permute(inverse)
// with inverse[dims[i]] = i   (x: [2, 3, 4], dims {2, 0, 1} -> out [4, 2, 3], inverse {1, 2, 0})
Grads permute_backward(const BackwardContext& c) {
  const auto rank = static_cast<std::int64_t>(c.ints().size());
  std::vector<std::int64_t> inverse(c.ints().size());
  for (std::int64_t i = 0; i < rank; ++i) inverse[wrap_dim(c.ints()[i], rank, "permute")] = i;
  return {c.grad().permute(inverse)};
}

// transpose: out = x.transpose(d0, d1)  (its own inverse)   dx = g.transpose(d0, d1)
Grads transpose_backward(const BackwardContext& c) { return {c.grad().transpose(c.ints()[0], c.ints()[1])}; }

// t: out = x.t()                  dx = g.t()
Grads t_backward(const BackwardContext& c) { return {c.grad().t()}; }

// expand: out = x.expand(shape)   x: [3, 1] -> [2, 3, 4]    dx = g summed over dim 0 and dim 2
// (every output element along an expanded dim *is* the same input element: gradients add up)
Grads expand_backward(const BackwardContext& c) { return {unbroadcast(c.grad(), c.input_shape(0))}; }

// slice: out = x[start:stop:step] along dim        ints: dim, start, stop, step (normalised)
// dx = zeros like x, with g written into that slice
Grads slice_backward(const BackwardContext& c) {
  const auto& a = c.ints();
  Tensor dx = zeros(c.input_shape(0), {.dtype = c.grad().dtype()});
  dx.slice(a[0], a[1], a[2], a[3]).copy_(c.grad());
  return {dx};
}

// select: out = x[..., index, ...] (dim removed)   ints: dim, index      dx = zeros, g written at index
Grads select_backward(const BackwardContext& c) {
  Tensor dx = zeros(c.input_shape(0), {.dtype = c.grad().dtype()});
  dx.select(c.ints()[0], c.ints()[1]).copy_(c.grad());
  return {dx};
}

// cat: out = cat(xs, dim)   x0: [2, 3], x1: [4, 3], dim 0 -> [6, 3]
// dx0 = g[0:2], dx1 = g[2:6]   (narrow along dim at each input's offset)
Grads cat_backward(const BackwardContext& c) {
  const Tensor& g = c.grad();
  const std::int64_t dim = wrap_dim(c.ints()[0], g.dim(), "cat");
  Grads r(c.num_inputs());
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < c.num_inputs(); ++i) {
    const Shape& s = c.input_shape(i);
    // PyTorch's cat skips 1-D empty tensors ([0]) whatever the dim: they take no room in the output.
    if (s.size() == 1 && s[0] == 0 && g.dim() != 1) {
      if (c.needs_input_grad(i)) r[i] = zeros(s, {.dtype = g.dtype()});
      continue;
    }
    const std::int64_t len = s[dim];
    if (c.needs_input_grad(i)) r[i] = g.narrow(dim, offset, len);
    offset += len;
  }
  return r;
}

// stack: out = stack(xs, dim)  xs: k tensors [2, 3], dim 0 -> [k, 2, 3]     dxi = g.select(dim, i)
Grads stack_backward(const BackwardContext& c) {
  const Tensor& g = c.grad();
  const std::int64_t dim = wrap_dim(c.ints()[0], g.dim(), "stack");
  Grads r(c.num_inputs());
  for (std::size_t i = 0; i < c.num_inputs(); ++i) {
    if (c.needs_input_grad(i)) r[i] = g.select(dim, static_cast<std::int64_t>(i));
  }
  return r;
}

// reshape is a view when the strides allow it (PyTorch: _reshape_alias) and a copy otherwise
// (PyTorch: _unsafe_view of a clone). The names tell the reader which one happened.
const char* reshape_name(const detail::OpRecord& r, const std::vector<Tensor>& outs) {
  return outs[0].shares_storage(r.inputs[0]) ? "ReshapeAliasBackward0" : "UnsafeViewBackward0";
}
// squeeze() and squeeze(dim) are different PyTorch functions.
const char* squeeze_name(const detail::OpRecord& r, const std::vector<Tensor>&) {
  return r.ints.empty() ? "SqueezeBackward0" : "SqueezeBackward1";
}

const Derivative kRows[] = {
    {"view", "ViewBackward0", reshape_backward, kSaveNothing},
    {"reshape", "ReshapeAliasBackward0", reshape_backward, kSaveNothing, reshape_name},
    {"squeeze", "SqueezeBackward0", reshape_backward, kSaveNothing, squeeze_name},
    {"unsqueeze", "UnsqueezeBackward0", unsqueeze_backward, kSaveNothing},
    {"permute", "PermuteBackward0", permute_backward, kSaveNothing},
    {"transpose", "TransposeBackward0", transpose_backward, kSaveNothing},
    {"t", "TBackward0", t_backward, kSaveNothing},
    {"expand", "ExpandBackward0", expand_backward, kSaveNothing},
    {"slice", "SliceBackward0", slice_backward, kSaveNothing},
    {"select", "SelectBackward0", select_backward, kSaveNothing},
    {"cat", "CatBackward0", cat_backward, kSaveNothing},
    {"stack", "StackBackward0", stack_backward, kSaveNothing},
};

}  // namespace

DerivativeTable view_derivatives() { return {kRows, std::size(kRows)}; }

}  // namespace kindling::autograd
