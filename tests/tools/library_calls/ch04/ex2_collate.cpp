// A "library call" submission (see tests/tools/library_calls/ch01/ex1_strides.cpp): the batch through
// DefaultCollate — which calls this very function.
#include "kindling/data/collate.hpp"

namespace kindling::data {
Tensor collate_tensors(const std::vector<Tensor>& samples) { return DefaultCollate{}(std::vector<Tensor>(samples)); }
}  // namespace kindling::data
