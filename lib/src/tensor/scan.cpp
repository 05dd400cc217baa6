// Running totals along a dimension: cumsum and cumprod.
//
//   x: [2, 3] = [[1, 2, 3], [4, 5, 6]]   x.cumsum(1) = [[1, 3, 6], [4, 9, 15]]   x.cumprod(1) = [[1, 2, 6], ...]
//
// Each lane is scanned in the accumulation type (float64 for floating inputs, as PyTorch's CPU
// kernels accumulate; int64 for bool and integers, which give int64 results, as in PyTorch).
#include <string>
#include <type_traits>

#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {
using namespace detail;

Tensor scan(const Tensor& x, std::int64_t dim, bool product, const char* op) {
  check_cpu(x, op);
  check_defined(x, op);
  const std::int64_t d = wrap_dim(dim, std::max<std::int64_t>(x.dim(), 1), op);
  const DType out_dtype = is_floating_point(x.dtype()) ? x.dtype() : kInt64;
  const DType acc_dtype = is_floating_point(x.dtype()) ? kFloat64 : kInt64;
  if (x.dim() == 0) return cast(x, out_dtype).clone();
  // Lanes contiguous and last: [..., n], scanned in place.
  Tensor work = contiguous_copy(cast(x, acc_dtype).transpose(d, -1));
  if (work.is_same(x) || work.shares_storage(x)) work = work.clone();
  const std::int64_t n = work.size(-1);
  const std::int64_t lanes = n == 0 ? 0 : work.numel() / n;
  dispatch(acc_dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(work.raw_data_ptr());
    for (std::int64_t l = 0; l < lanes; ++l, p += n) {
      for (std::int64_t i = 1; i < n; ++i) {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {  // int64 wraps, as in PyTorch
          using U = std::make_unsigned_t<T>;
          const U a = static_cast<U>(p[i - 1]), b = static_cast<U>(p[i]);
          p[i] = static_cast<T>(product ? a * b : a + b);
        } else {
          p[i] = product ? p[i - 1] * p[i] : p[i - 1] + p[i];
        }
      }
    }
  });
  return contiguous_copy(cast(work, out_dtype).transpose(d, -1));
}

}  // namespace

Tensor Tensor::cumsum(std::int64_t dim) const {
  const Tensor out = scan(*this, dim, false, "cumsum");
  return record<"cumsum">(out, *this, wrap_dim(dim, std::max<std::int64_t>(this->dim(), 1), "cumsum"));
}

Tensor Tensor::cumprod(std::int64_t dim) const {
  const Tensor out = scan(*this, dim, true, "cumprod");
  return record<"cumprod">(out, *this, wrap_dim(dim, std::max<std::int64_t>(this->dim(), 1), "cumprod"));
}

}  // namespace kindling
