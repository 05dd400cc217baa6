// ex2 — broadcasting: which shape do two tensors combine to?
#include "ch01/tensor_exercises.hpp"

#include <string>

namespace kindling::exercises::ch01 {

Shape broadcast_shape(const Shape& a, const Shape& b) {
  // BEGIN SOLUTION ex2: align the shapes on the right; sizes must match or be 1
  // [8, 1, 6, 1] with [7, 1, 5] -> [8, 7, 6, 5]: a missing leading dimension counts as size 1.
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const std::int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (sa != sb && sa != 1 && sb != 1) {
      throw ShapeError("broadcast_shape: shapes " + shape_str(a) + " and " + shape_str(b) +
                       " cannot be broadcast: at dimension " + std::to_string(i) + " (after aligning on " +
                       "the right) the sizes are " + std::to_string(sa) + " and " + std::to_string(sb) +
                       "; sizes must be equal or one of them 1 (add a size-1 dimension with unsqueeze)");
    }
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
  // END SOLUTION
}

}  // namespace kindling::exercises::ch01
