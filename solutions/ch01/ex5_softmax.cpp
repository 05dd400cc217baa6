// ch01.ex5 — softmax and log_softmax that never overflow.
//
// kindling::softmax / log_softmax, Tensor::softmax, nn::Softmax and chapter 5's cross-entropy (through
// log_softmax) compute their values here. Declared in lib/src/tensor/pieces.hpp.
#include <cmath>
#include <limits>
#include <vector>

#include "tensor/dispatch.hpp"
#include "tensor/op_helpers.hpp"
#include "tensor/pieces.hpp"
#include "tensor/reduce.hpp"

namespace kindling::detail {
// BEGIN SOLUTION ex5: the kernels
namespace {

// softmax(x)_i = exp(x_i) / sum_j exp(x_j) overflows as soon as some x_i > 88 (float32). Subtracting the
// lane's maximum m changes nothing mathematically (the factor exp(-m) cancels) but keeps every exponent
// <= 0. log_softmax is (x_i - m) - log(sum_j exp(x_j - m)) directly, never log(softmax(x)), which would
// give -inf wherever softmax underflows to 0. The brackets matter: x_i - m is exact, while m + log(sum)
// rounded to float first would lose log(sum)'s digits when m is large (logits near 1e4: 4e-4 off).
// The input is viewed as [outer, D, inner] with D the softmax dim. When inner == 1 (softmax over the
// last dim, the usual case: logits [batch, classes]) every lane is a contiguous row.
template <class T, bool Log> void softmax_rows(const T* x, T* out, std::int64_t rows, std::int64_t D) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * D;
    T* o = out + r * D;
    T m = -std::numeric_limits<T>::infinity();
    for (std::int64_t j = 0; j < D; ++j) m = xr[j] > m ? xr[j] : m;
    for (std::int64_t j = 0; j < D; ++j) o[j] = std::exp(xr[j] - m);
    const double sum = pairwise_sum<T, double>(o, D);
    if constexpr (Log) {
      const T log_sum = static_cast<T>(std::log(sum));
      for (std::int64_t j = 0; j < D; ++j) o[j] = (xr[j] - m) - log_sum;
    } else {
      const T inv = static_cast<T>(1.0 / sum);
      for (std::int64_t j = 0; j < D; ++j) o[j] *= inv;
    }
  }
}

/// Lanes of stride `inner`: work on `inner` lanes at once so every inner loop is contiguous.
template <class T, bool Log>
void softmax_strided(const T* x, T* out, std::int64_t outer, std::int64_t D, std::int64_t inner) {
  std::vector<T> m(inner);
  std::vector<double> sum(inner);
  for (std::int64_t o = 0; o < outer; ++o) {
    const T* xb = x + o * D * inner;
    T* ob = out + o * D * inner;
    std::fill(m.begin(), m.end(), -std::numeric_limits<T>::infinity());
    for (std::int64_t j = 0; j < D; ++j)
      for (std::int64_t i = 0; i < inner; ++i) m[i] = xb[j * inner + i] > m[i] ? xb[j * inner + i] : m[i];
    std::fill(sum.begin(), sum.end(), 0.0);
    for (std::int64_t j = 0; j < D; ++j)
      for (std::int64_t i = 0; i < inner; ++i) {
        const T e = std::exp(xb[j * inner + i] - m[i]);
        ob[j * inner + i] = e;
        sum[i] += e;
      }
    for (std::int64_t i = 0; i < inner; ++i) sum[i] = Log ? std::log(sum[i]) : 1.0 / sum[i];
    for (std::int64_t j = 0; j < D; ++j)
      for (std::int64_t i = 0; i < inner; ++i) {
        if constexpr (Log) ob[j * inner + i] = (xb[j * inner + i] - m[i]) - static_cast<T>(sum[i]);
        else ob[j * inner + i] *= static_cast<T>(sum[i]);
      }
  }
}

}  // namespace
// STUB
// END SOLUTION

Tensor softmax_forward(const Tensor& x, std::int64_t dim, bool log) {
  // BEGIN SOLUTION ex5: subtract the lane's max before exp, then normalise (or subtract the log-sum)
  const Tensor xc = contiguous_copy(x);
  Tensor out = make_tensor(x.shape(), x.dtype());
  std::int64_t outer = 1, D = 1, inner = 1;
  for (std::int64_t i = 0; i < x.dim(); ++i) {
    if (i < dim) outer *= x.size(i);
    else if (i == dim) D = x.size(i);
    else inner *= x.size(i);
  }
  dispatch_floating(x.dtype(), log ? "log_softmax" : "softmax", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (out.numel() == 0) return;
    const T* xp = static_cast<const T*>(xc.raw_data_ptr());
    T* outp = out.data_ptr<T>();
    if (inner == 1) {
      if (log) softmax_rows<T, true>(xp, outp, outer, D);
      else softmax_rows<T, false>(xp, outp, outer, D);
    } else {
      if (log) softmax_strided<T, true>(xp, outp, outer, D, inner);
      else softmax_strided<T, false>(xp, outp, outer, D, inner);
    }
  });
  return out;
  // END SOLUTION
}

}  // namespace kindling::detail
