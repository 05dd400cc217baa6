// Backward of tensor/views.cpp. A view moves no numbers, it only re-labels them, so its backward
// re-labels the gradient the other way: permute -> inverse permute, unsqueeze -> squeeze,
// expand -> sum over the expanded dims, slice/select -> a zero gradient with g written into the
// slice. Each Function keeps the input's shape it needs as a named member.
#include "autograd/registry.hpp"
#include "kindling/tensor/creation.hpp"

namespace kindling::autograd {
namespace {

// view / reshape: out = x.view(size)          dx = g.reshape(x's shape)
// (one struct per PyTorch name: a view, a reshape that could be a view (_reshape_alias), and the
// view of a fresh copy that a reshape of non-viewable strides makes (_unsafe_view))
template <const char* Name>
struct Reshape : Function<Reshape<Name>> {
  static constexpr const char* name = Name;
  Shape self_sizes;
  void setup_context(Context&, const Tensor& x, const IntArrayRef&, const Tensor&) { self_sizes = x.shape(); }
  Grads backward(Context&, const Grads& grad) { return {grad[0].reshape(self_sizes)}; }
};
constexpr char kView[] = "ViewBackward0";
constexpr char kReshapeAlias[] = "ReshapeAliasBackward0";
constexpr char kUnsafeView[] = "UnsafeViewBackward0";

// squeeze:    out = x.squeeze()      (SqueezeBackward0)    dx = g.reshape(x's shape)
struct SqueezeAll : Function<SqueezeAll> {
  static constexpr const char* name = "SqueezeBackward0";
  Shape self_sizes;
  void setup_context(Context&, const Tensor& x, const Tensor&) { self_sizes = x.shape(); }
  Grads backward(Context&, const Grads& grad) { return {grad[0].reshape(self_sizes)}; }
};

// squeeze(d): out = x.squeeze(d)     (SqueezeBackward1; SqueezeBackward3 for the in-place squeeze_
//                                     that matmul uses)      dx = g.reshape(x's shape)
template <const char* Name>
struct SqueezeDim : Function<SqueezeDim<Name>> {
  static constexpr const char* name = Name;
  Shape self_sizes;
  void setup_context(Context&, const Tensor& x, const std::int64_t&, const Tensor&) { self_sizes = x.shape(); }
  Grads backward(Context&, const Grads& grad) { return {grad[0].reshape(self_sizes)}; }
};
constexpr char kSqueeze1[] = "SqueezeBackward1";
constexpr char kSqueeze3[] = "SqueezeBackward3";

// unsqueeze: out = x.unsqueeze(dim)  x: [3, 4], dim 1 -> [3, 1, 4]      dx = g.squeeze(dim)
struct Unsqueeze : Function<Unsqueeze> {
  static constexpr const char* name = "UnsqueezeBackward0";
  std::int64_t dim = 0;
  void setup_context(Context&, const Tensor&, const std::int64_t& dim_, const Tensor&) { dim = dim_; }
  Grads backward(Context&, const Grads& grad) { return {grad[0].squeeze(dim)}; }
};

// permute: out = x.permute(dims)  out dim i is x dim dims[i]    dx = g.permute(inverse)
// with inverse[dims[i]] = i   (x: [2, 3, 4], dims {2, 0, 1} -> out [4, 2, 3], inverse {1, 2, 0})
struct Permute : Function<Permute> {
  static constexpr const char* name = "PermuteBackward0";
  Shape inverse;
  void setup_context(Context&, const Tensor&, const IntArrayRef& dims, const Tensor&) {
    inverse.resize(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) inverse[static_cast<std::size_t>(dims[i])] = static_cast<std::int64_t>(i);
  }
  Grads backward(Context&, const Grads& grad) { return {grad[0].permute(inverse)}; }
};

// transpose: out = x.transpose(d0, d1)  (its own inverse)   dx = g.transpose(d0, d1)
struct Transpose : Function<Transpose> {
  static constexpr const char* name = "TransposeBackward0";
  std::int64_t dim0 = 0, dim1 = 0;
  void setup_context(Context&, const Tensor&, const std::int64_t& d0, const std::int64_t& d1, const Tensor&) {
    dim0 = d0;
    dim1 = d1;
  }
  Grads backward(Context&, const Grads& grad) { return {grad[0].transpose(dim0, dim1)}; }
};

// t: out = x.t()                  dx = g.t()
struct T : Function<T> {
  static constexpr const char* name = "TBackward0";
  void setup_context(Context&, const Tensor&, const Tensor&) {}
  Grads backward(Context&, const Grads& grad) { return {grad[0].t()}; }
};

// expand: out = x.expand(size)   x: [3, 1] -> [2, 3, 4]    dx = g summed over dim 0 and dim 2
// (every output element along an expanded dim *is* the same input element: gradients add up --
// which is exactly the engine's sum_to, so the formula just passes g on)
struct Expand : Function<Expand> {
  static constexpr const char* name = "ExpandBackward0";
  void setup_context(Context&, const Tensor&, const IntArrayRef&, const Tensor&) {}
  Grads backward(Context&, const Grads& grad) { return {grad[0]}; }
};

// The backward of slice and select writes g into a zero tensor of the input's shape. Written as a
// Function of its own (PyTorch's slice_backward / select_backward), so that it is differentiable
// too: a double backward through a slice slices the gradient again.
struct SliceScatter : Function<SliceScatter> {
  static constexpr const char* name = "SliceBackwardBackward0";
  std::int64_t dim = 0, start = 0, end = 0, step = 1;
  Tensor forward(Context&, const Tensor& g, const Shape& sizes, std::int64_t dim_, std::int64_t start_,
                 std::int64_t end_, std::int64_t step_) {
    dim = dim_;
    start = start_;
    end = end_;
    step = step_;
    Tensor dx = zeros(sizes, {.dtype = g.dtype()});
    dx.slice(dim, start, end, step).copy_(g);
    return dx;
  }
  Grads backward(Context&, const Grads& grad) { return {grad[0].slice(dim, start, end, step)}; }
};

struct SelectScatter : Function<SelectScatter> {
  static constexpr const char* name = "SelectBackwardBackward0";
  std::int64_t dim = 0, index = 0;
  Tensor forward(Context&, const Tensor& g, const Shape& sizes, std::int64_t dim_, std::int64_t index_) {
    dim = dim_;
    index = index_;
    Tensor dx = zeros(sizes, {.dtype = g.dtype()});
    dx.select(dim, index).copy_(g);
    return dx;
  }
  Grads backward(Context&, const Grads& grad) { return {grad[0].select(dim, index)}; }
};

// slice: out = x[start:stop:step] along dim     dx = zeros like x, with g written into that slice
struct Slice : Function<Slice> {
  static constexpr const char* name = "SliceBackward0";
  Shape self_sizes;
  std::int64_t dim = 0, start = 0, end = 0, step = 1;
  void setup_context(Context&, const Tensor& x, const std::int64_t& dim_, const std::int64_t& start_,
                     const std::int64_t& end_, const std::int64_t& step_, const Tensor&) {
    self_sizes = x.shape();
    dim = dim_;
    start = start_;
    end = end_;
    step = step_;
  }
  Grads backward(Context&, const Grads& grad) {
    return {SliceScatter::apply(grad[0], self_sizes, dim, start, end, step)};
  }
};

// select: out = x[..., index, ...] (dim removed)   dx = zeros, g written at index
struct Select : Function<Select> {
  static constexpr const char* name = "SelectBackward0";
  Shape self_sizes;
  std::int64_t dim = 0, index = 0;
  void setup_context(Context&, const Tensor& x, const std::int64_t& dim_, const std::int64_t& index_, const Tensor&) {
    self_sizes = x.shape();
    dim = dim_;
    index = index_;
  }
  Grads backward(Context&, const Grads& grad) { return {SelectScatter::apply(grad[0], self_sizes, dim, index)}; }
};

// alias: out = x[...] or x.index({}) -- a new view with x's own geometry     dx = g
struct Alias : Function<Alias> {
  static constexpr const char* name = "AliasBackward0";
  void setup_context(Context&, const Tensor&, const Tensor&) {}
  Grads backward(Context&, const Grads& grad) { return {grad[0]}; }
};

}  // namespace

void register_views(Registry& r) {
  r.add<Alias>("alias");
  r.add<Reshape<kView>>("view");
  r.add<Reshape<kReshapeAlias>>("reshape_alias");
  r.add<Reshape<kUnsafeView>>("unsafe_view");
  r.add<SqueezeAll>("squeeze");
  r.add<SqueezeDim<kSqueeze1>>("squeeze_dim");
  r.add<SqueezeDim<kSqueeze3>>("squeeze_");
  r.add<Unsqueeze>("unsqueeze");
  r.add<Permute>("permute");
  r.add<Transpose>("transpose");
  r.add<T>("t");
  r.add<Expand>("expand");
  r.add<Slice>("slice");
  r.add<Select>("select");
}

}  // namespace kindling::autograd
