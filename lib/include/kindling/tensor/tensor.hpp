#pragma once
/// @file
/// The Tensor: a cheap handle to a TensorImpl = (storage, shape, strides, offset, dtype) plus the
/// autograd fields chapter 2 fills in. Copying a Tensor copies the handle, never the data —
/// exactly like assigning a tensor to another name in Python.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kindling/tensor/device.hpp"
#include "kindling/tensor/dtype.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/indexing.hpp"
#include "kindling/tensor/scalar.hpp"
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/storage.hpp"

namespace kindling {

namespace autograd {
class Node;  // chapter 2: a backward function in the graph (MulBackward0, ...)
class RemovableHandle;  // chapter 7: takes a hook out again (kindling/autograd/hooks.hpp)
}

/// Options for creating a tensor, written with designated initialisers:
/// `kd::zeros({2, 3}, {.dtype = kd::kFloat64, .requires_grad = true})`.
struct TensorOptions {
  DType dtype = kFloat32;
  Device device = kCPU;
  bool requires_grad = false;
};

/// Chapter 2's per-tensor autograd state (the gradient, the node that made the tensor, ...) lives
/// behind one pointer in TensorImpl, null for the many tensors that never take part in autograd
/// (PyTorch's c10 keeps `autograd_meta_` the same way). Chapter 1 only ever asks two questions.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  /// Read by every op ("must this call be recorded?"), so a plain field rather than a virtual call.
  bool requires_grad = false;
  /// True for chapter 2's full AutogradMeta, false for chapter 1's minimal one: lets autograd reach
  /// its own fields without a dynamic_cast on every op.
  bool is_full = false;
  /// A leaf was made by the user, not computed by a recorded op (no grad_fn).
  virtual bool is_leaf() const { return true; }
};

/// What a tensor *is*: a plain array -- storage, geometry, dtype. Several TensorImpls may share one
/// Storage (views).
struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape shape;
  Strides strides;          // in elements, one per dimension
  std::int64_t offset = 0;  // in elements, where element [0, 0, ...] lives in storage
  DType dtype = kFloat32;
  std::unique_ptr<AutogradMetaInterface> autograd_meta;  // chapter 2; null when no gradient is involved

  bool requires_grad() const { return autograd_meta != nullptr && autograd_meta->requires_grad; }
  void* data_ptr() const {
    return static_cast<char*>(storage->data()) + offset * static_cast<std::int64_t>(element_size(dtype));
  }
};

/// A multi-dimensional array with a dtype and a device, that can take part in autograd.
class Tensor {
 public:
  /// An undefined tensor (like a default-constructed torch::Tensor): defined() is false.
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- what the tensor is -------------------------------------------------------------------------
  bool defined() const { return impl_ != nullptr; }
  std::int64_t dim() const;
  const Shape& shape() const;
  const Shape& sizes() const { return shape(); }
  /// Size of dimension `d` (negative counts from the end).
  std::int64_t size(std::int64_t d) const;
  const Strides& strides() const;
  std::int64_t stride(std::int64_t d) const;
  std::int64_t storage_offset() const;
  std::int64_t numel() const;
  DType dtype() const;
  Device device() const;
  std::size_t element_size() const;
  std::size_t nbytes() const;
  bool is_contiguous() const;
  bool is_floating_point() const;
  /// True when both tensors look at the same Storage (one is a view of the other, or both are views).
  bool shares_storage(const Tensor& other) const;
  /// The shared storage object itself (for the storage/strides/offset pictures of chapter 1).
  const std::shared_ptr<Storage>& storage() const;
  /// Address of element [0, 0, ...]; T must match the dtype.
  template <class T> T* data_ptr() const;
  void* raw_data_ptr() const;
  /// The value of a one-element tensor (any shape with numel()==1), converted to T.
  template <class T> T item() const;
  /// All elements in row-major order, converted to T.
  template <class T> std::vector<T> to_vector() const;
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  /// Same TensorImpl (not merely equal values).
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  /// Version counter of the storage (bumped by every in-place op).
  std::uint64_t version() const;

