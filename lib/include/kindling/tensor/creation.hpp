#pragma once
/// @file
/// Making tensors: from C++ data, filled with constants, ranges, identity.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <vector>

#include "kindling/tensor/tensor.hpp"

namespace kindling {

/// A nested list of numbers, the C++ spelling of Python's [[1, 2], [3, 4]].
/// Integers give an int64 tensor, any floating-point number a float32 one, like torch.tensor.
class NestedList {
 public:
  NestedList(double v) : value_(v), is_leaf_(true), is_float_(true) {}
  NestedList(float v) : value_(v), is_leaf_(true), is_float_(true) {}
  NestedList(int v) : value_(v), is_leaf_(true) {}
  NestedList(long v) : value_(static_cast<double>(v)), is_leaf_(true) {}
  NestedList(long long v) : value_(static_cast<double>(v)), is_leaf_(true) {}
  NestedList(bool v) : value_(v), is_leaf_(true), is_bool_(true) {}
  NestedList(std::initializer_list<NestedList> items) : items_(items) {}

  bool is_leaf() const { return is_leaf_; }
  bool is_float() const { return is_float_; }
  bool is_bool() const { return is_bool_; }
  double value() const { return value_; }
  const std::vector<NestedList>& items() const { return items_; }

 private:
  double value_ = 0;
  bool is_leaf_ = false, is_float_ = false, is_bool_ = false;
  std::vector<NestedList> items_;
};

/// torch.tensor([[1., 2.], [3., 4.]]) → kd::tensor({{1., 2.}, {3., 4.}}). Always copies.
/// Ragged lists throw ShapeError. With `options`, the dtype is options.dtype.
Tensor tensor(const NestedList& data);
Tensor tensor(const NestedList& data, TensorOptions options);
/// A tensor of `shape` holding a copy of `data` (row-major); sizes must agree.
template <class T> Tensor tensor(const std::vector<T>& data, const Shape& shape);
/// A 0-d tensor holding one value.
Tensor scalar_tensor(Scalar value, TensorOptions options = {});

Tensor empty(const Shape& shape, TensorOptions options = {});
Tensor zeros(const Shape& shape, TensorOptions options = {});
Tensor ones(const Shape& shape, TensorOptions options = {});
/// A tensor filled with `value`. Without options the dtype follows the value, as torch.full's does:
/// full({2}, 7) is int64, full({2}, 7.0) float32, full({2}, true) bool. With options, options.dtype.
Tensor full(const Shape& shape, Scalar value);
Tensor full(const Shape& shape, Scalar value, TensorOptions options);
/// [start, end) in steps of `step`. int64 when all three are integers (like torch.arange),
/// otherwise float32; with `options`, the dtype is options.dtype.
Tensor arange(Scalar end);
Tensor arange(Scalar start, Scalar end, Scalar step = 1);
Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options);
/// `steps` evenly spaced values from start to end inclusive.
Tensor linspace(double start, double end, std::int64_t steps, TensorOptions options = {});
/// n×m identity (m defaults to n).
Tensor eye(std::int64_t n, std::int64_t m = -1, TensorOptions options = {});

/// Same shape (and dtype/device unless options say otherwise) as `other`.
Tensor empty_like(const Tensor& other);
Tensor zeros_like(const Tensor& other);
Tensor ones_like(const Tensor& other);
Tensor full_like(const Tensor& other, Scalar value);
Tensor empty_like(const Tensor& other, TensorOptions options);
Tensor zeros_like(const Tensor& other, TensorOptions options);
Tensor ones_like(const Tensor& other, TensorOptions options);

/// Wraps memory you own without copying (torch.from_numpy's C++ twin): the tensor and your buffer
/// are the same bytes. `deleter` (optional) runs when the last tensor dies. Strides default to
/// row-major.
Tensor from_blob(void* data, const Shape& shape, DType dtype, const Strides& strides = {},
                 std::function<void(void*)> deleter = {});

}  // namespace kindling
