// A "library call" submission (see ex1_strides.cpp): the sum through x.sum(), or through mean().
#include "kindling/tensor.hpp"
#include "tensor/pieces.hpp"

namespace kindling::detail {
Tensor sum_keepdim(const Tensor& x, const std::vector<bool>& reduce) {
  std::vector<std::int64_t> dims;
  for (std::size_t d = 0; d < reduce.size(); ++d)
    if (reduce[d]) dims.push_back(static_cast<std::int64_t>(d));
  if (x.is_floating_point()) return (x.mean(dims, true) * static_cast<double>(x.numel())).to(kFloat64);
  return x.sum(dims, true);
}
}  // namespace kindling::detail
