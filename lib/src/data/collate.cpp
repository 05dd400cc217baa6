// Default collation: one allocation per batch, one memcpy per sample.
#include "kindling/data/collate.hpp"

#include <cstring>
#include <string>

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::data {

// [snippet: collate]
Tensor collate_tensors(const std::vector<Tensor>& samples) {
  if (samples.empty())
    throw ValueError("collate: cannot make a batch out of zero samples");
  const Tensor& first = samples.front();
  if (!first.defined())
    throw ValueError("collate: sample 0 holds an undefined tensor");
  const Shape& shape = first.shape();
  const DType dtype = first.dtype();
  for (std::size_t b = 1; b < samples.size(); ++b) {
    const Tensor& s = samples[b];
    if (!s.defined() || s.shape() != shape || s.dtype() != dtype) {
      throw ShapeError(
          "collate: cannot stack sample " + std::to_string(b) + " " +
          (s.defined() ? shape_str(s.shape()) + " " + dtype_name(s.dtype())
                       : std::string("(undefined)")) +
          " with sample 0 " + shape_str(shape) + " " + dtype_name(dtype) +
          ": every sample of a batch must have the same shape and dtype. Hint: add a "
          "Resize or CenterCrop transform, or pass a custom collate function to the "
          "DataLoader.");
    }
  }
  // out: [B, ...sample shape], filled slot by slot.
  Shape out_shape;
  out_shape.reserve(shape.size() + 1);
  out_shape.push_back(static_cast<std::int64_t>(samples.size()));
  out_shape.insert(out_shape.end(), shape.begin(), shape.end());
  Tensor out = empty(out_shape, {.dtype = dtype});
  const std::size_t slot_bytes =
      static_cast<std::size_t>(first.numel()) * element_size(dtype);
  auto* dst = static_cast<char*>(out.raw_data_ptr());
  for (std::size_t b = 0; b < samples.size(); ++b) {
    const Tensor& s = samples[b];
    if (s.device() != kCPU) {
      throw DeviceError("collate: sample " + std::to_string(b) + " is on " +
                        s.device().str() +
                        "; datasets should return CPU tensors (move the batch to the "
                        "device after loading, as in PyTorch)");
    }
    if (s.is_contiguous()) {
      std::memcpy(dst + b * slot_bytes, s.raw_data_ptr(), slot_bytes);
    } else {  // a strided copy (e.g. of a permuted view)
      out.select(0, static_cast<std::int64_t>(b)).copy_(s);
    }
  }
  return out;
}
// [end]

template <class T>
static Tensor collate_numbers_impl(const std::vector<T>& values) {
  if (values.empty()) throw ValueError("collate: cannot make a batch out of zero samples");
  Tensor out = empty({static_cast<std::int64_t>(values.size())}, {.dtype = dtype_of<T>()});
  std::memcpy(out.raw_data_ptr(), values.data(), values.size() * sizeof(T));
  return out;
}

Tensor collate_numbers(const std::vector<std::int64_t>& values) { return collate_numbers_impl(values); }
Tensor collate_numbers(const std::vector<double>& values) { return collate_numbers_impl(values); }

}  // namespace kindling::data
