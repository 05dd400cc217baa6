// CachedDataset's file handling: two .npy files per cache.
#include <cstring>
#include <filesystem>

#include "kindling/data/cached.hpp"
#include "kindling/tensor/creation.hpp"
#include "kindling/tensor/error.hpp"
#include "kindling/tensor/npy.hpp"

namespace kindling::data {
namespace detail {

std::optional<std::pair<Tensor, Tensor>> load_cache(const std::string& prefix, std::int64_t expected) {
  const std::string data_path = prefix + ".data.npy", targets_path = prefix + ".targets.npy";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(data_path, ec) || !std::filesystem::is_regular_file(targets_path, ec)) {
    return std::nullopt;
  }
  Tensor data = load_npy(data_path), targets = load_npy(targets_path);  // throw IOError if corrupt
  if (data.dim() == 0 || targets.dim() == 0 || data.size(0) != expected || targets.size(0) != expected) {
    return std::nullopt;  // stale: another dataset size; rebuild
  }
  return std::make_pair(data, targets);
}

void save_cache(const std::string& prefix, const Tensor& data, const Tensor& targets) {
  save_npy(data, prefix + ".data.npy");
  save_npy(targets, prefix + ".targets.npy");
}

void append_rows(Tensor& all, const Tensor& batch, std::int64_t start, std::int64_t total) {
  if (!all.defined()) {
    Shape shape = batch.shape();
    shape[0] = total;
    all = empty(shape, {.dtype = batch.dtype()});
  }
  Shape row_shape(all.shape().begin() + 1, all.shape().end()), batch_row(batch.shape().begin() + 1, batch.shape().end());
  if (row_shape != batch_row || all.dtype() != batch.dtype()) {
    throw ShapeError("CachedDataset: samples must all have one shape and dtype to be cached together; found " +
                     shape_str(batch_row) + " " + dtype_name(batch.dtype()) + " after " + shape_str(row_shape) + " " +
                     dtype_name(all.dtype()) + ". Hint: add a Resize/CenterCrop transform.");
  }
  // batch is a freshly collated, contiguous [B, ...] tensor: rows are one memcpy.
  const std::size_t row_bytes = static_cast<std::size_t>(batch.numel() / std::max<std::int64_t>(batch.size(0), 1)) *
                                batch.element_size();
  Tensor src = batch.contiguous();
  std::memcpy(static_cast<char*>(all.raw_data_ptr()) + static_cast<std::size_t>(start) * row_bytes, src.raw_data_ptr(),
              static_cast<std::size_t>(batch.size(0)) * row_bytes);
}

}  // namespace detail

Example CachedDataset::get(std::int64_t index) const {
  check_index(index, size(), "CachedDataset");
  return Example{data_.select(0, index), targets_.select(0, index)};
}

}  // namespace kindling::data
