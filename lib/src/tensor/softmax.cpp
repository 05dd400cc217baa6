// softmax and log_softmax along any dim, numerically stable.
//
// softmax(x)_i = exp(x_i) / Σ_j exp(x_j) overflows as soon as some x_i > 88 (float32). Subtracting the
// lane's maximum m first changes nothing mathematically (the factor exp(-m) cancels) but keeps every
// exponent <= 0:   softmax(x)_i = exp(x_i - m) / Σ_j exp(x_j - m).
// log_softmax is computed directly as x_i - m - log(Σ_j exp(x_j - m)) rather than log(softmax(x)),
// which would give -inf wherever softmax underflows to 0.
//
// The input is viewed as [outer, D, inner] with D the softmax dim. When inner == 1 (softmax over the
// last dim, the usual case: logits [batch, classes]) every lane is a contiguous row.
#include <cmath>
#include <limits>
#include <vector>

#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "op_helpers.hpp"
#include "reduce.hpp"

namespace kindling {
namespace {
using namespace detail;

template <class T, bool Log> void softmax_rows(const T* x, T* out, std::int64_t rows, std::int64_t D) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * D;
    T* o = out + r * D;
    T m = -std::numeric_limits<T>::infinity();
    for (std::int64_t j = 0; j < D; ++j) m = xr[j] > m ? xr[j] : m;
    for (std::int64_t j = 0; j < D; ++j) o[j] = std::exp(xr[j] - m);
    const double sum = pairwise_sum<T, double>(o, D);
    if constexpr (Log) {
      const T shift = m + static_cast<T>(std::log(sum));
      for (std::int64_t j = 0; j < D; ++j) o[j] = xr[j] - shift;
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
    for (std::int64_t i = 0; i < inner; ++i) {
      if constexpr (Log) m[i] += static_cast<T>(std::log(sum[i]));  // m becomes the whole shift
      else sum[i] = 1.0 / sum[i];
    }
    for (std::int64_t j = 0; j < D; ++j)
      for (std::int64_t i = 0; i < inner; ++i) {
        if constexpr (Log) ob[j * inner + i] = xb[j * inner + i] - m[i];
        else ob[j * inner + i] *= static_cast<T>(sum[i]);
      }
  }
}

template <bool Log> Tensor softmax_impl(const Tensor& x, std::int64_t dim, const char* op) {  // not recorded
  check_cpu(x, op);
  const std::int64_t d = wrap_dim(dim, x.dim(), op);
  const Tensor xc = contiguous_copy(x);
  Tensor out = make_tensor(x.shape(), x.dtype());
  std::int64_t outer = 1, D = 1, inner = 1;
  for (std::int64_t i = 0; i < x.dim(); ++i) {
    if (i < d) outer *= x.size(i);
    else if (i == d) D = x.size(i);
    else inner *= x.size(i);
  }
  dispatch_floating(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (out.numel() == 0) return;
    const T* xp = static_cast<const T*>(xc.raw_data_ptr());
    T* outp = out.data_ptr<T>();
    if (inner == 1) softmax_rows<T, Log>(xp, outp, outer, D);
    else softmax_strided<T, Log>(xp, outp, outer, D, inner);
  });
  return out;
}

}  // namespace

Tensor softmax(const Tensor& x, std::int64_t dim) {
  return record<"softmax">(softmax_impl<false>(x, dim, "softmax"), x, wrap_dim(dim, x.dim(), "softmax"));
}
Tensor log_softmax(const Tensor& x, std::int64_t dim) {
  return record<"log_softmax">(softmax_impl<true>(x, dim, "log_softmax"), x, wrap_dim(dim, x.dim(), "log_softmax"));
}
Tensor Tensor::softmax(std::int64_t dim) const { return kindling::softmax(*this, dim); }
Tensor Tensor::log_softmax(std::int64_t dim) const { return kindling::log_softmax(*this, dim); }

}  // namespace kindling