  // ---- views: new tensors over the same storage ---------------------------------------------------
  /// Same data, new shape; needs compatible strides (throws ShapeError with a hint otherwise).
  /// One size may be -1 (inferred).
  Tensor view(const Shape& shape) const;
  /// A view when the strides allow it, otherwise a copy.
  Tensor reshape(const Shape& shape) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;
  /// Transpose of a 0-, 1- or 2-d tensor.
  Tensor t() const;
  /// Broadcast to a bigger shape without copying (stride 0 along new/expanded dims); -1 keeps a size.
  Tensor expand(const Shape& shape) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor squeeze() const;
  Tensor squeeze(std::int64_t dim) const;
  Tensor unsqueeze(std::int64_t dim) const;
  Tensor flatten(std::int64_t start_dim = 0, std::int64_t end_dim = -1) const;
  /// Elements start..start+length-1 along `dim`.
  Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
  /// Pieces of `split_size` along `dim` (the last may be smaller), or of the given sizes: views.
  std::vector<Tensor> split(std::int64_t split_size, std::int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef sizes, std::int64_t dim) const;
  /// `chunks` pieces of ceil(size / chunks) along `dim` (fewer when they run out, as in PyTorch).
  std::vector<Tensor> chunk(std::int64_t chunks, std::int64_t dim = 0) const;
  /// x tiled: x: [2, 3], repeat({2, 1}) -> [4, 3] (a copy; more repeats than dims add leading dims).
  Tensor repeat(IntArrayRef repeats) const;
  /// Elements shifted along `dims` with wrap-around; without dims, along the flattened tensor.
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  /// Python's x[:, start:stop:step] along one dimension (bounds clamped like Python).
  Tensor slice(std::int64_t dim, std::int64_t start, std::int64_t stop, std::int64_t step = 1) const;
  /// Python's x[..., index, ...]: removes dimension `dim`.
  Tensor select(std::int64_t dim, std::int64_t index) const;
  /// x[i] — select(0, i).
  Tensor operator[](std::int64_t index) const;
  /// x.index({Slice(1, None), 0, None, Ellipsis}) — Python's x[1:, 0, None, ...] (a view).
  /// x.index({mask}) and x.index({Slice(), idx}) — Python's x[mask], x[:, idx] (a copy): bool masks
  /// and int64 position tensors, broadcast together, with PyTorch's rule for where their dims go.
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  /// Writes `value` (broadcast) into x[indices], in place: x.index_put_({x < 0}, 0) is x[x < 0] = 0.
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, Scalar value);
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value);

  // ---- copies ------------------------------------------------------------------------------------
  /// This tensor if already contiguous, else a row-major copy.
  Tensor contiguous() const;
  /// A new tensor with its own storage and the same values (differentiable).
  Tensor clone() const;
  /// Same storage, cut from the autograd graph (requires_grad false).
  Tensor detach() const;
  /// A copy converted to `dtype` (this tensor itself if it already has it).
  Tensor to(DType dtype) const;
  /// A copy on `device` (this tensor itself if it is already there).
  Tensor to(Device device) const;
  Tensor to(const TensorOptions& options) const;
  Tensor cpu() const { return to(kCPU); }
  Tensor float_() const { return to(kFloat32); }
  Tensor double_() const { return to(kFloat64); }
  Tensor long_() const { return to(kInt64); }

  // ---- math (broadcasting, PyTorch type promotion) ----------------------------------------------
  Tensor add(const Tensor& other, Scalar alpha = 1) const;
  Tensor sub(const Tensor& other, Scalar alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor div(const Tensor& other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(Scalar exponent) const;
  Tensor neg() const;
  Tensor abs() const;
  Tensor exp() const;
  Tensor reciprocal() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor log1p() const;
  Tensor expm1() const;
  Tensor erf() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  Tensor trunc() const;
  Tensor sign() const;
  Tensor index_select(std::int64_t dim, const Tensor& index) const;
  Tensor gather(std::int64_t dim, const Tensor& index) const;
  Tensor scatter(std::int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(std::int64_t dim, const Tensor& index, Scalar value) const;
  Tensor scatter_add(std::int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor masked_fill(const Tensor& mask, Scalar value) const;
  Tensor tril(std::int64_t diagonal = 0) const;
  Tensor triu(std::int64_t diagonal = 0) const;
  Tensor flip(IntArrayRef dims) const;
  Tensor any() const;
  Tensor any(std::int64_t dim, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(std::int64_t dim, bool keepdim = false) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor eq(const Tensor& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor le(const Tensor& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor ge(const Tensor& other) const;

  // ---- reductions (dim may be negative) ------------------------------------------------------------
  Tensor sum() const;
  Tensor sum(IntArrayRef dims, bool keepdim = false) const;
  Tensor sum(std::int64_t dim, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(IntArrayRef dims, bool keepdim = false) const;
  Tensor mean(std::int64_t dim, bool keepdim = false) const;
  /// Largest element (0-d tensor).
  Tensor max() const;
  Tensor min() const;
  /// (values, indices) along `dim`, like torch.max(x, dim).
  std::pair<Tensor, Tensor> max(std::int64_t dim, bool keepdim = false) const;
  std::pair<Tensor, Tensor> min(std::int64_t dim, bool keepdim = false) const;
  /// Index of the largest element of the flattened tensor (0-d int64).
  Tensor argmax() const;
  Tensor argmax(std::int64_t dim, bool keepdim = false) const;
  Tensor argmin() const;
  Tensor argmin(std::int64_t dim, bool keepdim = false) const;
  /// x.amax(dims): the largest value over `dims` (all dims when empty); ties share the gradient.
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  /// Product of all elements / along `dim` (bool and integer inputs give int64, as in PyTorch).
  Tensor prod() const;
  Tensor prod(std::int64_t dim, bool keepdim = false) const;
  /// Running sum / product along `dim`: out[i] = x[0] + ... + x[i] (integers give int64).
  Tensor cumsum(std::int64_t dim) const;
  Tensor cumprod(std::int64_t dim) const;
  /// log(sum(exp(x))) over `dims`, computed around the max so it never overflows.
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;
  /// The p-norm (sum |x|^p)^(1/p) of all elements / over `dims` (p = inf: max |x|; p = 0: count of
  /// non-zeros). Floating-point inputs only, as in PyTorch.
  Tensor norm(double p = 2) const;
  Tensor norm(double p, IntArrayRef dims, bool keepdim = false) const;
  /// (values, indices) with every lane along `dim` in order: a stable sort, NaN above every number.
  std::pair<Tensor, Tensor> sort(std::int64_t dim = -1, bool descending = false) const;
  Tensor argsort(std::int64_t dim = -1, bool descending = false) const;
  /// The k largest (or smallest) values along `dim` and their positions, in order.
  std::pair<Tensor, Tensor> topk(std::int64_t k, std::int64_t dim = -1, bool largest = true,
                                 bool sorted = true) const;
  /// Variance with Bessel's correction by default (`correction` = 1, PyTorch's unbiased=True).
  Tensor var(std::int64_t correction = 1) const;
  Tensor var(std::int64_t dim, bool keepdim, std::int64_t correction = 1) const;
  Tensor std(std::int64_t correction = 1) const;
  Tensor std(std::int64_t dim, bool keepdim, std::int64_t correction = 1) const;
  /// exp(x - max) / sum(exp(x - max)) along dim: never overflows.
  Tensor softmax(std::int64_t dim) const;
  /// x - max - log(sum(exp(x - max))) along dim: finite even where softmax underflows to 0.
  Tensor log_softmax(std::int64_t dim) const;

  // ---- linear algebra ----------------------------------------------------------------------------
  /// torch.matmul: 1-D·1-D dot, 2-D·2-D GEMM, batched with broadcasting over leading dimensions.
  Tensor matmul(const Tensor& other) const;
  /// Strictly 2-D × 2-D.
  Tensor mm(const Tensor& other) const;

  // ---- in place (bump the version counter) --------------------------------------------------------
  Tensor& add_(const Tensor& other, Scalar alpha = 1);
  Tensor& add_(Scalar other);
  Tensor& sub_(const Tensor& other, Scalar alpha = 1);
  Tensor& sub_(Scalar other);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(Scalar other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(Scalar other);
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Tensor& zero_();
  Tensor& fill_(Scalar value);
  /// Copies `src` (broadcast to this shape, converted to this dtype) into this tensor's memory.
  Tensor& copy_(const Tensor& src);

  // ---- autograd (defined by chapter 2's layer, kindling_autograd) ---------------------------------
  bool requires_grad() const;
  /// Marks a leaf tensor so that operations on it are recorded for backward.
  Tensor& requires_grad_(bool requires_grad = true);
  /// A leaf was created by the user (no grad_fn); only leaves accumulate .grad by default.
  bool is_leaf() const;
  /// The accumulated gradient (undefined until a backward reaches this tensor).
  Tensor grad() const;
  /// Replaces the gradient (undefined Tensor clears it).
  void set_grad(const Tensor& grad);
  /// Ask a non-leaf tensor to keep its gradient after backward.
  void retain_grad();
  /// The backward node that produced this tensor, or null for a leaf.
  std::shared_ptr<autograd::Node> grad_fn() const;
  /// Computes the gradients of this tensor w.r.t. every leaf that requires grad, accumulating into
  /// their .grad. `gradient` is required unless the tensor has a single element. `retain_graph`
  /// keeps the saved tensors for another backward (default: create_graph); `create_graph` records
  /// the backward pass itself, so that the gradients can be differentiated again.
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  /// Calls `hook(grad)` each time the gradient of this tensor is computed, before it is used; a
  /// defined result replaces the gradient (PyTorch's `Tensor.register_hook`). On a leaf it runs
  /// before the gradient is added into `.grad`. Include kindling/autograd/hooks.hpp for the handle.
  autograd::RemovableHandle register_hook(std::function<Tensor(const Tensor&)> hook) const;

  /// PyTorch-style text: tensor([[1., 2.],\n        [3., 4.]]).
  std::string to_string() const;

 private:
  std::shared_ptr<TensorImpl> impl_;
};

/// Prints like PyTorch (summarised with ... for large tensors).
std::ostream& operator<<(std::ostream& os, const Tensor& t);

// ---- operators ------------------------------------------------------------------------------------
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(Scalar a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, Scalar b);
Tensor& operator-=(Tensor& a, Scalar b);
Tensor& operator*=(Tensor& a, Scalar b);
Tensor& operator/=(Tensor& a, Scalar b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, Scalar b);
Tensor operator!=(const Tensor& a, Scalar b);
Tensor operator<(const Tensor& a, Scalar b);
Tensor operator<=(const Tensor& a, Scalar b);
Tensor operator>(const Tensor& a, Scalar b);
Tensor operator>=(const Tensor& a, Scalar b);
/// A number on the left, as in Python: `0 < x` is `x > 0`.
Tensor operator==(Scalar a, const Tensor& b);
Tensor operator!=(Scalar a, const Tensor& b);
Tensor operator<(Scalar a, const Tensor& b);
Tensor operator<=(Scalar a, const Tensor& b);
Tensor operator>(Scalar a, const Tensor& b);
Tensor operator>=(Scalar a, const Tensor& b);
/// Python's `%` (torch.remainder): the result takes the sign of b, so -7 % 2 == 1.
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, Scalar b);
Tensor operator%(Scalar a, const Tensor& b);

}  // namespace kindling
