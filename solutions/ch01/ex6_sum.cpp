// ex6 — a reduction along one dimension, written as a loop over strides.
#include "ch01/tensor_exercises.hpp"

#include <type_traits>

namespace kindling::exercises::ch01 {

Tensor sum_dim(const Tensor& x, std::int64_t dim, bool keepdim) {
  // BEGIN SOLUTION ex6: one output element per position of the other dims; add up x along dim
  const std::int64_t ndim = x.dim();
  const std::int64_t d = wrap_dim(dim, ndim, "sum_dim");  // -1 -> ndim-1, and a clear IndexError
  // Like PyTorch: floating dtypes keep theirs, integers and bools sum to int64.
  const DType out_dtype = x.is_floating_point() ? x.dtype() : kInt64;
  const Tensor src = x.to(out_dtype);  // converts (a copy) only when the dtype differs
  Shape kept = src.shape();            // x: [a, n, b] -> kept: [a, 1, b]
  if (ndim > 0) kept[d] = 1;
  Tensor out = zeros(kept, {.dtype = out_dtype});
  const std::int64_t n = ndim > 0 ? src.size(d) : 1;     // how many elements each output adds up
  const std::int64_t step = ndim > 0 ? src.stride(d) : 0;  // their distance in storage

  auto run = [&](auto tag) {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
    const T* base = src.data_ptr<T>();
    T* o = out.data_ptr<T>();  // out is fresh and row-major: write it in order
    std::vector<std::int64_t> index(ndim, 0);
    for (std::int64_t i = 0; i < out.numel(); ++i) {
      std::int64_t offset = 0;
      for (std::int64_t k = 0; k < ndim; ++k) offset += index[k] * src.stride(k);
      Acc acc = 0;  // accumulate in double: float32 sums of many terms lose digits
      for (std::int64_t j = 0; j < n; ++j) acc += base[offset + j * step];
      o[i] = static_cast<T>(acc);
      for (std::int64_t k = ndim - 1; k >= 0; --k) {  // next output position (odometer over kept)
        if (++index[k] < kept[k]) break;
        index[k] = 0;
      }
    }
  };
  if (out_dtype == kFloat32) run(float{});
  else if (out_dtype == kFloat64) run(double{});
  else run(std::int64_t{});
  return keepdim || ndim == 0 ? out : out.squeeze(d);
  // END SOLUTION
}

}  // namespace kindling::exercises::ch01
