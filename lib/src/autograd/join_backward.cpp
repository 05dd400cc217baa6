// Backward of tensor/join.cpp: cat and stack cut the gradient back into one piece per input.
#include "autograd/registry.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::autograd {
namespace {

// cat: out = cat(xs, dim)   x0: [2, 3], x1: [4, 3], dim 0 -> [6, 3]
// dx0 = g[0:2], dx1 = g[2:6]   (narrow along dim at each input's offset)
struct Cat : Function<Cat> {
  static constexpr const char* name = "CatBackward0";
  std::int64_t dim = 0;
  std::vector<Shape> sizes;  // each input's shape
  void setup_context(Context&, const std::vector<Tensor>& xs, const std::int64_t& dim_, const Tensor&) {
    dim = dim_;
    for (const Tensor& x : xs) sizes.push_back(x.shape());
  }
  Grads backward(Context& ctx, const Grads& grad) {
    const Tensor& g = grad[0];
    Grads r(sizes.size());
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const Shape& s = sizes[i];
      // PyTorch's cat skips 1-D empty tensors ([0]) whatever the dim: they take no room in the output.
      if (s.size() == 1 && s[0] == 0 && g.dim() != 1) {
        if (ctx.needs_input_grad(i)) r[i] = zeros(s, {.dtype = g.dtype()});
        continue;
      }
      const std::int64_t len = s[dim];
      if (ctx.needs_input_grad(i)) r[i] = g.narrow(dim, offset, len);
      offset += len;
    }
    return r;
  }
};

// stack: out = stack(xs, dim)  xs: k tensors [2, 3], dim 0 -> [k, 2, 3]     dxi = g.select(dim, i)
struct Stack : Function<Stack> {
  static constexpr const char* name = "StackBackward0";
  std::int64_t dim = 0;
  std::size_t count = 0;
  void setup_context(Context&, const std::vector<Tensor>& xs, const std::int64_t& dim_, const Tensor&) {
    dim = dim_;
    count = xs.size();
  }
  Grads backward(Context& ctx, const Grads& grad) {
    Grads r(count);
    for (std::size_t i = 0; i < count; ++i)
      if (ctx.needs_input_grad(i)) r[i] = grad[0].select(dim, static_cast<std::int64_t>(i));
    return r;
  }
};

}  // namespace

void register_join(Registry& r) {
  r.add<Cat>("cat");
  r.add<Stack>("stack");
}

}  // namespace kindling::autograd
