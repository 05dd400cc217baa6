// Ops that rearrange or mask whole tensors without arithmetic: flip, tril, triu. Unlike the views of
// views.cpp they return new tensors (PyTorch copies for these too).
#include <string>
#include <vector>

#include "dispatch.hpp"
#include "internal.hpp"
#include "kindling/tensor/ops.hpp"
#include "loops.hpp"
#include "op_helpers.hpp"

namespace kindling {
namespace {
using namespace detail;

/// out = x where keep(row, col) for the last two dims, else 0 (x: [..., rows, cols]).
template <OpKey Key>
Tensor triangle(const Tensor& x, std::int64_t diagonal, bool lower) {
  const char* op = Key.str;
  check_cpu(x, op);
  if (x.dim() < 2) {
    throw ShapeError(std::string(op) + ": the input must have at least 2 dimensions (got shape " +
                     shape_str(x.shape()) + "). Hint: it keeps a triangle of the last two dims, e.g. of a "
                     "[rows, cols] matrix; unsqueeze(0) a vector first.");
  }
  const std::int64_t rows = x.size(-2), cols = x.size(-1);
  // keep: [rows, cols] bool, broadcast over the leading (batch) dims.
  Tensor keep = make_tensor({rows, cols}, kBool);
  bool* k = keep.data_ptr<bool>();
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) k[i * cols + j] = lower ? (j - i <= diagonal) : (j - i >= diagonal);
  Tensor out = make_tensor(x.shape(), x.dtype());
  // Keeps or zeroes elements, nothing computed: every dtype, float16/bfloat16 included.
  dispatch_all(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    binary_loop<bool, T, T>(out, keep, x, [](bool kp, T v) { return kp ? v : T(0); });
  });
  return record<Key>(out, x, diagonal);
}

}  // namespace

Tensor tril(const Tensor& x, std::int64_t diagonal) { return triangle<"tril">(x, diagonal, true); }
Tensor triu(const Tensor& x, std::int64_t diagonal) { return triangle<"triu">(x, diagonal, false); }

Tensor flip(const Tensor& x, IntArrayRef dims) {
  check_cpu(x, "flip");
  std::vector<bool> flipped(static_cast<std::size_t>(x.dim()), false);
  Shape wrapped;
  for (auto d : dims) {
    const std::int64_t w = wrap_dim(d, x.dim(), "flip");
    if (x.dim() == 0) continue;  // a scalar has nothing to reverse
    if (flipped[static_cast<std::size_t>(w)]) {
      throw IndexError("flip: dim " + std::to_string(w) + " appears multiple times in the list of dims. Hint: "
                       "list each dimension once, e.g. flip({0, 1}).");
    }
    flipped[static_cast<std::size_t>(w)] = true;
    wrapped.push_back(w);
  }
  // A reversed dimension is the same memory walked backwards: start at its last element and step
  // by minus the stride. That view exists only inside this function; the result is a fresh copy.
  Strides st = x.strides();
  std::int64_t offset = x.storage_offset();
  for (std::int64_t d = 0; d < x.dim(); ++d) {
    if (!flipped[static_cast<std::size_t>(d)] || x.size(d) == 0) continue;
    offset += (x.size(d) - 1) * st[static_cast<std::size_t>(d)];
    st[static_cast<std::size_t>(d)] = -st[static_cast<std::size_t>(d)];
  }
  Tensor out = make_tensor(x.shape(), x.dtype());
  copy_into(out, make_view(x, x.shape(), st, offset));
  return record<"flip">(out, x, IntArrayRef(wrapped));
}

Tensor Tensor::tril(std::int64_t diagonal) const { return kindling::tril(*this, diagonal); }
Tensor Tensor::triu(std::int64_t diagonal) const { return kindling::triu(*this, diagonal); }
Tensor Tensor::flip(IntArrayRef dims) const { return kindling::flip(*this, dims); }

}  // namespace kindling
