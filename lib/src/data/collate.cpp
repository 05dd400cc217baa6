// Default collation: one allocation per batch, one memcpy per sample.
#include "kindling/data/collate.hpp"

#include <cstring>
#include <string>

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::data {

// collate_tensors is chapter 4's exercise 2 (data/pieces.hpp): in the answer file.

template <class T>
static Tensor collate_numbers_impl(const std::vector<T>& values) {
  if (values.empty()) throw ValueError("collate: cannot make a batch out of zero samples");
  Tensor out = empty({static_cast<std::int64_t>(values.size())}, {.dtype = dtype_of<T>()});
  std::memcpy(out.raw_data_ptr(), values.data(), values.size() * sizeof(T));
  return out;
}

Tensor collate_numbers(const std::vector<std::int64_t>& values) { return collate_numbers_impl(values); }
Tensor collate_numbers(const std::vector<double>& values) { return collate_numbers_impl(values); }
Tensor collate_numbers(const std::vector<bool>& values) {  // packed bits: no memcpy, one byte each
  if (values.empty()) throw ValueError("collate: cannot make a batch out of zero samples");
  Tensor out = empty({static_cast<std::int64_t>(values.size())}, {.dtype = kBool});
  auto* p = static_cast<bool*>(out.raw_data_ptr());
  for (std::size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return out;
}

}  // namespace kindling::data
