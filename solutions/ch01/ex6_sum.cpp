// ch01.ex6 — a reduction: the sum over chosen dimensions, kept in "keepdim" shape.
//
// x.sum(), x.sum(dim), x.sum(dims, keepdim) and every mean call this, as do autograd's gradient
// reductions from chapter 2 on (a bias's gradient is a sum over the batch). Declared in
// lib/src/tensor/pieces.hpp.
#include <cstring>
#include <type_traits>

#include "tensor/dispatch.hpp"
#include "tensor/pieces.hpp"
#include "tensor/reduce.hpp"

namespace kindling::detail {
// BEGIN SOLUTION ex6: the summing loop
namespace {

// float32 sums are accumulated in float64 (pairwise within a row), so the result is as close to the exact
// sum as float32 can hold — like torch.sum's cascade summation, and unlike a naive running float sum
// whose error grows with the length.
/// acc (keepdim shape, zero-initialised) += x summed over the dims where acc has size 1.
template <class In, class Acc> void sum_into(const Tensor& acc, const Tensor& x) {
  reduce_loop(acc, x, [](char* a, char* xp, std::int64_t sa, std::int64_t sx, std::int64_t n) {
    if (sa == 0) {  // a whole row into one number: x.sum(-1)
      Acc t = 0;
      if (sx == static_cast<std::int64_t>(sizeof(In))) {
        t = pairwise_sum<In, Acc>(reinterpret_cast<const In*>(xp), n);
      } else {
        for (std::int64_t i = 0; i < n; ++i) t += static_cast<Acc>(*reinterpret_cast<const In*>(xp + i * sx));
      }
      *reinterpret_cast<Acc*>(a) += t;
    } else if (sa == static_cast<std::int64_t>(sizeof(Acc)) && sx == static_cast<std::int64_t>(sizeof(In))) {
      // rows add into a row of accumulators: x.sum(0) of a [rows, cols] tensor — vectorised.
      Acc* __restrict ap = reinterpret_cast<Acc*>(a);
      const In* xq = reinterpret_cast<const In*>(xp);
      for (std::int64_t i = 0; i < n; ++i) ap[i] += static_cast<Acc>(xq[i]);
    } else {
      for (std::int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Acc*>(a + i * sa) += static_cast<Acc>(*reinterpret_cast<const In*>(xp + i * sx));
    }
  });
}

}  // namespace
// STUB
// END SOLUTION

Tensor sum_keepdim(const Tensor& x, const std::vector<bool>& reduce) {
  // BEGIN SOLUTION ex6: one accumulator per output element; add every input element into its own
  const DType acc_dtype = is_floating_point(x.dtype()) ? kFloat64 : kInt64;
  Tensor acc = make_tensor(reduced_shape(x.shape(), reduce, /*keepdim=*/true), acc_dtype);
  std::memset(acc.raw_data_ptr(), 0, acc.nbytes());
  dispatch(x.dtype(), "sum", [&](auto tag) {
    using In = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<In>) sum_into<In, double>(acc, x);
    else sum_into<In, std::int64_t>(acc, x);
  });
  return acc;
  // END SOLUTION
}

}  // namespace kindling::detail
