// ch04.ex2 — collate: stack a batch's samples into one tensor.
//
// kindling::data::collate_tensors (kindling/data/collate.hpp): DefaultCollate, so every DataLoader batch
// of images and of labels, is made here.
#include "kindling/data/collate.hpp"

#include <cstring>
#include <string>

#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"

namespace kindling::data {

Tensor collate_tensors(const std::vector<Tensor>& samples) {
  // BEGIN SOLUTION ex2: check every sample against sample 0, allocate [B, ...] once, copy each into its slot
  // One allocation per batch, one memcpy per sample.
  if (samples.empty()) throw ValueError("collate: cannot make a batch out of zero samples");
  const Tensor& first = samples.front();
  if (!first.defined()) throw ValueError("collate: sample 0 holds an undefined tensor");
  const Shape& shape = first.shape();
  const DType dtype = first.dtype();
  for (std::size_t b = 1; b < samples.size(); ++b) {
    const Tensor& s = samples[b];
    if (!s.defined() || s.shape() != shape || s.dtype() != dtype) {
      throw ShapeError(
          "collate: cannot stack sample " + std::to_string(b) + " " +
          (s.defined() ? shape_str(s.shape()) + " " + dtype_name(s.dtype()) : std::string("(undefined)")) +
          " with sample 0 " + shape_str(shape) + " " + dtype_name(dtype) +
          ": every sample of a batch must have the same shape and dtype. Hint: add a Resize or "
          "CenterCrop transform, or pass a custom collate function to the DataLoader.");
    }
  }
  // out: [B, ...sample shape], filled slot by slot.
  Shape out_shape;
  out_shape.reserve(shape.size() + 1);
  out_shape.push_back(static_cast<std::int64_t>(samples.size()));
  out_shape.insert(out_shape.end(), shape.begin(), shape.end());
  Tensor out = empty(out_shape, {.dtype = dtype});
  const std::size_t slot_bytes = static_cast<std::size_t>(first.numel()) * element_size(dtype);
  auto* dst = static_cast<char*>(out.raw_data_ptr());
  for (std::size_t b = 0; b < samples.size(); ++b) {
    const Tensor& s = samples[b];
    if (s.device() != kCPU) {
      throw DeviceError("collate: sample " + std::to_string(b) + " is on " + s.device().str() +
                        "; datasets should return CPU tensors (move the batch to the device after "
                        "loading, as in PyTorch)");
    }
    if (s.is_contiguous()) {
      std::memcpy(dst + b * slot_bytes, s.raw_data_ptr(), slot_bytes);
    } else {
      out.select(0, static_cast<std::int64_t>(b)).copy_(s);  // strided copy (e.g. a permuted view)
    }
  }
  return out;
  // END SOLUTION
}

}  // namespace kindling::data
