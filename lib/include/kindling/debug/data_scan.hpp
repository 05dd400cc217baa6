#pragma once
/// @file
/// The data scan: before blaming the model, look at the data. One pass over any Dataset whose
/// samples have `.data` and `.target` (data::Example): NaN/Inf, the value range of each channel,
/// the label range and class balance, duplicated samples, and a summary of the first few samples.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kindling/data/dataset.hpp"

namespace kindling::debug {

struct DataScanOptions {
  std::int64_t max_samples = -1;  ///< scan the first N samples only (-1: all)
  std::int64_t num_classes = -1;  ///< expected classes [0, num_classes); -1: take them from the labels
  std::int64_t show = 3;          ///< samples summarised in the report
  double imbalance_ratio = 10;    ///< largest class / smallest class above this is reported
};

struct ChannelStats {
  double min = 0, max = 0, mean = 0, std = 0;
};

struct SampleSummary {
  std::int64_t index = 0;
  Shape shape;
  double min = 0, max = 0, mean = 0;
  std::string target;
};

struct DataScanReport {
  std::int64_t samples = 0;
  Shape sample_shape;
  DType dtype = kFloat32;
  std::int64_t samples_with_nan = 0, samples_with_inf = 0;
  std::vector<std::int64_t> first_bad;  ///< indices of the first samples holding NaN/Inf
  std::vector<ChannelStats> channels;   ///< dim 0 of a sample of rank >= 2 (C of [C, H, W]), else one
  bool integer_labels = true;
  double label_min = 0, label_max = 0;
  std::vector<std::int64_t> class_counts;  ///< index = class, for integer labels >= 0
  std::int64_t duplicates = 0;             ///< samples whose data equals an earlier sample's
  std::vector<std::pair<std::int64_t, std::int64_t>> duplicate_pairs;  ///< (earlier, later), first few
  std::vector<SampleSummary> shown;
  /// What looks wrong, one sentence each with the likely cause; empty for clean data.
  std::vector<std::string> problems;
  std::string to_string() const;
};

namespace detail {
DataScanReport scan_examples(std::int64_t size, const std::function<data::Example(std::int64_t)>& get,
                             const DataScanOptions& options);
}

/// Scans `dataset` (any Dataset of Examples: TensorDataset, FashionMNIST, a transformed one, ...).
template <data::Dataset D>
DataScanReport scan(const D& dataset, const DataScanOptions& options = {}) {
  return detail::scan_examples(
      static_cast<std::int64_t>(dataset.size()),
      [&](std::int64_t i) {
        auto s = dataset.get(i);
        return data::Example{s.data, s.target};
      },
      options);
}

}  // namespace kindling::debug
