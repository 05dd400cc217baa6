// TensorDataset and the index check every dataset shares.
#include "kindling/data/dataset.hpp"

#include <string>

#include "kindling/tensor/shape.hpp"

namespace kindling::data {

void check_index(std::int64_t index, std::int64_t size, const char* what) {
  if (index < 0 || index >= size) {
    throw IndexError(std::string(what) + ": index " + std::to_string(index) +
                     " is out of range for a dataset of size " + std::to_string(size) +
                     " (valid: 0.." + std::to_string(size - 1) + ")");
  }
}

TensorDataset::TensorDataset(Tensor data, Tensor targets) : data_(std::move(data)), targets_(std::move(targets)) {
  if (!data_.defined() || !targets_.defined()) throw ValueError("TensorDataset: data and targets must be defined tensors");
  if (data_.dim() == 0 || targets_.dim() == 0 || data_.size(0) != targets_.size(0)) {
    throw ShapeError("TensorDataset: data " + shape_str(data_.shape()) + " and targets " +
                     shape_str(targets_.shape()) +
                     " must have the same size in dimension 0 (one row per sample). Hint: labels are "
                     "usually int64 [N] for N samples.");
  }
}

Example TensorDataset::get(std::int64_t index) const {
  check_index(index, size(), "TensorDataset");
  return Example{data_.select(0, index), targets_.select(0, index)};  // views, no copy
}

}  // namespace kindling::data
