#pragma once
/// @file
/// Interop with xtensor (opt-in: the only public header that includes xtensor).
///
///   xt::xarray<float> a = {{1, 2}, {3, 4}};
///   kd::Tensor copy = kd::from_xarray(a);   // torch.tensor(np_array): a copy
///   kd::Tensor same = kd::adapt(a);         // torch.from_numpy(np_array): the same memory
///   xt::xarray<float> back = kd::to_xarray<float>(same * 2);   // a copy
#include <cstdint>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/tensor.hpp"

namespace kindling {

namespace detail {
template <class E> Shape xshape(const E& e) { return Shape(e.shape().begin(), e.shape().end()); }
}  // namespace detail

/// A new tensor holding a copy of `a`'s values (same shape; dtype from T: float → float32, ...).
/// Any xtensor expression works: it is evaluated in row-major order.
template <class E> Tensor from_xarray(const xt::xexpression<E>& expr) {
  using T = typename E::value_type;
  const E& e = expr.derived_cast();
  const Shape shape = detail::xshape(e);
  Tensor t = empty(shape, TensorOptions{.dtype = dtype_of<T>()});
  T* p = t.data_ptr<T>();
  for (auto it = e.template begin<xt::layout_type::row_major>(); it != e.template end<xt::layout_type::row_major>(); ++it)
    *p++ = *it;
  return t;
}

/// A tensor over `a`'s own memory (nothing is copied): writing through either changes both.
/// `a` must outlive the tensor and must not be resized while the tensor is in use.
template <class C> Tensor adapt(C& a) {
  using T = typename C::value_type;
  const Shape shape = detail::xshape(a);
  // xtensor gives size-1 dimensions a stride of 0; any stride is fine for them.
  Strides strides(a.strides().begin(), a.strides().end());
  return from_blob(a.data() + a.data_offset(), shape, dtype_of<T>(), strides);
}

/// A new xt::xarray<T> with a copy of `t`'s values (converted to T when the dtype differs).
template <class T> xt::xarray<T> to_xarray(const Tensor& t) {
  const Tensor c = t.to(dtype_of<T>()).contiguous();
  std::vector<std::size_t> shape(t.shape().begin(), t.shape().end());
  xt::xarray<T> out = xt::xarray<T>::from_shape(shape);
  const T* p = c.data_ptr<T>();
  std::copy(p, p + c.numel(), out.data());
  return out;
}

}  // namespace kindling
