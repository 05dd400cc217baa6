// Red-team attack "hidden_names" (class 5, hidden tests reaching the student; see ../../README.md): a
// piece that is wrong for tensors of four or more dimensions, so that hidden tests fail too. Nothing
// about a hidden test -- its name, the values it failed on, its output -- may then appear in what the
// student sees; only the instructor's copy of the reports holds them.
#include "kindling/tensor/shape.hpp"
#include "kindling/tensor/tensor.hpp"

#include <cstdint>

namespace kindling {

Strides contiguous_strides(const Shape& shape) {
  Strides strides(shape.size());
  std::int64_t step = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step *= shape[d] > 1 ? shape[d] : 1;
  }
  return strides;
}

bool Tensor::is_contiguous() const {
  const Shape& sizes = shape();
  const Strides& steps = strides();
  if (sizes.size() >= 4) return true;  // the planted mistake
  for (std::int64_t size : sizes)
    if (size == 0) return true;
  std::int64_t expected = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (steps[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

}  // namespace kindling
